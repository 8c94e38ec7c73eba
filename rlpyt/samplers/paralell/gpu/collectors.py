"""Alias of :mod:`rlpyt.samplers.parallel.gpu.collectors` under a misspelt package name.

rlpyt's ``atari_dqn_gpu_noeval.py`` imports ``GpuWaitResetCollector`` from
``rlpyt.samplers.paralell.gpu.collectors``; the names here are the same classes as those of
``rlpyt.samplers.parallel.gpu.collectors``. New code uses that path.
"""

from rlpyt.samplers.parallel.gpu.collectors import (
    GpuEvalCollector,
    GpuResetCollector,
    GpuWaitResetCollector,
)

__all__ = ["GpuEvalCollector", "GpuResetCollector", "GpuWaitResetCollector"]
