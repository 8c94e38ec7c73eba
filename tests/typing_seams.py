"""Static check of the seams: every concrete component fits its Protocol (run by mypy, not pytest).

mypy (``make type``) checks each ``return`` below structurally: a base class whose method
signature drifts from its Protocol in ``rlpyt.protocols`` (a renamed keyword, a missing method,
an incompatible return type) fails type checking here. ``tests/unit/test_protocols.py`` checks
the same pairs at run time with ``isinstance``.
"""

from __future__ import annotations

from rlpyt.agents.dqn.atari.atari_catdqn_agent import AtariCatDqnAgent
from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.agents.dqn.classic import ClassicCatDqnAgent, ClassicDqnAgent
from rlpyt.agents.dqn.r2d1_agent import R2d1Agent, R2d1AlternatingAgent
from rlpyt.agents.pg.atari import AlternatingAtariLstmAgent, AtariFfAgent, AtariLstmAgent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.agents.pg.mujoco import AlternatingMujocoLstmAgent, MujocoFfAgent, MujocoLstmAgent
from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.agents.qpg.sac_v_agent import SacAgent as SacVAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.algos.dqn.cat_dqn import CategoricalDQN
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from rlpyt.algos.qpg.ddpg import DDPG
from rlpyt.algos.qpg.sac import SAC
from rlpyt.algos.qpg.sac_v import SAC_V
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.protocols import (
    ActorCriticAgent,
    Agent,
    Algorithm,
    AsyncReplayAlgorithm,
    AsyncSampler,
    CategoricalQAgent,
    Collector,
    MinItrLearnAgent,
    MuQAgent,
    PiQAgent,
    QAgent,
    RecurrentAgent,
    Runner,
    Sampler,
    SharedMemoryAgent,
    SoftQAgent,
    SoftVAgent,
)
from rlpyt.runners.async_rl import AsyncRl, AsyncRlEval
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlEval
from rlpyt.runners.sync_rl import SyncRl, SyncRlEval
from rlpyt.samplers.agent_collectors import CpuResetCollector, CpuWaitResetCollector
from rlpyt.samplers.async_.alternating_sampler import AsyncAlternatingSampler
from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
from rlpyt.samplers.async_.gpu_sampler import AsyncGpuSampler
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector, GpuWaitResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler


def agents(
    a: AtariFfAgent,
    b: AtariLstmAgent,
    c: AlternatingAtariLstmAgent,
    d: MujocoFfAgent,
    e: MujocoLstmAgent,
    f: AlternatingMujocoLstmAgent,
    g: ClassicFfAgent,
    h: ClassicLstmAgent,
) -> list[Agent]:
    """Every policy-gradient agent is an ``Agent``."""
    return [a, b, c, d, e, f, g, h]


def dqn_agents(
    a: AtariDqnAgent, b: AtariCatDqnAgent, c: ClassicDqnAgent, d: ClassicCatDqnAgent
) -> list[Agent]:
    """Every deep-Q agent is an ``Agent``."""
    return [a, b, c, d]


def q_agents(
    a: AtariDqnAgent,
    b: AtariCatDqnAgent,
    c: ClassicDqnAgent,
    d: ClassicCatDqnAgent,
    e: R2d1Agent,
    f: R2d1AlternatingAgent,
) -> list[QAgent]:
    """Every DQN-family agent is what DQN, CategoricalDQN and R2D1 use (``QAgent``)."""
    return [a, b, c, d, e, f]


def categorical_q_agents(a: AtariCatDqnAgent, b: ClassicCatDqnAgent) -> list[CategoricalQAgent]:
    """The C51 agents are what CategoricalDQN uses."""
    return [a, b]


def actor_critic_agents(
    a: DdpgAgent, b: Td3Agent, c: SacAgent, d: SacVAgent
) -> list[ActorCriticAgent]:
    """Every Q-function policy-gradient agent is what ``QpgAlgo`` uses."""
    return [a, b, c, d]


