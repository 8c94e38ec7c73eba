"""AsyncCpuSampler: AsyncRl's sampler process runs CPU workers, each with an agent copy.

Box: Sampler. The asynchronous twin of :class:`~rlpyt.samplers.parallel.cpu.sampler.CpuSampler`.
In the sampler process, the agent gets a model of its own in shared memory
(``agent.async_cpu(share_memory=True)``) before the workers start, so the workers read it;
before every batch and evaluation the sampler process copies the optimizer's published weights
into it (``agent.recv_shared_memory()``), while the workers wait between batches.
"""

from __future__ import annotations

from typing import Any

from rlpyt.samplers.async_.base import AsyncParallelSamplerMixin
from rlpyt.samplers.async_.collectors import DbCpuResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.utils.hyperparams import hyperparam


class AsyncCpuSampler(AsyncParallelSamplerMixin, CpuSampler):  # type: ignore[misc]
    """Parallel CPU sampling in AsyncRl's sampler process."""

    CollectorCls = hyperparam(DbCpuResetCollector)

    def _prepare_sampler_agent(self, agent: Any) -> None:
        """The sampler's own shared model, read by the workers (CPU sampling only)."""
        if self.affinity.get("cuda_idx") is not None:
            raise ValueError(
                "AsyncCpuSampler runs its agent in CPU workers; its affinity has cuda_idx="
                f"{self.affinity['cuda_idx']}. Use AsyncGpuSampler to act on a GPU."
            )
        agent.async_cpu(share_memory=True)
