"""Alias of :mod:`rlpyt.samplers.parallel.cpu.collectors`, with the collectors' early names.

rlpyt's early scripts import ``ResetCollector`` and ``WaitResetCollector`` from here; they are
today's ``CpuResetCollector`` and ``CpuWaitResetCollector`` (``EvalCollector``:
``CpuEvalCollector``), the same classes. New code uses the ``Cpu*`` names from
``rlpyt.samplers.parallel.cpu.collectors``.
"""

from rlpyt.samplers.parallel.cpu.collectors import (
    CpuEvalCollector,
    CpuResetCollector,
    CpuWaitResetCollector,
)

ResetCollector = CpuResetCollector
WaitResetCollector = CpuWaitResetCollector
EvalCollector = CpuEvalCollector

__all__ = [
    "CpuEvalCollector",
    "CpuResetCollector",
    "CpuWaitResetCollector",
    "EvalCollector",
    "ResetCollector",
    "WaitResetCollector",
]
