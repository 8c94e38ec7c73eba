"""AsyncCpuSampler: AsyncRl's sampler process runs CPU workers, each with an agent copy.

Box: Sampler. The asynchronous twin of :class:`~rlpyt.samplers.parallel.cpu.sampler.CpuSampler`
(same workers, collectors and evaluation). In the sampler process, the agent gets a model of
its own in shared memory (``agent.async_cpu(share_memory=True)``) before the workers start, so
the workers read it; before every batch and evaluation the sampler process copies the
optimizer's published weights into it (``agent.recv_shared_memory()``), while the workers wait
between batches. (CpuSampler's own refresh, ``sync_shared_memory``, would copy the sampler's
model over those weights, which is why this is not a CpuSampler subclass.)
"""

from __future__ import annotations

from rlpyt.protocols import Agent, SharedMemoryAgent
from rlpyt.samplers.async_.base import AsyncParallelSamplerMixin
from rlpyt.samplers.async_.collectors import DbCpuResetCollector
from rlpyt.samplers.parallel.cpu.collectors import CpuEvalCollector
from rlpyt.utils.hyperparams import hyperparam


class AsyncCpuSampler(AsyncParallelSamplerMixin):
    """Parallel CPU sampling in AsyncRl's sampler process."""

    CollectorCls = hyperparam(DbCpuResetCollector)
    eval_CollectorCls = hyperparam(CpuEvalCollector)

    def _prepare_sampler_agent(self, agent: SharedMemoryAgent) -> None:
        """The sampler's own shared model, read by the workers (CPU sampling only)."""
        if self.affinity.get("cuda_idx") is not None:
            raise ValueError(
                "AsyncCpuSampler runs its agent in CPU workers; its affinity has cuda_idx="
                f"{self.affinity['cuda_idx']}. Use AsyncGpuSampler to act on a GPU."
            )
        agent.async_cpu(share_memory=True)

    def _worker_agent(self) -> Agent:
        return self.agent
