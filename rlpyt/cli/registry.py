"""The lookup table of what the command line can run: algorithms, samplers, runners, configs.

Box: command line, first stage of the pipeline (:mod:`rlpyt.cli.resolve` reads it). Data only:
an :class:`AlgoEntry` per algorithm names its algorithm class, its agent per env kind and its
default config per env kind; :data:`SAMPLERS`, :data:`COLLECTORS` and :data:`RUNNERS` name the
classes a run may use. Classes are ``"module:Class"`` strings, imported only when a run needs
them, so ``rlpyt --help`` starts without importing torch models.
"""

from __future__ import annotations

import copy
import difflib
import importlib
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ALGORITHMS",
    "COLLECTORS",
    "CONFIGS",
    "RUNNERS",
    "RUNNER_KINDS",
    "SAMPLERS",
    "SAMPLER_KEYS",
    "VECTOR_BACKENDS",
    "AlgoEntry",
    "DefaultConfig",
    "algorithms_for",
    "get_algorithm",
    "import_object",
]

CONFIGS = "rlpyt.experiments.configs"

SAMPLERS: dict[str, tuple[str, str]] = {
    "serial": ("rlpyt.samplers.serial.sampler:SerialSampler", "cpu"),
    "cpu": ("rlpyt.samplers.parallel.cpu.sampler:CpuSampler", "cpu"),
    "gpu": ("rlpyt.samplers.parallel.gpu.sampler:GpuSampler", "gpu"),
    "alternating": ("rlpyt.samplers.parallel.gpu.alternating_sampler:AlternatingSampler", "gpu"),
}
"""Sampler name -> (sampler class, collector family): ``cpu`` collectors step envs and run the
agent in the worker; ``gpu`` collectors only step envs (the master runs the agent)."""

ASYNC_SAMPLERS: dict[str, str] = {
    "serial": "rlpyt.samplers.async_.serial_sampler:AsyncSerialSampler",
    "cpu": "rlpyt.samplers.async_.cpu_sampler:AsyncCpuSampler",
    "gpu": "rlpyt.samplers.async_.gpu_sampler:AsyncGpuSampler",
    "alternating": "rlpyt.samplers.async_.alternating_sampler:AsyncAlternatingSampler",
}
"""Sampler name -> the asynchronous sampler of that name (``--runner async``)."""

COLLECTORS: dict[str, str] = {
    "cpu": "rlpyt.samplers.parallel.cpu.collectors:CpuResetCollector",
    "gpu": "rlpyt.samplers.parallel.gpu.collectors:GpuResetCollector",
}
"""Collector family -> the reset collector of that family (synchronous samplers)."""

ASYNC_COLLECTORS: dict[str, str] = {
    "cpu": "rlpyt.samplers.async_.collectors:DbCpuResetCollector",
    "gpu": "rlpyt.samplers.async_.collectors:DbGpuResetCollector",
}
"""Collector family -> the double-buffer reset collector of the asynchronous samplers."""

RUNNER_KINDS = ("minibatch", "sync", "async")
"""``--runner`` choices: one process (``MinibatchRl``), data-parallel ranks (``SyncRl``),
sampler and optimizer in separate processes (``AsyncRl``, replay algorithms only)."""

RUNNERS: dict[tuple[str, bool], str] = {
    ("minibatch", False): "rlpyt.runners.minibatch_rl:MinibatchRl",
    ("minibatch", True): "rlpyt.runners.minibatch_rl:MinibatchRlEval",
    ("sync", False): "rlpyt.runners.sync_rl:SyncRl",
    ("sync", True): "rlpyt.runners.sync_rl:SyncRlEval",
    ("async", False): "rlpyt.runners.async_rl:AsyncRl",
    ("async", True): "rlpyt.runners.async_rl:AsyncRlEval",
}
"""(runner kind, evaluates) -> runner class."""

VECTOR_BACKENDS = ("gymnasium", "envpool")
"""``--vector`` choices: batched envs through ``rlpyt.envs.vector.vector_env_maker``."""

SAMPLER_KEYS = (
    "batch_T",
    "batch_B",
    "max_decorrelation_steps",
    "eval_n_envs",
    "eval_max_steps",
    "eval_max_trajectories",
)
"""Sampler keywords a config may set (the rest are classes the composition chooses)."""


