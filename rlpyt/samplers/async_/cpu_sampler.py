"""AsyncCpuSampler: AsyncRl's sampler process runs CPU workers, each with an agent copy.

Box: Sampler. The asynchronous twin of :class:`~rlpyt.samplers.parallel.cpu.sampler.CpuSampler`.
In the sampler process, the agent gets a model of its own in shared memory
(``agent.async_cpu(share_memory=True)``) before the workers start, so the workers read it;
before every batch and evaluation the sampler process copies the optimizer's published weights
into it (``agent.recv_shared_memory()``), while the workers wait between batches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rlpyt.envs.traj_info import TrajInfo
from rlpyt.samplers.async_.base import AsyncParallelSamplerMixin
from rlpyt.samplers.async_.collectors import DbCpuResetCollector
from rlpyt.samplers.parallel.cpu.collectors import CpuEvalCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.samplers.base import CollectorClass, EvalCollectorClass


class AsyncCpuSampler(AsyncParallelSamplerMixin, CpuSampler):  # type: ignore[misc]
    """Parallel CPU sampling in AsyncRl's sampler process (arguments: see CpuSampler).

    Defaults: ``CollectorCls=DbCpuResetCollector``, ``eval_CollectorCls=CpuEvalCollector``.
    """

    def __init__(
        self,
        EnvCls: Callable[..., Env],  # noqa: N803
        env_kwargs: dict,
        batch_T: int,  # noqa: N803
        batch_B: int,  # noqa: N803
        CollectorCls: CollectorClass = DbCpuResetCollector,  # noqa: N803
        max_decorrelation_steps: int = 100,
        TrajInfoCls: type[TrajInfo] = TrajInfo,  # noqa: N803
        eval_n_envs: int = 0,
        eval_CollectorCls: EvalCollectorClass | None = CpuEvalCollector,  # noqa: N803
        eval_env_kwargs: dict | None = None,
        eval_max_steps: int | None = None,
        eval_max_trajectories: int | None = None,
        *,
        start_method: str | None = None,
        worker_timeout: float = 600.0,
    ):
        super().__init__(
            EnvCls=EnvCls,
            env_kwargs=env_kwargs,
            batch_T=batch_T,
            batch_B=batch_B,
            CollectorCls=CollectorCls,
            max_decorrelation_steps=max_decorrelation_steps,
            TrajInfoCls=TrajInfoCls,
            eval_n_envs=eval_n_envs,
            eval_CollectorCls=eval_CollectorCls,
            eval_env_kwargs=eval_env_kwargs,
            eval_max_steps=eval_max_steps,
            eval_max_trajectories=eval_max_trajectories,
            start_method=start_method,
            worker_timeout=worker_timeout,
        )

    def _prepare_sampler_agent(self, agent: Any) -> None:
        """The sampler's own shared model, read by the workers (CPU sampling only)."""
        if self.affinity.get("cuda_idx") is not None:
            raise ValueError(
                "AsyncCpuSampler runs its agent in CPU workers; its affinity has cuda_idx="
                f"{self.affinity['cuda_idx']}. Use AsyncGpuSampler to act on a GPU."
            )
        agent.async_cpu(share_memory=True)
