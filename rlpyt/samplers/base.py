"""BaseSampler: the interface every sampler offers to the runner.

Box: Sampler. A sampler owns the environments and fills one ``[T, B]`` samples buffer per
iteration. The runner calls ``initialize`` once, then ``obtain_samples(itr)`` every iteration
and ``evaluate_agent(itr)`` at log points, and ``shutdown()`` at the end. Invariant: between two
of these calls nothing writes the samples buffer, so the algorithm may read it freely. Every
sampler is a :class:`rlpyt.protocols.Sampler`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from rlpyt.envs import gym as rlpyt_gym
from rlpyt.envs.base import Env
from rlpyt.envs.envpool import check_env_kwargs as check_envpool_kwargs
from rlpyt.envs.envpool import make as envpool_make
from rlpyt.envs.gym_vector import make_vec, registered_vec_env_creator
from rlpyt.envs.vector import is_vector_env_maker
from rlpyt.samplers.collections import BatchSpec, Samples, TrajInfo
from rlpyt.samplers.evaluation import BaseEvalCollector
from rlpyt.utils.checks import check_kwargs
from rlpyt.utils.hyperparams import COUNT, REQUIRED, STEPS, Hyperparams, copied_dict, hyperparam

if TYPE_CHECKING:
    from rlpyt.protocols import Agent, Collector
    from rlpyt.utils.collections import AttrDict

EVAL_SEED_OFFSET = 1_000_003  # eval envs get seeds far from the training envs'


class CollectorClass(Protocol):
    """A training collector class, as samplers take it (``CollectorCls``).

    Its class attribute ``mid_batch_reset`` becomes the sampler's; called with the collector
    keywords (``rank, envs, samples_np, batch_T, TrajInfoCls, agent, ...``: they differ between
    serial, CPU and GPU collectors, hence ``...``), it makes a :class:`~rlpyt.protocols.Collector`.
    """

    mid_batch_reset: bool

    def __call__(self, *args: Any, **kwargs: Any) -> Collector:
        """Make the collector."""
        ...


EvalCollectorClass = Callable[..., BaseEvalCollector]
"""An evaluation collector class (``eval_CollectorCls``): makes a ``BaseEvalCollector``."""


class BaseSampler(Hyperparams):
    """Common arguments and bookkeeping of all samplers.

    The keywords below are declared once, here (``rlpyt.utils.hyperparams``); a sampler that
    takes other defaults re-declares just those (``CollectorCls = hyperparam(CpuResetCollector)``)
    and one that takes more keywords declares them (the parallel samplers' ``start_method``).

    Raises:
        ValueError: ``batch_T`` or ``batch_B`` below 1, ``max_decorrelation_steps`` or
            ``eval_n_envs`` below 0, ``eval_max_steps`` or ``eval_max_trajectories`` below 1,
            or ``eval_n_envs > 0`` without ``eval_max_steps`` (the message names the keyword,
            the value and the valid range).
        TypeError: a number keyword is not a number, or ``env_kwargs`` do not fit ``EnvCls``.
    """

    # The annotations name what the module imports at run time (Env, BaseEvalCollector):
    # hyperparams resolves them at class creation (the signature and the docstring table).
    EnvCls: Callable[..., Env] = hyperparam(
        REQUIRED,
        "Callable building one environment from ``env_kwargs`` (a class, or e.g. "
        "``rlpyt.envs.gym.make``).",
    )
    env_kwargs: dict = hyperparam(REQUIRED, "Keyword arguments for ``EnvCls``.", copied_dict)
    batch_T: int = hyperparam(REQUIRED, "Time steps per batch.", COUNT)
    batch_B: int = hyperparam(REQUIRED, "Environment instances (columns of the batch).", COUNT)
    CollectorCls: CollectorClass = hyperparam(
        REQUIRED, "Collector class; its ``mid_batch_reset`` attribute becomes the sampler's."
    )
    max_decorrelation_steps: int = hyperparam(
        100,
        "Each env first takes a random number (1..this) of random actions so that episodes "
        "are out of phase; 0 to skip.",
        STEPS,
    )
    TrajInfoCls: type[TrajInfo] = hyperparam(TrajInfo, "Per-trajectory statistics class.")
    eval_n_envs: int = hyperparam(0, "Environments used for evaluation (0: no evaluation).", STEPS)
    eval_CollectorCls: EvalCollectorClass | None = hyperparam(
        None, "Collector class for evaluation."
    )
    eval_env_kwargs: dict = hyperparam(  # a dict once __post_init__ has resolved it
        None,
        "Keyword arguments for evaluation envs (None or empty: ``env_kwargs``).",
        copied_dict,
        type=dict | None,
    )
    eval_max_steps: int | None = hyperparam(
        None,
        "Total env steps budget of one evaluation (over all eval envs); needed when "
        "``eval_n_envs > 0``.",
        COUNT,
    )
    eval_max_trajectories: int | None = hyperparam(
        None, "Stop evaluating after about this many complete trajectories (None: no limit).", COUNT
    )

    mid_batch_reset = True
    batch_spec: BatchSpec

    def __post_init__(self) -> None:
        """Check that evaluation has a step budget, set ``batch_spec``, check ``env_kwargs``."""
        super().__post_init__()
        if self.eval_n_envs > 0 and self.eval_max_steps is None:
            raise ValueError(
                f"{type(self).__name__}: eval_n_envs={self.eval_n_envs} needs eval_max_steps (the "
                "step budget of one evaluation); pass eval_max_steps, or eval_n_envs=0 for no "
                "evaluation."
            )
        self.batch_spec = BatchSpec(self.batch_T, self.batch_B)
        self.eval_env_kwargs = self.eval_env_kwargs or dict(self.env_kwargs)
        self.mid_batch_reset = self.CollectorCls.mid_batch_reset
        self.check_env_kwargs()

    def check_env_kwargs(self) -> None:
        """Raise unless ``env_kwargs`` (and ``eval_env_kwargs``) fit ``EnvCls``'s signature.

        Called at construction, so a misspelt env keyword fails before any env is built or any
        worker starts, with a message naming it (see :func:`check_env_kwargs`).

        Raises:
            TypeError: an unknown or missing keyword, named in the message.
        """
        owner = type(self).__name__
        check_env_kwargs(owner, "env_kwargs", self.EnvCls, self.env_kwargs)
        if self.eval_n_envs > 0:
            check_env_kwargs(owner, "eval_env_kwargs", self.EnvCls, self.eval_env_kwargs)

    @property
    def batch_size(self) -> int:
        """Env steps per batch, ``T * B``."""
        return self.batch_spec.size

    def initialize(
        self,
        agent: Agent,
        affinity: dict | None = None,
        seed: int | None = None,
        bootstrap_value: bool = False,
        traj_info_kwargs: dict | None = None,
        *,
        rank: int = 0,
        world_size: int = 1,
    ) -> AttrDict:
        """Build envs, initialize the agent, allocate buffers.

        Args:
            agent: The agent (its ``initialize`` is called here).
            affinity: CPUs (and GPU) to use; see each sampler.
            seed: Env ``i`` gets ``seed + i`` (global index); None: unseeded.
            bootstrap_value: Record ``agent.bootstrap_value [1, B]`` (the value after the batch).
            traj_info_kwargs: Keywords of every TrajInfo (e.g. ``discount``).
            rank: This runner's rank among ``world_size`` parallel runners.
            world_size: Number of parallel runners (each with its own sampler). ``rank`` and
                ``world_size`` are keyword-only: rlpyt's serial and parallel samplers took them
                in opposite orders, so no positional call worked for both.

        Returns:
            The example records used to allocate the buffers (for ``algo.initialize``).
        """
        raise NotImplementedError

    def obtain_samples(self, itr: int) -> tuple[Samples, list[TrajInfo]]:
        """Fill the samples buffer; returns ``(samples [T, B] torch views, traj_infos)``."""
        raise NotImplementedError

    def evaluate_agent(self, itr: int) -> list[TrajInfo]:
        """Run evaluation episodes; returns the completed TrajInfos."""
        raise NotImplementedError

    def shutdown(self) -> None:
        """Release envs and processes (idempotent)."""

    def state_dict(self) -> dict:
        """Sampler state for exact resume (empty where not supported)."""
        return {}

    def load_state_dict(self, state: dict) -> None:
        """Restore what :meth:`state_dict` returned."""


def check_env_kwargs(
    owner: str,
    name: str,
    EnvCls: Callable[..., Any],  # noqa: N803
    env_kwargs: Mapping[str, Any],
) -> None:
    """:func:`check_kwargs` of ``env_kwargs`` against ``EnvCls``, seeing through ``gym.make``.

    The same for ``rlpyt.envs.gym_vector.make_vec`` (its per-env or native vector class);
    vector-env makers get ``num_envs`` from the sampler, so ``env_kwargs`` must not hold it.

    For ``rlpyt.envs.gym.make`` (or ``gymnasium.make``) with an ``id``, the keywords that
    ``make`` does not take itself go to the registered env's constructor, so they are checked
    against that (with the registration's own keywords). Unregistered ids and envs that cannot
    be imported pass here: building the env reports those.

    Raises:
        TypeError: naming the keyword that does not fit.
    """
    if is_vector_env_maker(EnvCls) and "num_envs" in env_kwargs:
        raise TypeError(
            f"{owner}: {name} has 'num_envs', which a vector-env EnvCls gets from the sampler "
            "(batch_B, split over the workers; eval_n_envs for evaluation): remove it."
        )
    if EnvCls is envpool_make:
        check_envpool_kwargs(dict(env_kwargs))  # against the task's config keys
        return
    gym_target = rlpyt_gym.registered_env_creator(EnvCls, env_kwargs)
    if gym_target is None and EnvCls is make_vec:
        gym_target = registered_vec_env_creator(env_kwargs)
    if gym_target is None:
        check_kwargs(owner, name, EnvCls, env_kwargs)
        return
    creator, make_keywords, registered_kwargs = gym_target
    env_keywords = {key: v for key, v in env_kwargs.items() if key not in make_keywords}
    # gymnasium's own env classes (the MuJoCo ones) pass their **kwargs on to their base class.
    through_bases = getattr(creator, "__module__", "").startswith("gymnasium.")
    check_kwargs(owner, name, creator, {**registered_kwargs, **env_keywords}, through_bases)