def import_object(path: str) -> Any:
    """Import ``"package.module:Name"`` and return ``Name``."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class DefaultConfig:
    """Where a config lives under ``rlpyt.experiments.configs``.

    Attributes:
        module: Module under ``rlpyt.experiments.configs`` holding ``configs``, e.g.
            ``"classic.pg.cartpole_ppo"``.
        key: The key in its ``configs`` dict.
        optim_cls: ``"module:Class"`` of the optimizer the matching train script passes as
            ``OptimCls`` (None: the algorithm's default).
    """

    module: str
    key: str
    optim_cls: str | None = None

    def load(self) -> dict[str, Any]:
        """A deep copy of the config dict.

        Raises:
            ValueError: the config module or key does not exist.
        """
        try:
            configs = import_object(f"{CONFIGS}.{self.module}:configs")
            return copy.deepcopy(configs[self.key])
        except (ImportError, AttributeError, KeyError) as exc:
            raise ValueError(
                f"No config {self.name!r} under {CONFIGS} ({type(exc).__name__}: {exc}); "
                "pass --config MODULE:KEY naming an existing config."
            ) from None

    @property
    def name(self) -> str:
        """``"classic.pg.cartpole_ppo:0"``: the form ``--config`` takes."""
        return f"{self.module}:{self.key}"


@dataclass(frozen=True)
class AlgoEntry:
    """One algorithm the command line offers.

    Attributes:
        name: CLI name (``ppo``).
        algo_cls: ``"module:Class"`` of the algorithm.
        agents: Env kind -> ``"module:Class"`` of the agent for it.
        configs: Env kind -> its default config.
        summary: One line for ``--help``.
        replay: Whether the algorithm learns from a replay buffer (only those run under
            ``--runner async``).
    """

    name: str
    algo_cls: str
    agents: dict[str, str]
    configs: dict[str, DefaultConfig]
    summary: str
    replay: bool = True

    def load_algo_cls(self) -> type:
        """The algorithm class."""
        return import_object(self.algo_cls)

    def agent_path(self, kind: str) -> str:
        """``"module:Class"`` of the agent for env kind ``kind``.

        Raises:
            ValueError: the algorithm does not run on that kind of env.
        """
        if kind not in self.agents:
            raise ValueError(
                f"{self.name} does not run on {kind} envs (it runs on: "
                f"{', '.join(self.agents)}). Pick an env of those kinds, or an algorithm "
                f"for {kind} envs: {', '.join(algorithms_for(kind))}."
            )
        return self.agents[kind]

    def load_agent_cls(self, kind: str) -> type:
        """The agent class for env kind ``kind`` (see :meth:`agent_path`)."""
        return import_object(self.agent_path(kind))


def _pg(name: str, cls: str, summary: str, configs: dict[str, DefaultConfig]) -> AlgoEntry:
    agents = {
        "classic-discrete": "rlpyt.agents.pg.classic:ClassicFfAgent",
        "classic-continuous": "rlpyt.agents.pg.mujoco:MujocoFfAgent",
        "mujoco": "rlpyt.agents.pg.mujoco:MujocoFfAgent",
        "atari": "rlpyt.agents.pg.atari:AtariFfAgent",
    }
    return AlgoEntry(name, cls, agents, configs, summary, replay=False)


def _qpg(
    name: str, cls: str, agent: str, summary: str, classic: DefaultConfig, mujoco: DefaultConfig
) -> AlgoEntry:
    agents = {"classic-continuous": agent, "mujoco": agent}
    return AlgoEntry(name, cls, agents, {"classic-continuous": classic, "mujoco": mujoco}, summary)


def _make_registry() -> dict[str, AlgoEntry]:
    rmsprop = "torch.optim:RMSprop"
    entries = [
        _pg("ppo", "rlpyt.algos.pg.ppo:PPO", "Proximal Policy Optimization (on-policy)", {
            "classic-discrete": DefaultConfig("classic.pg.cartpole_ppo", "0"),
            "classic-continuous": DefaultConfig("classic.pg.pendulum_ppo", "0"),
            "mujoco": DefaultConfig("mujoco.pg.mujoco_ppo", "ppo_1M_serial"),
            "atari": DefaultConfig("atari.pg.atari_ff_ppo", "0"),
        }),
        _pg("a2c", "rlpyt.algos.pg.a2c:A2C", "Advantage Actor-Critic (on-policy)", {
            "classic-discrete": DefaultConfig("classic.pg.cartpole_a2c", "0", rmsprop),
            "classic-continuous": DefaultConfig("mujoco.pg.mujoco_a2c", "a2c_1M"),
            "mujoco": DefaultConfig("mujoco.pg.mujoco_a2c", "a2c_1M"),
            "atari": DefaultConfig("atari.pg.atari_ff_a2c", "0"),
        }),
        AlgoEntry("dqn", "rlpyt.algos.dqn.dqn:DQN", {
            "classic-discrete": "rlpyt.agents.dqn.classic:ClassicDqnAgent",
            "atari": "rlpyt.agents.dqn.atari.atari_dqn_agent:AtariDqnAgent",
        }, {
            "classic-discrete": DefaultConfig("classic.dqn.cartpole_dqn", "dqn"),
            "atari": DefaultConfig("atari.dqn.atari_dqn", "dqn"),
        }, "Deep Q-Network (replay; double, dueling, prioritized via --set)"),
        AlgoEntry("catdqn", "rlpyt.algos.dqn.cat_dqn:CategoricalDQN", {
            "classic-discrete": "rlpyt.agents.dqn.classic:ClassicCatDqnAgent",
            "atari": "rlpyt.agents.dqn.atari.atari_catdqn_agent:AtariCatDqnAgent",
        }, {
            "classic-discrete": DefaultConfig("classic.dqn.cartpole_dqn", "catdqn"),
            "atari": DefaultConfig("atari.dqn.atari_dqn", "catdqn"),
        }, "Categorical DQN / C51 (distributional, replay)"),
        AlgoEntry("r2d1", "rlpyt.algos.dqn.r2d1:R2D1", {
            "classic-discrete": "rlpyt.agents.dqn.classic:ClassicR2d1Agent",
            "atari": "rlpyt.agents.dqn.atari.atari_r2d1_agent:AtariR2d1Agent",
        }, {
            "classic-discrete": DefaultConfig("classic.dqn.cartpole_r2d1", "r2d1"),
            "atari": DefaultConfig("atari.dqn.atari_r2d1", "r2d1"),
        }, "Recurrent Replay Distributed DQN (LSTM, sequence replay)"),
        _qpg("ddpg", "rlpyt.algos.qpg.ddpg:DDPG", "rlpyt.agents.qpg.ddpg_agent:DdpgAgent",
             "Deep Deterministic Policy Gradient (continuous actions)",
             DefaultConfig("classic.qpg.pendulum_ddpg", "ddpg_short"),
             DefaultConfig("mujoco.qpg.mujoco_ddpg", "ddpg_from_td3_1M_serial")),
        _qpg("td3", "rlpyt.algos.qpg.td3:TD3", "rlpyt.agents.qpg.td3_agent:Td3Agent",
             "Twin Delayed DDPG (continuous actions)",
             DefaultConfig("classic.qpg.pendulum_td3", "td3_short"),
             DefaultConfig("mujoco.qpg.mujoco_td3", "td3_1M_serial")),
        _qpg("sac", "rlpyt.algos.qpg.sac:SAC", "rlpyt.agents.qpg.sac_agent:SacAgent",
             "Soft Actor-Critic with learned temperature (continuous actions)",
             DefaultConfig("classic.qpg.pendulum_sac", "sac"),
             DefaultConfig("mujoco.qpg.mujoco_sac", "sac_1M_serial")),
        _qpg("sac_v", "rlpyt.algos.qpg.sac_v:SAC_V", "rlpyt.agents.qpg.sac_v_agent:SacAgent",
             "Soft Actor-Critic, first version with a value network (continuous actions)",
             DefaultConfig("classic.qpg.pendulum_sac_v", "sac_v"),
             DefaultConfig("mujoco.qpg.mujoco_sac_v", "sac_1M_serial")),
    ]  # fmt: skip
    return {entry.name: entry for entry in entries}


ALGORITHMS: dict[str, AlgoEntry] = _make_registry()
"""CLI name -> entry."""


def algorithms_for(kind: str) -> list[str]:
    """Names of the algorithms that run on env kind ``kind``."""
    return [name for name, entry in ALGORITHMS.items() if kind in entry.agents]


def get_algorithm(name: str) -> AlgoEntry:
    """The entry of algorithm ``name`` (case-insensitive).

    Raises:
        ValueError: unknown name; the message lists what exists and the closest match.
    """
    entry = ALGORITHMS.get(name.lower())
    if entry is None:
        close = difflib.get_close_matches(name.lower(), list(ALGORITHMS), n=1, cutoff=0.4)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(
            f"Unknown algorithm {name!r}.{hint} Available: {', '.join(ALGORITHMS)} "
            "(`rlpyt train --help` describes each)."
        )
    return entry