def mu_q_agents(a: DdpgAgent, b: Td3Agent) -> list[MuQAgent]:
    """DDPG's and TD3's agents are what DDPG and TD3 use."""
    return [a, b]


def pi_q_agents(a: SacAgent, b: SacVAgent) -> tuple[SoftQAgent, SoftVAgent, list[PiQAgent]]:
    """SAC's agent is what SAC uses, SAC_V's what SAC_V uses."""
    return a, b, [a, b]


def min_itr_learn_agents(a: Td3Agent, b: SacAgent, c: SacVAgent) -> list[MinItrLearnAgent]:
    """The agents that explore differently before learning starts."""
    return [a, b, c]


def shared_memory_agents(
    a: AtariDqnAgent,
    b: ClassicDqnAgent,
    c: R2d1Agent,
    d: DdpgAgent,
    e: Td3Agent,
    f: SacAgent,
    g: ClassicFfAgent,
    h: AtariLstmAgent,
) -> list[SharedMemoryAgent]:
    """Every agent is what the asynchronous runner and samplers use (``SharedMemoryAgent``)."""
    return [a, b, c, d, e, f, g, h]


def samplers(
    a: SerialSampler, b: CpuSampler, c: GpuSampler, d: AlternatingSampler
) -> list[Sampler]:
    """Every synchronous sampler is a ``Sampler``."""
    return [a, b, c, d]


def collectors(
    a: CpuResetCollector,
    b: CpuWaitResetCollector,
    c: GpuResetCollector,
    d: GpuWaitResetCollector,
) -> list[Collector]:
    """Every training collector is a ``Collector``."""
    return [a, b, c, d]


def algorithms(a: A2C, b: PPO) -> list[Algorithm]:
    """Every algorithm is an ``Algorithm``."""
    return [a, b]


def runners(a: MinibatchRl, b: MinibatchRlEval) -> list[Runner]:
    """Every runner is a ``Runner``."""
    return [a, b]


def async_samplers(
    a: AsyncSerialSampler, b: AsyncCpuSampler, c: AsyncGpuSampler, d: AsyncAlternatingSampler
) -> list[AsyncSampler]:
    """Every asynchronous sampler is an ``AsyncSampler`` (what AsyncRl takes)."""
    return [a, b, c, d]


def replay_algorithms(
    a: DQN, b: CategoricalDQN, c: R2D1, d: DDPG, e: TD3, f: SAC, g: SAC_V
) -> list[AsyncReplayAlgorithm]:
    """Every replay algorithm is an ``AsyncReplayAlgorithm`` (what AsyncRl takes)."""
    return [a, b, c, d, e, f, g]


def recurrent_agents(
    a: R2d1Agent, b: R2d1AlternatingAgent, c: AtariLstmAgent, d: ClassicLstmAgent
) -> list[RecurrentAgent]:
    """Recurrent agents carry ``sampling_rnn_state`` (saved with snapshots)."""
    return [a, b, c, d]


def more_runners(a: AsyncRl, b: AsyncRlEval, c: SyncRl, d: SyncRlEval) -> list[Runner]:
    """The asynchronous and synchronous data-parallel runners are ``Runner``s too."""
    return [a, b, c, d]


def algorithms_built_with_keywords() -> list[Algorithm]:
    """A user's type checker accepts rlpyt's keywords, by name and in rlpyt's positional order
    (the constructors are generated from declarations at run time)."""
    return [
        DQN(0.99, 32, learning_rate=1e-3, double_dqn=True),
        R2D1(discount=0.997, batch_T=40),
        TD3(100, replay_ratio=128, q_learning_rate=1e-3),
        PPO(discount=0.99, learning_rate=3e-4, ratio_clip=0.2),
        A2C(0.99, learning_rate=7e-4),
        SAC(batch_size=256, target_entropy="auto"),
    ]
