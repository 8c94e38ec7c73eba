"""Alias of :mod:`rlpyt.samplers.parallel.gpu.collectors`, with the collectors' early names.

rlpyt's early scripts import ``ResetCollector`` and ``WaitResetCollector`` from here; they are
today's ``GpuResetCollector`` and ``GpuWaitResetCollector`` (``EvalCollector``:
``GpuEvalCollector``), the same classes. New code uses the ``Gpu*`` names from
``rlpyt.samplers.parallel.gpu.collectors``.
"""

from rlpyt.samplers.parallel.gpu.collectors import (
    GpuEvalCollector,
    GpuResetCollector,
    GpuWaitResetCollector,
)

ResetCollector = GpuResetCollector
WaitResetCollector = GpuWaitResetCollector
EvalCollector = GpuEvalCollector

__all__ = [
    "EvalCollector",
    "GpuEvalCollector",
    "GpuResetCollector",
    "GpuWaitResetCollector",
    "ResetCollector",
    "WaitResetCollector",
]
