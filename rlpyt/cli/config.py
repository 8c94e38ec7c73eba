"""Build the config of a resolved run: load, file, env, runner, evaluation, ``--set``.

Box: command line, the pipeline's third stage (``RunSpec`` -> :func:`rlpyt.cli.resolve.resolve`
-> :func:`build_config` -> :func:`rlpyt.cli.compose.instantiate`). The result is the config dict
a train script would splat into its constructors (``env``, ``sampler``, ``algo`` + ``optim``,
``agent`` + ``model``, ``runner``), with the spec's fields written into it so params.json shows
what ran, and the classes whose keywords ``--set`` may name.
"""

from __future__ import annotations

import inspect
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rlpyt.cli.envs import max_episode_steps
from rlpyt.cli.overrides import apply_overrides, check_value_types
from rlpyt.cli.registry import RUNNERS, SAMPLER_KEYS, import_object
from rlpyt.cli.resolve import ENV_IDENTITY, Resolution
from rlpyt.utils.launching.variant import update_config

if TYPE_CHECKING:
    from rlpyt.cli.spec import RunSpec

__all__ = ["BuiltConfig", "build_config", "evaluates", "valid_override_keys"]

MAX_EVAL_ENVS = 5
"""Evaluation envs per log point when --eval-episodes asks for N episodes (N envs at most)."""
DEFAULT_EVAL_HORIZON = 27_000
"""Step budget per evaluation episode when the env declares no time limit."""
DEFAULT_LOG_INTERVAL = 100_000
"""The runners' ``log_interval_steps`` default; the command line's interval is never longer."""
MIN_LOG_ROWS = 10
"""Rows a run of that many iterations logs at least, unless the command line sets the interval."""
MAX_LOG_ROWS = 20
"""Rows of a short run under the command line's own interval, at most."""

# Keywords the composition fills itself (components, env-derived model sizes, the optimizer's
# lr, which the algorithm's learning_rate sets).
NOT_SETTABLE = frozenset(
    {"self", "params", "algo", "agent", "sampler", "affinity", "seed", "optim_kwargs", "lr"}
    | {"observation_shape", "action_size", "image_shape", "output_size"}
)


@dataclass
class BuiltConfig:
    """The config of one run and what composing it needs.

    Attributes:
        resolution: The resolved spec.
        config: The final config dict (what params.json records).
        runner: The runner kind (``minibatch``, ``sync``, ``async``).
        vector: The vector-env backend (``gymnasium``, ``envpool``) or None (per-env envs).
        optim_cls: ``"module:Class"`` of the ``OptimCls`` the train script passes (None: the
            algorithm's default).
        classes: Section -> the class its keywords go to (``algo``, ``agent``, ``optim``,
            ``runner``, ``model``, and ``env`` for AtariEnv).
    """

    resolution: Resolution
    config: dict[str, Any]
    runner: str
    vector: str | None
    optim_cls: str | None
    classes: dict[str, Any]

    @property
    def evaluates(self) -> bool:
        """Whether the sampler evaluates offline (an ``*Eval`` runner)."""
        return evaluates(self.config)


def build_config(resolution: Resolution) -> BuiltConfig:
    """The config of the resolved run, with the spec's fields and overrides applied.

    Raises:
        ValueError: an unreadable config file, an unknown ``--set`` key or a value not of its
            keyword's type, or a flag the algorithm or runner has no keyword for; each message
            says what exists.
    """
    spec = resolution.spec
    config = resolution.config.load()
    if spec.config_file is not None:
        config = merge_file(config, spec.config_file)
    runner = spec.runner or ("async" if "updates_per_sync" in config["algo"] else "minibatch")
    vector = spec.vector or config_vector(config.get("env", {}))
    set_env(config, env_section(resolution, vector))
    set_runner(config, spec.steps, spec.log_interval_steps)
    set_evaluation(config, spec.eval_episodes, resolution.env_kwargs)
    classes = section_classes(resolution, config, runner)
    if spec.snapshot_replay:
        require_keyword(classes["algo"], "snapshot_replay", "--snapshot-replay")
        config["algo"]["snapshot_replay"] = True
    overridden = apply_overrides(config, spec.overrides, valid_override_keys(config, classes))
    check_value_types(spec.overrides, config, classes)
    config = overridden
    fit_log_interval(config, spec)
    classes["runner"] = import_object(RUNNERS[runner, evaluates(config)])
    return BuiltConfig(resolution, config, runner, vector, resolution.config.optim_cls, classes)


