"""Alias of :mod:`rlpyt.samplers.parallel.gpu.sampler` under its early name.

``GpuParallelSampler`` (rlpyt's ``mujoco_ff_ppo_gpu.py``, ``atari_lstm_ppo_gpu.py``) is today's
``GpuSampler``: the same class, not a subclass. New code imports ``GpuSampler`` from
``rlpyt.samplers.parallel.gpu.sampler``.
"""

from rlpyt.samplers.parallel.gpu.sampler import GpuSampler

GpuParallelSampler = GpuSampler

__all__ = ["GpuParallelSampler", "GpuSampler"]
