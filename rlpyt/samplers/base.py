"""BaseSampler: the interface every sampler offers to the runner.

Box: Sampler. A sampler owns the environments and fills one ``[T, B]`` samples buffer per
iteration. The runner calls ``initialize`` once, then ``obtain_samples(itr)`` every iteration
and ``evaluate_agent(itr)`` at log points, and ``shutdown()`` at the end. Invariant: between two
of these calls nothing writes the samples buffer, so the algorithm may read it freely. Every
sampler is a :class:`rlpyt.protocols.Sampler`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from rlpyt.samplers.collections import BatchSpec, Samples, TrajInfo

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent, Collector
    from rlpyt.samplers.evaluation import BaseEvalCollector
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


EvalCollectorClass = Callable[..., "BaseEvalCollector"]
"""An evaluation collector class (``eval_CollectorCls``): makes a ``BaseEvalCollector``."""


class BaseSampler:
    """Common arguments and bookkeeping of all samplers.

    Args:
        EnvCls: Callable building one environment from ``env_kwargs`` (a class, or e.g.
            ``rlpyt.envs.gym.make``).
        env_kwargs: Keyword arguments for ``EnvCls``.
        batch_T: Time steps per batch.
        batch_B: Environment instances (columns of the batch).
        CollectorCls: Collector class; its ``mid_batch_reset`` attribute becomes the sampler's.
        max_decorrelation_steps: Each env first takes a random number (1..this) of random
            actions so that episodes are out of phase; 0 to skip.
        TrajInfoCls: Per-trajectory statistics class.
        eval_n_envs: Environments used for evaluation (0: no evaluation).
        eval_CollectorCls: Collector class for evaluation.
        eval_env_kwargs: Keyword arguments for evaluation envs (default: ``env_kwargs``).
        eval_max_steps: Total env steps budget of one evaluation (over all eval envs).
        eval_max_trajectories: Stop evaluating after about this many complete trajectories.

    Raises:
        ValueError: ``batch_T`` or ``batch_B`` below 1, or ``eval_n_envs > 0`` without
            ``eval_max_steps``.
    """

    mid_batch_reset = True

    def __init__(
        self,
        EnvCls: Callable[..., Env],  # noqa: N803
        env_kwargs: dict,
        batch_T: int,  # noqa: N803
        batch_B: int,  # noqa: N803
        CollectorCls: CollectorClass,  # noqa: N803
        max_decorrelation_steps: int = 100,
        TrajInfoCls: type[TrajInfo] = TrajInfo,  # noqa: N803
        eval_n_envs: int = 0,
        eval_CollectorCls: EvalCollectorClass | None = None,  # noqa: N803
        eval_env_kwargs: dict | None = None,
        eval_max_steps: int | None = None,
        eval_max_trajectories: int | None = None,
    ):
        if int(batch_T) < 1 or int(batch_B) < 1:
            raise ValueError(f"batch_T and batch_B must be >= 1, got {batch_T} and {batch_B}.")
        if eval_n_envs > 0 and eval_max_steps is None:
            raise ValueError(
                "eval_n_envs > 0 needs eval_max_steps (the step budget of one evaluation)."
            )
        self.EnvCls = EnvCls
        self.env_kwargs = dict(env_kwargs or {})
        self.batch_spec = BatchSpec(int(batch_T), int(batch_B))
        self.CollectorCls = CollectorCls
        self.max_decorrelation_steps = int(max_decorrelation_steps)
        self.TrajInfoCls = TrajInfoCls
        self.eval_n_envs = int(eval_n_envs)
        self.eval_CollectorCls = eval_CollectorCls
        self.eval_env_kwargs = dict(eval_env_kwargs) if eval_env_kwargs else dict(self.env_kwargs)
        self.eval_max_steps = None if eval_max_steps is None else int(eval_max_steps)
        self.eval_max_trajectories = (
            None if eval_max_trajectories is None else int(eval_max_trajectories)
        )
        self.mid_batch_reset = CollectorCls.mid_batch_reset

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
