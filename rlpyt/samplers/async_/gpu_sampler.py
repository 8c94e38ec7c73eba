"""AsyncGpuSampler: AsyncRl's sampler process serves actions to env-stepping workers.

Box: Sampler. The asynchronous twin of :class:`~rlpyt.samplers.parallel.gpu.sampler.GpuSampler`:
the workers only step envs; the sampler process runs one batched forward pass per time step for
all envs (on the sampler affinity's ``cuda_idx``, or on CPU when it is None) and writes the
double buffer's current half. rlpyt could start several action-server processes, one per
sampler GPU; here the sampler process is the one action server, so its affinity is one dict
(a list of one is accepted).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rlpyt.envs.traj_info import TrajInfo
from rlpyt.samplers.async_.action_server import AsyncActionServer
from rlpyt.samplers.async_.base import AsyncParallelSamplerMixin
from rlpyt.samplers.async_.collectors import DbGpuResetCollector
from rlpyt.samplers.parallel.gpu.collectors import GpuEvalCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.samplers.base import CollectorClass, EvalCollectorClass


class AsyncGpuSampler(AsyncParallelSamplerMixin, AsyncActionServer, GpuSampler):  # type: ignore[misc]
    """GPU-style sampling in AsyncRl's sampler process (arguments: see ParallelSamplerBase).

    Defaults: ``CollectorCls=DbGpuResetCollector``, ``eval_CollectorCls=GpuEvalCollector``.
    """

    def __init__(
        self,
        EnvCls: Callable[..., Env],  # noqa: N803
        env_kwargs: dict,
        batch_T: int,  # noqa: N803
        batch_B: int,  # noqa: N803
        CollectorCls: CollectorClass = DbGpuResetCollector,  # noqa: N803
        max_decorrelation_steps: int = 100,
        TrajInfoCls: type[TrajInfo] = TrajInfo,  # noqa: N803
        eval_n_envs: int = 0,
        eval_CollectorCls: EvalCollectorClass | None = GpuEvalCollector,  # noqa: N803
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
