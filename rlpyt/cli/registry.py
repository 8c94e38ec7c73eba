"""The registry of what the command line can run, and the composition of one run.

Box: command line. ``rlpyt train | sweep | play | tune`` describe a run as a :class:`RunSpec`
(algorithm name, env id, sampler, overrides, ...) and call :func:`build_components`, which
composes the same sampler, agent, algorithm and runner classes a train script in
``experiments/scripts`` would, from the configs in ``rlpyt.experiments.configs``. Nothing here
adds behaviour the library lacks. ``rlpyt train`` saves ``spec.to_dict()`` under ``"cli"`` in
params.json so ``rlpyt play RUN_DIR`` can rebuild agent and env the same way.

Classes are named as ``"module:Class"`` strings and imported only when a run needs them, so an
algorithm whose module is missing (R2D1 before it lands) is simply not offered.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import importlib
import importlib.util
import inspect
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from rlpyt.cli.overrides import apply_overrides
from rlpyt.utils.launching.variant import update_config

__all__ = [
    "ALGORITHMS",
    "ENV_KINDS",
    "SAMPLERS",
    "AlgoEntry",
    "Components",
    "DefaultConfig",
    "RunSpec",
    "apply_overrides",
    "build_components",
    "env_kind",
    "get_algorithm",
    "load_config",
]

CONFIGS = "rlpyt.experiments.configs"

ENV_KINDS = ("classic-discrete", "classic-continuous", "mujoco", "atari")
"""Env kinds: gymnasium vector-observation envs with discrete or continuous actions, gymnasium
MuJoCo envs (continuous), and Atari games (``rlpyt.envs.atari.atari_env.AtariEnv``)."""

SAMPLERS: dict[str, tuple[str, str]] = {
    "serial": ("rlpyt.samplers.serial.sampler:SerialSampler", "cpu"),
    "cpu": ("rlpyt.samplers.parallel.cpu.sampler:CpuSampler", "cpu"),
    "gpu": ("rlpyt.samplers.parallel.gpu.sampler:GpuSampler", "gpu"),
    "alternating": ("rlpyt.samplers.parallel.gpu.alternating_sampler:AlternatingSampler", "gpu"),
}
"""Sampler name -> (sampler class, collector family): ``cpu`` collectors step envs and run the
agent in the worker; ``gpu`` collectors only step envs (the master runs the agent)."""

COLLECTORS = {
    "cpu": "rlpyt.samplers.parallel.cpu.collectors:CpuResetCollector",
    "gpu": "rlpyt.samplers.parallel.gpu.collectors:GpuResetCollector",
}

RUNNERS = {
    "MinibatchRl": "rlpyt.runners.minibatch_rl:MinibatchRl",
    "MinibatchRlEval": "rlpyt.runners.minibatch_rl:MinibatchRlEval",
}

# Sampler keywords a config may set (the rest are classes the registry chooses).
SAMPLER_KEYS = (
    "batch_T",
    "batch_B",
    "max_decorrelation_steps",
    "eval_n_envs",
    "eval_max_steps",
    "eval_max_trajectories",
)


def import_object(path: str) -> Any:
    """Import ``"package.module:Name"`` and return ``Name``."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class DefaultConfig:
    """Where an algorithm's default config for one env kind lives.

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
            ValueError: the config module or key does not exist (yet).
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
    """

    name: str
    algo_cls: str
    agents: dict[str, str]
    configs: dict[str, DefaultConfig]
    summary: str

    @property
    def available(self) -> bool:
        """True when the algorithm's module is installed (R2D1 may not be yet)."""
        return importlib.util.find_spec(self.algo_cls.partition(":")[0]) is not None

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
    return AlgoEntry(name, cls, agents, configs, summary)


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
             DefaultConfig("classic.qpg.pendulum_ddpg", "ddpg"),
             DefaultConfig("mujoco.qpg.mujoco_ddpg", "ddpg_from_td3_1M_serial")),
        _qpg("td3", "rlpyt.algos.qpg.td3:TD3", "rlpyt.agents.qpg.td3_agent:Td3Agent",
             "Twin Delayed DDPG (continuous actions)",
             DefaultConfig("classic.qpg.pendulum_td3", "td3"),
             DefaultConfig("mujoco.qpg.mujoco_td3", "td3_1M_serial")),
        _qpg("sac", "rlpyt.algos.qpg.sac:SAC", "rlpyt.agents.qpg.sac_agent:SacAgent",
             "Soft Actor-Critic with learned temperature (continuous actions)",
             DefaultConfig("classic.qpg.pendulum_sac", "sac"),
             DefaultConfig("mujoco.qpg.mujoco_sac", "sac_1M_serial")),
        _qpg("sac_v", "rlpyt.algos.qpg.sac_v:SAC_V", "rlpyt.agents.qpg.sac_v_agent:SacAgent",
             "Soft Actor-Critic, first version with a value network (continuous actions)",
             DefaultConfig("mujoco.qpg.mujoco_sac_v", "sac_1M_serial"),
             DefaultConfig("mujoco.qpg.mujoco_sac_v", "sac_1M_serial")),
    ]  # fmt: skip
    return {entry.name: entry for entry in entries if entry.available}


