"""Compose one command-line run from its RunSpec: the work behind ``build_components``.

Box: command line. Called by :func:`rlpyt.cli.registry.build_components` only. It does what a
train script in ``experiments/scripts/<domain>/<family>/train/`` does with its config: the
``env`` section to the env factory, ``sampler`` to the sampler, ``algo`` (+ ``optim`` as
``optim_kwargs``) to the algorithm, ``agent`` (+ ``model`` as ``model_kwargs``) to the agent,
``runner`` to the runner; the RunSpec's fields (env, steps, seed, evaluation, ``--set``
overrides) are written into the config first, so params.json shows what ran.
"""

from __future__ import annotations

from typing import Any

from rlpyt.cli.overrides import apply_overrides
from rlpyt.cli.registry import (
    COLLECTORS,
    RUNNERS,
    SAMPLERS,
    AlgoEntry,
    Components,
    RunSpec,
    env_kind,
    import_object,
    load_config,
    valid_override_keys,
)

# Evaluation envs per log point when --eval-episodes asks for N episodes (N envs at most).
MAX_EVAL_ENVS = 5
# Step budget per evaluation episode when the env declares no time limit.
DEFAULT_EVAL_HORIZON = 27_000


def compose(spec: RunSpec, entry: AlgoEntry) -> Components:
    """See :func:`rlpyt.cli.registry.build_components`."""
    env = spec.env if spec.env is not None else _config_env(spec, entry)
    kind, env_kwargs = env_kind(env)
    agent_cls: Any = entry.load_agent_cls(kind)
    config, optim_path = load_config(spec, entry, kind)
    _set_env(config, env_kwargs)
    _set_runner(config, spec)
    _set_evaluation(config, spec.eval_episodes, env_kwargs)
    optim_cls = import_object(optim_path or "torch.optim:Adam")
    algo_cls = entry.load_algo_cls()
    classes = {
        "algo": algo_cls,
        "agent": agent_cls,
        "optim": optim_cls,
        "runner": import_object(
            RUNNERS["MinibatchRlEval" if _evaluates(config) else "MinibatchRl"]
        ),
    }
    if "model" in config:
        classes["model"] = agent_cls.default_model_cls
    env_cls, traj_info_cls = _env_classes(kind)
    if kind == "atari":
        classes["env"] = env_cls
    config = apply_overrides(config, spec.overrides, valid_override_keys(config, classes))
    runner_cls = import_object(RUNNERS["MinibatchRlEval" if _evaluates(config) else "MinibatchRl"])
    sampler = _make_sampler(spec.sampler, config, env_cls, traj_info_cls)
    algo_kwargs: dict[str, Any] = dict(optim_kwargs=config["optim"], **config["algo"])
    if optim_path is not None:
        algo_kwargs["OptimCls"] = optim_cls
    algo = algo_cls(**algo_kwargs)
    agent_kwargs = dict(config["agent"])
    if "model" in config:
        agent_kwargs["model_kwargs"] = config["model"]
    agent = agent_cls(**agent_kwargs)
    runner_kwargs = dict(config["runner"], seed=spec.seed, affinity=_affinity(spec))
    if spec.target_reward is not None:
        runner_kwargs["target_reward"] = spec.target_reward
    return Components(
        algo=algo,
        agent=agent,
        sampler=sampler,
        runner_cls=runner_cls,
        runner_kwargs=runner_kwargs,
        EnvCls=env_cls,
        env_kwargs=dict(config["env"]),
        config=config,
        env_kind=kind,
        TrajInfoCls=traj_info_cls,
    )


def _config_env(spec: RunSpec, entry: AlgoEntry) -> str:
    """The env of the chosen config (no ``--env``): its gymnasium id or Atari game."""
    if spec.config is not None and ":" in spec.config:
        from rlpyt.cli.registry import _named_config  # noqa: PLC0415

        first = next(iter(entry.configs.values()))
        env = _named_config(spec.config, first).load()["env"]
    else:
        env = next(iter(entry.configs.values())).load()["env"]
    return str(env.get("id", env.get("game")))


def _set_env(config: dict[str, Any], env_kwargs: dict[str, Any]) -> None:
    """Point ``env`` (and ``eval_env``) at the chosen env, keeping their other settings."""
    for section in ("env", "eval_env"):
        if section in config:
            kept = {k: v for k, v in config[section].items() if k not in ("id", "game")}
            config[section] = {**env_kwargs, **kept}


def _set_runner(config: dict[str, Any], spec: RunSpec) -> None:
    runner = config.setdefault("runner", {})
    if spec.steps is not None:
        runner["n_steps"] = spec.steps
    if spec.log_interval_steps is not None:
        runner["log_interval_steps"] = spec.log_interval_steps


def _set_evaluation(config: dict[str, Any], episodes: int | None, env_kwargs: dict) -> None:
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
    sampler["eval_max_steps"] = episodes * _horizon(env_kwargs)


def _horizon(env_kwargs: dict[str, Any]) -> int:
    if "id" not in env_kwargs:
        return DEFAULT_EVAL_HORIZON
    import gymnasium  # noqa: PLC0415

    steps = gymnasium.spec(env_kwargs["id"]).max_episode_steps
    return int(steps) if steps else DEFAULT_EVAL_HORIZON


def _evaluates(config: dict[str, Any]) -> bool:
    return int(config["sampler"].get("eval_n_envs", 0) or 0) > 0


def _env_classes(kind: str) -> tuple[Any, type]:
    if kind == "atari":
        from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo  # noqa: PLC0415

        return AtariEnv, AtariTrajInfo
    from rlpyt.envs.gym import make  # noqa: PLC0415
    from rlpyt.envs.traj_info import TrajInfo  # noqa: PLC0415

    return make, TrajInfo


def _make_sampler(name: str, config: dict[str, Any], env_cls: Any, traj_info_cls: type) -> Any:
    sampler_path, family = SAMPLERS[name]
    kwargs = dict(config["sampler"])
    if "eval_env" in config and _evaluates(config):
        kwargs["eval_env_kwargs"] = config["eval_env"]
    return import_object(sampler_path)(
        EnvCls=env_cls,
        env_kwargs=config["env"],
        CollectorCls=import_object(COLLECTORS[family]),
        TrajInfoCls=traj_info_cls,
        **kwargs,
    )


def _affinity(spec: RunSpec) -> dict[str, Any]:
    """Worker CPUs for a parallel sampler, never pinned (the OS places the processes)."""
    if spec.sampler == "serial":
        return {}
    from rlpyt.utils.launching.cpus import allowed_cpus  # noqa: PLC0415

    cpus = allowed_cpus()
    n_workers = spec.n_workers if spec.n_workers is not None else len(cpus)
    if spec.sampler == "alternating":
        n_workers = max(2, n_workers + n_workers % 2)  # two equal groups
    workers = [cpus[i % len(cpus)] for i in range(n_workers)]
    return {
        "workers_cpus": workers,
        "set_affinity": False,
        "alternating": spec.sampler == "alternating",
    }
