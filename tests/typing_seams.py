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
from rlpyt.agents.pg.atari import AlternatingAtariLstmAgent, AtariFfAgent, AtariLstmAgent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.agents.pg.mujoco import AlternatingMujocoLstmAgent, MujocoFfAgent, MujocoLstmAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from rlpyt.protocols import Agent, Algorithm, Collector, Runner, Sampler
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlEval
from rlpyt.samplers.agent_collectors import CpuResetCollector, CpuWaitResetCollector
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