ALGORITHMS: dict[str, AlgoEntry] = _make_registry()
"""CLI name -> entry, for every algorithm whose module exists."""

# Packages under rlpyt/algos/<family>/ whose modules the CLI need not offer (bases, helpers).
NOT_ALGORITHMS = frozenset({"base", "utils", "replay_mixin", "__init__"})


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


# -- environments --------------------------------------------------------------------------


def atari_game(env: str) -> str | None:
    """The ale-py game name for an Atari env id, or None when ``env`` is no Atari id.

    ``"ALE/SpaceInvaders-v5"`` and ``"SpaceInvadersNoFrameskip-v4"`` -> ``"space_invaders"``;
    a snake_case ROM id (``"pong"``) is itself.
    """
    from ale_py import roms  # noqa: PLC0415 (ale-py loads its ROM list)

    if env.startswith("ALE/"):
        name = re.sub(r"-v\d+$", "", env[4:])
    elif "/" not in env and env == env.lower() and "-" not in env:
        name = env
    else:
        match = re.fullmatch(r"([A-Z][A-Za-z]*?)(?:NoFrameskip|Deterministic)?-v[04]", env)
        if match is None or match.group(1)[0].islower():
            return None
        name = match.group(1)
    game = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    if env.startswith("ALE/") or game in roms.get_all_rom_ids():
        return game
    return None


def env_kind(env: str) -> tuple[str, dict[str, Any]]:
    """The kind of env ``env`` is and the keywords that make it.

    Args:
        env: A gymnasium id (``"CartPole-v1"``, ``"HalfCheetah-v5"``) or an Atari game
            (``"pong"``, ``"ALE/Pong-v5"``).

    Returns:
        ``(kind, env_kwargs)``: one of :data:`ENV_KINDS` and ``{"game": ...}`` (Atari, for
        ``AtariEnv``) or ``{"id": ...}`` (gymnasium, for ``rlpyt.envs.gym.make``).

    Raises:
        ValueError: no such env; the message names the closest ids.
    """
    game = atari_game(env)
    if game is not None:
        from rlpyt.envs.atari.atari_env import rom_path  # noqa: PLC0415

        rom_path(game)  # ValueError naming the closest games
        return "atari", {"game": game}
    return _gym_kind(env), {"id": env}


