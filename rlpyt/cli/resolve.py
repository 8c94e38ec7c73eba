"""Resolve a run spec against the registry: which algorithm, env, agent and config it names.

Box: command line, the pipeline's second stage (``RunSpec`` -> :func:`resolve` ->
:func:`rlpyt.cli.config.build_config` -> :func:`rlpyt.cli.compose.instantiate`). Reads only the
registry (:mod:`rlpyt.cli.registry`), env detection (:mod:`rlpyt.cli.envs`) and, where the
spec names no env, the env of the config; imports no algorithm, agent or sampler. Every name
that does not exist fails here with a ``ValueError`` naming what exists.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rlpyt.cli.envs import atari_game, env_kind
from rlpyt.cli.registry import (
    CONFIGS,
    RUNNER_KINDS,
    SAMPLERS,
    VECTOR_BACKENDS,
    AlgoEntry,
    DefaultConfig,
    get_algorithm,
    import_object,
)
from rlpyt.cli.spec import RunSpec

__all__ = ["Resolution", "named_config", "resolve"]

ENV_IDENTITY = ("id", "game", "task_id")
"""Keys of an env section that name the env: gymnasium id, AtariEnv game, envpool task."""


@dataclass(frozen=True)
class Resolution:
    """What a RunSpec names, checked against the registry.

    Attributes:
        spec: The spec resolved.
        entry: The algorithm's registry entry.
        kind: The env kind (:data:`rlpyt.cli.envs.ENV_KINDS`).
        env_kwargs: The keywords that name the env: ``{"id": ...}`` (gymnasium),
            ``{"game": ...}`` (AtariEnv).
        agent: ``"module:Class"`` of the agent for that kind.
        config: The config to start from.
    """

    spec: RunSpec
    entry: AlgoEntry
    kind: str
    env_kwargs: dict[str, Any]
    agent: str
    config: DefaultConfig


def resolve(spec: RunSpec) -> Resolution:
    """Resolve ``spec`` (nothing is built).

    Raises:
        ValueError: unknown algorithm, sampler, runner, vector backend, env or config, or an
            algorithm that does not run on the env's kind; each message says what exists.
    """
    entry = get_algorithm(spec.algo)
    _check_choice("sampler", spec.sampler, SAMPLERS)
    _check_choice("runner", spec.runner, RUNNER_KINDS)
    _check_choice("vector", spec.vector, VECTOR_BACKENDS)
    if spec.runner == "async" and not entry.replay:
        raise ValueError(
            f"--runner async runs replay algorithms only; {entry.name} learns on-policy. Use "
            "--runner minibatch (one process) or --runner sync (data-parallel ranks)."
        )
    if spec.ranks is not None and spec.runner != "sync":
        raise ValueError("--ranks starts data-parallel ranks: give it with --runner sync.")
    env = spec.env if spec.env is not None else config_env(spec, entry)
    kind, env_kwargs = env_kind(env)
    agent = entry.agent_path(kind)  # raises: the algorithm does not run there
    default = entry.configs.get(kind)
    if default is None:
        raise ValueError(f"{entry.name} has no default config for {kind} envs.")
    chosen = default if spec.config is None else named_config(spec.config, default)
    return Resolution(spec, entry, kind, env_kwargs, agent, chosen)


def _check_choice(option: str, value: str | None, choices: Iterable[str]) -> None:
    if value is not None and value not in choices:
        raise ValueError(f"Unknown {option} {value!r}; choose one of {', '.join(choices)}.")


def config_env(spec: RunSpec, entry: AlgoEntry) -> str:
    """The env of the config the spec starts from (no ``--env``): a gymnasium id or game."""
    first = next(iter(entry.configs.values()))
    chosen = first if spec.config is None or ":" not in spec.config else None
    if chosen is None:
        chosen = named_config(str(spec.config), first)
    return env_name(chosen.load().get("env", {}))


def env_name(env: dict[str, Any]) -> str:
    """The id :func:`rlpyt.cli.envs.env_kind` takes for a config's env section.

    An envpool Atari task (``{"task_id": "Pong-v5"}``) becomes ``"ALE/Pong-v5"``.
    """
    if "task_id" in env:
        task = str(env["task_id"])
        return f"ALE/{task}" if atari_game(f"ALE/{task}") is not None else task
    return str(env.get("id", env.get("game")))


def named_config(name: str, default: DefaultConfig) -> DefaultConfig:
    """The config ``--config NAME`` names: ``MODULE:KEY``, or a KEY of ``default``'s module.

    Raises:
        ValueError: no such module or key (the message names the closest key).
    """
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
