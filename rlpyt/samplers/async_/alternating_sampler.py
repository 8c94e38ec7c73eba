"""AsyncAlternatingSampler and AsyncNoOverlapAlternatingSampler: two worker groups, async.

Box: Sampler. The asynchronous twins of :mod:`rlpyt.samplers.parallel.gpu.alternating_sampler`
(same layout and requirements: ``alternating=True`` in the sampler affinity, an even number of
workers and an even ``batch_B``): AsyncRl's sampler process serves actions to one group while
the other steps its envs, from its own model (sampler ``cuda_idx``, or CPU when None), into the
double buffer's current half. The defaults are rlpyt's: ``DbGpuResetCollector`` and
``GpuEvalCollector``.
"""

from __future__ import annotations

from rlpyt.samplers.async_.action_server import (
    AsyncAlternatingActionServer,
    AsyncNoOverlapAlternatingActionServer,
)
from rlpyt.samplers.async_.collectors import DbGpuResetCollector
from rlpyt.samplers.parallel.gpu.alternating_sampler import (
    AlternatingSampler,
    NoOverlapAlternatingSampler,
)
from rlpyt.utils.hyperparams import hyperparam


class AsyncAlternatingSampler(AsyncAlternatingActionServer, AlternatingSampler):
    """Alternating sampling in AsyncRl's sampler process."""

    CollectorCls = hyperparam(DbGpuResetCollector)


class AsyncNoOverlapAlternatingSampler(
    AsyncNoOverlapAlternatingActionServer, NoOverlapAlternatingSampler
):
    """The no-overlap alternating sampling in AsyncRl's sampler process."""

    CollectorCls = hyperparam(DbGpuResetCollector)