def _gym_kind(env_id: str) -> str:
    import gymnasium  # noqa: PLC0415

    from rlpyt.envs.gym import resolve_env_id  # noqa: PLC0415

    if env_id not in gymnasium.envs.registry:
        ids = [i for i in gymnasium.envs.registry if not i.startswith("ALE/")]
        close = difflib.get_close_matches(env_id, ids, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(
            f"Unknown env id {env_id!r}: gymnasium has no such env.{hint} Pass a registered "
            "gymnasium id (see gymnasium.pprint_registry()) or an Atari game such as 'pong' "
            "or 'ALE/Pong-v5'."
        )
    spec = gymnasium.spec(resolve_env_id(env_id))
    entry_point = str(spec.entry_point)
    if "mujoco" in entry_point:
        return "mujoco"
    probe = gymnasium.make(spec.id)
    try:
        discrete = isinstance(probe.action_space, gymnasium.spaces.Discrete)
    finally:
        probe.close()
    return "classic-discrete" if discrete else "classic-continuous"


# -- run spec and composition -------------------------------------------------------------


@dataclass
class RunSpec:
    """Everything that describes one command-line run (JSON-serializable).

    Attributes:
        algo: Algorithm name (a key of :data:`ALGORITHMS`).
        env: Env id or Atari game; None: the env of the config.
        sampler: One of :data:`SAMPLERS`.
        n_workers: Worker processes of a parallel sampler (None: one per allowed CPU, at most
            one per env).
        steps: Env steps to train (None: the config's ``runner.n_steps``).
        seed: Global seed (None: random, recorded in params.json).
        overrides: Dotted keys -> values applied last (``{"algo.learning_rate": 3e-4}``).
        config: ``"module:key"`` under ``rlpyt.experiments.configs`` or a key of the default
            config module; None: the algorithm's default for the env kind.
        config_file: JSON/YAML file merged onto the config (nested sections, or dotted keys as
            ``rlpyt tune`` writes them).
        target_reward: Stop once the trailing average return reaches this (None: never).
        log_dir: Folder the run folder goes in.
        tensorboard: Also write TensorBoard event files.
        eval_episodes: Offline evaluation episodes per log point: None as the config says,
            0 none (training trajectories are logged), N > 0 N episodes (MinibatchRlEval).
        log_interval_steps: Env steps between log rows (None: the config's).
        run_ID: Run number within ``log_dir``.
        name: Experiment name (None: the env id).
    """

    algo: str
    env: str | None = None
    sampler: str = "serial"
    n_workers: int | None = None
    steps: int | None = None
    seed: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    config: str | None = None
    config_file: str | None = None
    target_reward: float | None = None
    log_dir: str = "runs"
    tensorboard: bool = False
    eval_episodes: int | None = None
    log_interval_steps: int | None = None
    run_ID: int = 0  # noqa: N815 (rlpyt's name)
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable dict (``from_dict`` inverts it)."""
        return json.loads(json.dumps(dataclasses.asdict(self)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSpec:
        """Rebuild from :meth:`to_dict`; keys this version does not know are ignored."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})


@dataclass
class Components:
    """A fully composed run, not started.

    ``runner_cls(algo=..., agent=..., sampler=..., **runner_kwargs).train()`` starts it;
    :meth:`make_runner` does that composition.

    Attributes:
        algo, agent, sampler: The constructed components.
        runner_cls: ``MinibatchRl`` or ``MinibatchRlEval``.
        runner_kwargs: Keywords of the runner besides algo, agent and sampler.
        EnvCls: The env factory (``AtariEnv`` or ``rlpyt.envs.gym.make``).
        env_kwargs: Its keywords for one training env.
        config: The final config dict (what params.json records).
        env_kind: One of :data:`ENV_KINDS`.
        TrajInfoCls: The trajectory-info class the sampler uses.
    """

    algo: Any
    agent: Any
    sampler: Any
    runner_cls: type
    runner_kwargs: dict[str, Any]
    EnvCls: Any  # noqa: N815 (rlpyt's name)
    env_kwargs: dict[str, Any]
    config: dict[str, Any]
    env_kind: str
    TrajInfoCls: type  # noqa: N815

    def make_runner(self) -> Any:
        """The runner over these components."""
        return self.runner_cls(
            algo=self.algo, agent=self.agent, sampler=self.sampler, **self.runner_kwargs
        )


def load_config(spec: RunSpec, entry: AlgoEntry, kind: str) -> tuple[dict[str, Any], str | None]:
    """The run's config before overrides, and the ``OptimCls`` path its train script uses.

    Raises:
        ValueError: unknown ``--config`` key or module, or an unreadable config file.
    """
    default = entry.configs.get(kind)
    if default is None:
        entry.agent_path(kind)  # raises: the algorithm does not run there
        raise ValueError(f"{entry.name} has no default config for {kind} envs.")
    chosen = default if spec.config is None else _named_config(spec.config, default)
    config = chosen.load()
    if spec.config_file is not None:
        config = _merge_file(config, spec.config_file)
    return config, chosen.optim_cls


def _named_config(name: str, default: DefaultConfig) -> DefaultConfig:
    module, sep, key = name.rpartition(":")
    module = module.replace("/", ".") if sep else default.module
    if module.startswith(CONFIGS + "."):
        module = module[len(CONFIGS) + 1 :]
    try:
        configs = import_object(f"{CONFIGS}.{module}:configs")
    except (ImportError, AttributeError) as exc:
        raise ValueError(
            f"--config {name!r}: no config module {CONFIGS}.{module} ({exc}). Give "
            "MODULE:KEY with MODULE under rlpyt/experiments/configs, e.g. "
            f"{default.name!r}, or a key of {default.module}."
        ) from None
    if key not in configs:
        close = difflib.get_close_matches(key, list(configs), n=1, cutoff=0.4)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(
            f"--config {name!r}: {module} has no config {key!r}.{hint} Its keys: "
            f"{', '.join(configs)}."
        )
    optim_cls = default.optim_cls if module == default.module else None
    return DefaultConfig(module, key, optim_cls)


def _merge_file(config: dict[str, Any], path: str) -> dict[str, Any]:
    if not os.path.isfile(path):
        raise ValueError(f"--config-file {path!r} does not exist; give a JSON or YAML file.")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith((".yaml", ".yml")):
        import yaml  # noqa: PLC0415

        data = yaml.safe_load(text)
    else:
        data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"--config-file {path!r} must hold a mapping, not {type(data).__name__}.")
    dotted = {key: value for key, value in data.items() if "." in key}
    nested = {key: value for key, value in data.items() if "." not in key}
    try:
        config = update_config(config, nested)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"--config-file {path!r}: {exc}") from None
    return apply_overrides(config, dotted, valid_override_keys(config)) if dotted else config


