"""Alias of :mod:`rlpyt.samplers.parallel.gpu.sampler` (``GpuSampler``).

rlpyt's ``atari_lstm_ppo_gpu.py`` imports ``GpuSampler`` from ``rlpyt.samplers.gpu.sampler``.
New code uses ``rlpyt.samplers.parallel.gpu.sampler``.
"""

from rlpyt.samplers.parallel.gpu.sampler import GpuSampler

__all__ = ["GpuSampler"]
