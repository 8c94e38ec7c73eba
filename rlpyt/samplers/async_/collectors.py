"""Double-buffer collectors: the training collectors of the asynchronous samplers.

Box: Collector. The async samplers (:mod:`rlpyt.samplers.async_`) hand each collector both
halves of the shared double buffer as ``samples_np`` (a pair of ``[T, B_local]`` slices) and a
``sync`` holding ``db_idx``, the shared index of the half the next batch goes to. At the start
of every batch the collector points ``samples_np`` at that half, then collects exactly as its
synchronous twin. The sampler process sets ``db_idx`` before each batch; a memory copier reads
the other half into the replay meanwhile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rlpyt.samplers.agent_collectors import CpuResetCollector, CpuWaitResetCollector
from rlpyt.samplers.collections import Samples
from rlpyt.samplers.collectors import BaseCollector
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector, GpuWaitResetCollector
from rlpyt.utils.hyperparams import hyperparam

if TYPE_CHECKING:
    from rlpyt.agents.base import AgentInputs
    from rlpyt.envs.traj_info import TrajInfo, TrajInfoRows


class DoubleBufferCollectorMixin(BaseCollector):
    """Writes each batch into the half ``sync.db_idx`` of a double buffer.

    Put first among a collector's bases. ``sync.db_idx`` (a shared ``RawValue``) picks the
    half at the start of each batch.
    """

    samples_np = hyperparam(
        doc="The double buffer: the pair of halves ``(half_0, half_1)``, each ``[T, B_local]`` "
        "(numpy); afterwards the half being written.",
        type=tuple[Samples, Samples],
    )

    double_buffer: tuple[Samples, Samples]

    def __post_init__(self) -> None:
        """Keep the pair of halves; ``samples_np`` starts as half 0 (its layout for start-up).

        Raises:
            TypeError: ``samples_np`` is one samples buffer, not the pair of halves.
        """
        super().__post_init__()
        halves: object = self.samples_np
        if hasattr(halves, "_fields") or not isinstance(halves, tuple | list) or len(halves) != 2:
            raise TypeError(
                f"{type(self).__name__} writes into a double buffer: pass samples_np as the "
                "pair of halves (the async samplers do), not one samples buffer."
            )
        self.double_buffer = (halves[0], halves[1])
        self.samples_np = self.double_buffer[0]  # start_envs reads the layout of one half

    def collect_batch(
        self, agent_inputs: AgentInputs, traj_infos: TrajInfoRows, itr: int
    ) -> tuple[AgentInputs, TrajInfoRows, list[TrajInfo]]:
        """Point ``samples_np`` at the half ``sync.db_idx``, then collect one batch."""
        if self.sync is None:
            raise RuntimeError(f"{type(self).__name__} needs a sync with db_idx.")
        self.samples_np = self.double_buffer[self.sync.db_idx.value]
        return super().collect_batch(agent_inputs, traj_infos, itr)


class DbCpuResetCollector(DoubleBufferCollectorMixin, CpuResetCollector):
    """:class:`~rlpyt.samplers.agent_collectors.CpuResetCollector` into a double buffer."""


class DbCpuWaitResetCollector(DoubleBufferCollectorMixin, CpuWaitResetCollector):
    """:class:`~rlpyt.samplers.agent_collectors.CpuWaitResetCollector` into a double buffer."""


class DbGpuResetCollector(DoubleBufferCollectorMixin, GpuResetCollector):
    """:class:`~rlpyt.samplers.parallel.gpu.collectors.GpuResetCollector` into a double buffer."""


class DbGpuWaitResetCollector(DoubleBufferCollectorMixin, GpuWaitResetCollector):
    """``GpuWaitResetCollector`` into a double buffer."""