def valid_override_keys(
    config: dict[str, Any], classes: dict[str, type] | None = None
) -> list[str]:
    """Dotted keys ``--set`` accepts beyond those in ``config``: each section's class keywords.

    Args:
        config: The config (its ``env`` section decides whether env keys are open).
        classes: Section -> class whose constructor keywords are valid there (``algo``,
            ``agent``, ``model``, ``optim``, ``runner``, ``env``).
    """
    keys = [f"sampler.{key}" for key in SAMPLER_KEYS]
    for section, cls in (classes or {}).items():
        keys.extend(f"{section}.{name}" for name in _keywords(cls))
    if "id" in config.get("env", {}):  # gymnasium envs take free keyword arguments
        keys += ["env.*", "eval_env.*"]
    return keys


def _keywords(cls: Any) -> list[str]:
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [
        p.name
        for p in parameters
        if p.kind not in kinds
        and not p.name[0].isupper()  # classes (ModelCls, OptimCls): not settable as text
        and not p.name.startswith("initial_")
        and p.name not in _NOT_SETTABLE
    ]


# Keywords the composition fills itself (components, env-derived model sizes, the optimizer's
# lr, which the algorithm's learning_rate sets).
_NOT_SETTABLE = frozenset(
    {"self", "params", "algo", "agent", "sampler", "affinity", "seed", "optim_kwargs", "lr"}
    | {"observation_shape", "action_size", "image_shape", "output_size"}
)


def build_components(spec: RunSpec) -> Components:
    """Compose sampler, agent, algorithm and runner keywords for ``spec`` (nothing starts).

    Raises:
        ValueError: unknown algorithm, env, sampler, config or override key (each message
            says what exists).
    """
    from rlpyt.cli.compose import compose  # noqa: PLC0415 (heavy imports only when composing)

    entry = get_algorithm(spec.algo)
    if spec.sampler not in SAMPLERS:
        raise ValueError(f"Unknown sampler {spec.sampler!r}; choose one of {', '.join(SAMPLERS)}.")
    return compose(spec, entry)
