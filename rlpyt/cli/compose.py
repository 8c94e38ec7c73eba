"""Instantiate a command-line run: sampler, agent, algorithm and runner keywords.

Box: command line, the pipeline's last stage (``RunSpec`` -> :func:`rlpyt.cli.resolve.resolve`
-> :func:`rlpyt.cli.config.build_config` -> :func:`instantiate`); :func:`build_components`
runs the whole pipeline. It does what a train script in ``experiments/scripts`` does with its
config: ``env`` to the env factory, ``sampler`` to the sampler, ``algo`` (+ ``optim`` as
``optim_kwargs``) to the algorithm, ``agent`` (+ ``model`` as ``model_kwargs``) to the agent,
``runner`` to the runner. Nothing starts: :meth:`Components.make_runner` builds the runner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from rlpyt.cli.config import BuiltConfig, build_config, keywords
from rlpyt.cli.registry import ASYNC_COLLECTORS, ASYNC_SAMPLERS, COLLECTORS, SAMPLERS, import_object
from rlpyt.cli.resolve import resolve
from rlpyt.cli.spec import RunSpec
from rlpyt.protocols import OptimClsAlgorithm

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.envs.vector import VecEnv
    from rlpyt.protocols import Agent, Algorithm

T = TypeVar("T")

__all__ = ["Components", "build_components", "env_name", "instantiate", "recorded_config"]

DEFAULT_RANKS = 2
"""Processes of a ``--runner sync`` run started by the CLI without ``--ranks``."""

ENV_MAKERS = {
    None: "rlpyt.envs.gym:make",
    "gymnasium": "rlpyt.envs.gym_vector:make_vec",
    "envpool": "rlpyt.envs.envpool:make",
}
"""Vector backend (None: per-env) -> the sampler's ``EnvCls`` for gymnasium ids."""


@dataclass
class Components:
    """A fully composed run, not started.

    ``runner_cls(algo=..., agent=..., sampler=..., **runner_kwargs).train()`` starts it;
    :meth:`make_runner` does that composition.

    Attributes:
        algo, agent, sampler: The constructed components.
        runner_cls: ``MinibatchRl``, ``SyncRl``, ``AsyncRl`` or their ``*Eval`` twins.
        runner_kwargs: Keywords of the runner besides algo, agent and sampler.
        EnvCls: The env factory (``AtariEnv``, ``rlpyt.envs.gym.make``, a vector-env maker).
        env_kwargs: Its keywords for one training env.
        config: The final config dict (what params.json records).
        env_kind: One of :data:`rlpyt.cli.envs.ENV_KINDS`.
        TrajInfoCls: The trajectory-info class the sampler uses.
        runner_kind: ``minibatch``, ``sync`` or ``async``.
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
    runner_kind: str = "minibatch"

    def make_runner(self) -> Any:
        """The runner over these components."""
        return self.runner_cls(
            algo=self.algo, agent=self.agent, sampler=self.sampler, **self.runner_kwargs
        )


def build_components(spec: RunSpec, check: bool = False) -> Components:
    """Resolve ``spec``, build its config and instantiate the run (nothing starts).

    Args:
        spec: The run.
        check: Also build, on throwaway copies, what the runner's start-up builds (one env,
            the agent's model, the optimizer, the runner), so that a bad value fails here,
            before any run folder exists (:func:`check_buildable`).

    Raises:
        ValueError: unknown algorithm, env, sampler, runner, config or override key, an
            option the chosen classes do not take, or a value they refuse (each message says
            what is wrong).
    """
    if spec.cpus:  # first, so that worker counts and thread decisions see only these CPUs
        from rlpyt.utils.launching.cpus import restrict_to_cpus  # noqa: PLC0415

        restrict_to_cpus(spec.cpus)
    built = build_config(resolve(spec))
    components = instantiate(built)
    if check:
        check_buildable(built)
    return components


def instantiate(built: BuiltConfig) -> Components:
    """Construct sampler, algorithm and agent of a built config, and the runner's keywords."""
    config, classes = built.config, built.classes
    kind = built.resolution.kind
    env_cls, traj_info_cls = env_classes(kind, built.vector)
    sampler = make_sampler(built, env_cls, traj_info_cls)
    algo_kwargs: dict[str, Any] = dict(optim_kwargs=config["optim"], **config["algo"])
    if built.optim_cls is not None:
        algo_kwargs["OptimCls"] = classes["optim"]
    agent_kwargs = dict(config["agent"])
    if "model" in config:
        agent_kwargs["model_kwargs"] = config["model"]
    return Components(
        algo=construct(classes["algo"], algo_kwargs),
        agent=construct(classes["agent"], agent_kwargs),
        sampler=sampler,
        runner_cls=classes["runner"],
        runner_kwargs=runner_kwargs(built),
        EnvCls=env_cls,
        env_kwargs=dict(config["env"]),
        config=config,
        env_kind=kind,
        TrajInfoCls=traj_info_cls,
        runner_kind=built.runner,
    )


