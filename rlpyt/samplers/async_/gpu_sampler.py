"""AsyncGpuSampler: AsyncRl's sampler process serves actions to env-stepping workers.

Box: Sampler. The asynchronous twin of :class:`~rlpyt.samplers.parallel.gpu.sampler.GpuSampler`:
the workers only step envs; the sampler process runs one batched forward pass per time step for
all envs (on the sampler affinity's ``cuda_idx``, or on CPU when it is None) and writes the
double buffer's current half. rlpyt could start several action-server processes, one per
sampler GPU; here the sampler process is the one action server, so its affinity is one dict
(a list of one is accepted).
"""

from __future__ import annotations

from rlpyt.samplers.async_.action_server import AsyncActionServer
from rlpyt.samplers.async_.collectors import DbGpuResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.utils.hyperparams import hyperparam


class AsyncGpuSampler(AsyncActionServer, GpuSampler):
    """GPU-style sampling in AsyncRl's sampler process."""

    CollectorCls = hyperparam(DbGpuResetCollector)