def section_classes(resolution: Resolution, config: dict[str, Any], runner: str) -> dict:
    """Section -> the class whose constructor keywords are valid there."""
    agent_cls: Any = import_object(resolution.agent)
    classes = {
        "algo": resolution.entry.load_algo_cls(),
        "agent": agent_cls,
        "optim": import_object(resolution.config.optim_cls or "torch.optim:Adam"),
        "runner": import_object(RUNNERS[runner, evaluates(config)]),
    }
    if "model" in config:
        classes["model"] = agent_cls.default_model_cls
    if resolution.kind == "atari" and "game" in config["env"]:
        from rlpyt.envs.atari.atari_env import AtariEnv  # noqa: PLC0415

        classes["env"] = AtariEnv
    return classes


def require_keyword(cls: type, keyword: str, flag: str) -> None:
    """Raise ValueError naming ``flag`` when ``cls`` takes no keyword ``keyword``."""
    if keyword not in keywords(cls):
        raise ValueError(f"{flag}: {cls.__name__} has no keyword {keyword!r}, so it cannot apply.")


# -- the config file ---------------------------------------------------------------------------


def merge_file(config: dict[str, Any], path: str) -> dict[str, Any]:
    """``config`` updated by a JSON/YAML file of nested sections or dotted keys.

    Raises:
        ValueError: the file is missing, unreadable or not a mapping, or names unknown keys.
    """
    if not os.path.isfile(path):
        raise ValueError(f"--config-file {path!r} does not exist; give a JSON or YAML file.")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        if path.endswith((".yaml", ".yml")):
            import yaml  # noqa: PLC0415

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except Exception as exc:  # noqa: BLE001 (json and yaml raise different types)
        raise ValueError(f"--config-file {path!r} is not readable: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"--config-file {path!r} must hold a mapping, not {type(data).__name__}.")
    dotted = {key: value for key, value in data.items() if "." in key}
    nested = {key: value for key, value in data.items() if "." not in key}
    try:
        config = update_config(config, nested)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"--config-file {path!r}: {exc}") from None
    return apply_overrides(config, dotted, valid_override_keys(config)) if dotted else config


# -- env, runner, evaluation ------------------------------------------------------------------


def config_vector(env: dict[str, Any]) -> str | None:
    """The vector backend a config's env section is written for (None: per-env envs)."""
    if "task_id" in env:
        return "envpool"
    if "vectorization_mode" in env:
        return "gymnasium"
    return None


def env_section(resolution: Resolution, vector: str | None) -> dict[str, Any]:
    """The keywords naming the env for its constructor (``make_vec``, envpool's ``make``...).

    Raises:
        ValueError: the vector backend cannot make this kind of env.
    """
    env_kwargs = dict(resolution.env_kwargs)
    if vector == "gymnasium" and "game" in env_kwargs:
        raise ValueError(
            "--vector gymnasium makes gymnasium envs; for Atari games use --vector envpool "
            "(the envpool extra) or per-env AtariEnv (no --vector)."
        )
    if vector == "envpool":
        if "game" in env_kwargs:
            return {"task_id": envpool_task(env_kwargs["game"])}
        return {"task_id": env_kwargs["id"]}
    return env_kwargs


def envpool_task(game: str) -> str:
    """The envpool task id of an Atari game: ``"space_invaders"`` -> ``"SpaceInvaders-v5"``."""
    return "".join(part.capitalize() for part in game.split("_")) + "-v5"


def set_env(config: dict[str, Any], identity: dict[str, Any]) -> None:
    """Point ``env`` (and ``eval_env``) at the env ``identity`` names.

    The section's other keys stay when it named the env the same way (the same constructor);
    otherwise they belonged to another constructor and are dropped.
    """
    for section in ("env", "eval_env"):
        if section not in config:
            continue
        old = config[section]
        same_kind = any(key in old for key in identity)
        kept = {k: v for k, v in old.items() if k not in ENV_IDENTITY} if same_kind else {}
        config[section] = {**identity, **kept}


def set_runner(config: dict[str, Any], steps: int | None, log_interval: int | None) -> None:
    """Write ``--steps`` and ``--log-interval`` into the ``runner`` section."""
    runner = config.setdefault("runner", {})
    if steps is not None:
        runner["n_steps"] = steps
    if log_interval is not None:
        runner["log_interval_steps"] = log_interval