def recorded_config(spec: RunSpec, components: Components) -> dict[str, Any]:
    """What params.json and variant.json record of a command-line run.

    The top-level keys ``algorithm`` (the command's algorithm name, e.g. ``ppo``) and
    ``environment`` (:func:`env_name`) name the run for ``rlpyt plot``'s panels and viskit's
    menus; the config's sections follow.
    """
    from rlpyt.plot import ALGORITHM_KEY, ENV_KEY  # noqa: PLC0415 (numpy only, no matplotlib)

    identity = {ALGORITHM_KEY: spec.algo, ENV_KEY: env_name(components.env_kwargs)}
    return {**identity, **components.config}


def env_name(env_kwargs: dict[str, Any]) -> str:
    """The env's gymnasium id, Atari game or envpool task id, as its keywords name it."""
    return str(env_kwargs.get("id", env_kwargs.get("game", env_kwargs.get("task_id"))))


def env_classes(kind: str, vector: str | None) -> tuple[Any, type]:
    """The env factory and TrajInfo class for an env kind and vector backend."""
    if kind == "atari":
        from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo  # noqa: PLC0415

        return (AtariEnv if vector is None else import_object(ENV_MAKERS[vector])), AtariTrajInfo
    from rlpyt.envs.traj_info import TrajInfo  # noqa: PLC0415

    return import_object(ENV_MAKERS[vector]), TrajInfo


def make_sampler(
    built: BuiltConfig, env_cls: Callable[..., Env | VecEnv], traj_info_cls: type
) -> Any:
    """The sampler of the run (an asynchronous one under ``--runner async``)."""
    name = built.resolution.spec.sampler
    sampler_path, family = SAMPLERS[name]
    collector_path = COLLECTORS[family]
    if built.runner == "async":
        sampler_path, collector_path = ASYNC_SAMPLERS[name], ASYNC_COLLECTORS[family]
    config = built.config
    kwargs = dict(config["sampler"])
    if "eval_env" in config and built.evaluates:
        kwargs["eval_env_kwargs"] = config["eval_env"]
    kwargs.update(
        EnvCls=env_cls,
        env_kwargs=config["env"],
        CollectorCls=import_object(collector_path),
        TrajInfoCls=traj_info_cls,
    )
    return construct(import_object(sampler_path), kwargs)


def construct(cls: type[T], kwargs: dict[str, Any]) -> T:
    """``cls(**kwargs)``; a value it refuses (TypeError or ValueError) becomes a ValueError."""
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise ValueError(_refused(cls.__name__, exc)) from None


def _refused(what: str, exc: BaseException) -> str:
    message = str(exc)
    return message if message.startswith(what) else f"{what}: {type(exc).__name__}: {message}"


# Errors that a bad config value raises while a component is built (torch raises RuntimeError
# for impossible layer sizes, IndexError and KeyError come from malformed nested values).
BUILD_ERRORS = (TypeError, ValueError, RuntimeError, KeyError, IndexError, OverflowError)


def check_buildable(built: BuiltConfig) -> None:
    """Build what the runner's start-up builds, on throwaway copies, and close it again.

    One env (its spaces), the agent initialized on them (its model), the algorithm's
    optimizer over the model's parameters, and the runner object: a value the config holds
    that one of them refuses fails here, before a run folder or worker process exists.

    Raises:
        ValueError: naming the part that failed and the error it raised.
    """
    probe = instantiate(built)
    step = "making one env"
    env = None
    try:
        env = _one_env(probe.EnvCls, probe.env_kwargs)
        step = f"building the {type(probe.agent).__name__} and its model"
        probe.agent.initialize(env.spaces, share_memory=False, global_B=1, env_ranks=[0])
        step = f"building the optimizer of {type(probe.algo).__name__}"
        _make_optimizer(probe.algo, probe.agent)
        step = f"building the runner {probe.runner_cls.__name__}"
        probe.make_runner()
    except BUILD_ERRORS as exc:
        raise ValueError(
            f"The run cannot be built ({step}): {type(exc).__name__}: {exc}. Check the --set, "
            "--config and --config-file values (`rlpyt train ... --show-config` prints them)."
        ) from None
    finally:
        if env is not None:
            env.close()