def fit_log_interval(config: dict[str, Any], spec: RunSpec) -> None:
    """Choose the run's ``log_interval_steps`` where the command line did not.

    ``--log-interval`` and ``--set runner.log_interval_steps`` are used as given. Otherwise the
    config's interval (its module's or ``--config-file``'s) stays where it gives the run at least
    :data:`MIN_LOG_ROWS` rows (every iteration's row, for a run of fewer iterations); an interval
    written for a longer run, or none, becomes :func:`default_log_interval`.
    """
    if spec.log_interval_steps is not None or "runner.log_interval_steps" in spec.overrides:
        return
    runner = config.setdefault("runner", {})
    n_steps = runner.get("n_steps")
    if not isinstance(n_steps, int | float) or n_steps < 1:
        return  # the runner rejects it by name
    batch = sampler_batch_size(config.get("sampler", {}))
    interval = runner.get("log_interval_steps")
    if isinstance(interval, int | float) and interval >= 1:
        n_itr = max(math.ceil(n_steps / batch), 1)
        if log_rows(n_steps, interval, batch) >= min(MIN_LOG_ROWS, n_itr):
            return
    runner["log_interval_steps"] = default_log_interval(n_steps, batch)


def sampler_batch_size(sampler: dict[str, Any]) -> int:
    """Env steps per iteration of one sampler: ``batch_T * batch_B`` (1 where not numbers)."""
    batch_T, batch_B = sampler.get("batch_T"), sampler.get("batch_B")  # noqa: N806
    if isinstance(batch_T, int | float) and isinstance(batch_B, int | float):
        return max(int(batch_T) * int(batch_B), 1)
    return 1


def log_rows(n_steps: float, interval: float, batch: int) -> int:
    """Rows a runner logs in ``n_steps``: one every ``interval`` steps in whole iterations.

    The runners log every ``max(interval // batch, 1)`` iterations and after the last one.

    Args:
        n_steps: The step budget (rounded up to whole iterations).
        interval: ``log_interval_steps``.
        batch: Env steps per iteration.
    """
    n_itr = max(math.ceil(n_steps / batch), 1)
    every = max(int(interval) // batch, 1)
    return math.ceil(n_itr / every)


def default_log_interval(n_steps: float, batch: int) -> int:
    """The command line's ``log_interval_steps`` for a budget: 10 to 20 rows, whole iterations.

    The fewest iterations between rows that give at most :data:`MAX_LOG_ROWS` rows (so at least
    :data:`MIN_LOG_ROWS` for a run of that many iterations; a shorter run logs every iteration),
    capped at :data:`DEFAULT_LOG_INTERVAL` steps: a long run logs as often as the runners'
    default.

    Args:
        n_steps: The step budget.
        batch: Env steps per iteration (``batch_T * batch_B``).
    """
    n_itr = max(math.ceil(n_steps / batch), 1)
    return min(math.ceil(n_itr / MAX_LOG_ROWS) * batch, DEFAULT_LOG_INTERVAL)


def set_evaluation(config: dict[str, Any], episodes: int | None, env_kwargs: dict) -> None:
    """``episodes``: None leaves the config's choice, 0 drops evaluation, N > 0 asks for N."""
    if episodes is None:
        return
    sampler = config["sampler"]
    if episodes == 0:
        for key in ("eval_n_envs", "eval_max_steps", "eval_max_trajectories"):
            sampler.pop(key, None)
        config.pop("eval_env", None)
        return
    config.setdefault("eval_env", dict(config["env"]))
    sampler["eval_n_envs"] = min(episodes, MAX_EVAL_ENVS)
    sampler["eval_max_trajectories"] = episodes
    sampler["eval_max_steps"] = episodes * (max_episode_steps(env_kwargs) or DEFAULT_EVAL_HORIZON)


def evaluates(config: dict[str, Any]) -> bool:
    """Whether the config's sampler has evaluation envs."""
    return int(config["sampler"].get("eval_n_envs", 0) or 0) > 0


# -- which keys --set may name ---------------------------------------------------------------


def valid_override_keys(config: dict[str, Any], classes: dict[str, Any] | None = None) -> list[str]:
    """Dotted keys ``--set`` accepts beyond those in ``config``: each section's class keywords.

    Args:
        config: The config (its ``env`` section decides whether env keys are open).
        classes: Section -> class whose constructor keywords are valid there (``algo``,
            ``agent``, ``model``, ``optim``, ``runner``, ``env``).
    """
    keys = [f"sampler.{key}" for key in SAMPLER_KEYS]
    for section, cls in (classes or {}).items():
        keys.extend(f"{section}.{name}" for name in keywords(cls))
    if "game" not in config.get("env", {}):  # gymnasium and envpool envs take free keywords
        keys += ["env.*", "eval_env.*"]
    return keys


def keywords(cls: Callable[..., object]) -> list[str]:
    """The keywords of ``cls``'s constructor that may be set as text."""
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
        and p.name not in NOT_SETTABLE
    ]