def _one_env(env_cls: Any, env_kwargs: dict[str, Any]) -> Any:
    """One env of the run (row 0 of a one-env vector env for a vector-env maker)."""
    from rlpyt.envs.vector import SingleEnvView, is_vector_env_maker  # noqa: PLC0415

    if is_vector_env_maker(env_cls):
        return SingleEnvView(env_cls(num_envs=1, **env_kwargs))
    return env_cls(**env_kwargs)


def _make_optimizer(algo: Algorithm, agent: Agent) -> None:
    """``OptimCls(parameters, lr, **optim_kwargs)`` as the algorithm will call it.

    Only for an algorithm with those keywords (:class:`~rlpyt.protocols.OptimClsAlgorithm`);
    another builds its optimizer its own way, which the run itself then checks.
    """
    if isinstance(algo, OptimClsAlgorithm):
        algo.OptimCls(agent.parameters(), lr=algo.learning_rate, **algo.optim_kwargs)


def runner_kwargs(built: BuiltConfig) -> dict[str, Any]:
    """The runner's keywords: the config's ``runner`` section, seed, affinity and flags.

    Raises:
        ValueError: ``--target-reward`` or ``--no-check-finite`` for a runner without that
            keyword.
    """
    spec = built.resolution.spec
    kwargs = dict(built.config["runner"], seed=spec.seed, affinity=affinity(built))
    accepted = keywords(built.classes["runner"])
    if spec.target_reward is not None:
        _require(accepted, "target_reward", "--target-reward", built)
        kwargs["target_reward"] = spec.target_reward
    if not spec.check_finite:
        _require(accepted, "check_finite", "--no-check-finite", built)
        kwargs["check_finite"] = False
    return kwargs


def _require(accepted: list[str], keyword: str, flag: str, built: BuiltConfig) -> None:
    if keyword not in accepted:
        runner = built.classes["runner"].__name__
        raise ValueError(f"{flag}: {runner} (--runner {built.runner}) has no {keyword} keyword.")


def affinity(built: BuiltConfig) -> Any:
    """The runner's affinity: unpinned worker CPUs; one dict per rank; async's two parts.

    Torch threads are decided by each process from its CPUs and model, unless
    ``--torch-threads`` sets them (:func:`with_torch_threads`).
    """
    spec = built.resolution.spec
    workers = worker_affinity(spec)
    gpu = {} if spec.cuda_idx is None else {"cuda_idx": check_cuda_idx(spec.cuda_idx)}
    if built.runner == "async":
        found: Any = {"optimizer": [gpu], "sampler": workers}
    elif built.runner == "sync":
        from rlpyt.runners.sync_ranks import torchrun_env  # noqa: PLC0415

        rank = dict(workers, set_affinity=False, **gpu)
        found = rank if torchrun_env() is not None else [rank] * (spec.ranks or DEFAULT_RANKS)
    else:
        found = dict(workers, **gpu)
    return with_torch_threads(found, spec.torch_threads)


def with_torch_threads(affinity: Any, threads: int | None) -> Any:
    """``affinity`` with its training process's torch threads set to ``threads`` (if given).

    The master's ``master_torch_threads`` (each rank's, for a list of ranks), or the async
    optimizer's ``torch_threads``; sampler workers keep their one thread.
    """
    if threads is None:
        return affinity
    if isinstance(affinity, list):
        return [with_torch_threads(rank, threads) for rank in affinity]
    if "optimizer" in affinity:
        optimizer = [dict(entry, torch_threads=threads) for entry in affinity["optimizer"]]
        return type(affinity)(affinity, optimizer=optimizer)
    return type(affinity)(affinity, master_torch_threads=threads)


def check_cuda_idx(cuda_idx: int) -> int:
    """``cuda_idx`` if this machine has that GPU, else a ValueError saying what it has."""
    import torch  # noqa: PLC0415

    # device_count asks NVML and leaves CUDA unstarted (is_available would start it here, in
    # the process that forks AsyncRl's sampler, which may need CUDA of its own).
    count = torch.cuda.device_count()
    if cuda_idx >= count:
        has = f"GPUs 0-{count - 1}" if count else "no CUDA GPU (torch sees none)"
        raise ValueError(f"--cuda-idx {cuda_idx}: this machine has {has}.")
    return cuda_idx


def worker_affinity(spec: RunSpec) -> dict[str, Any]:
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
        # A default count leaves GPU samplers' masters a core with --cuda-idx (samplers.md).
        "keep_master_core": spec.n_workers is None,
    }
