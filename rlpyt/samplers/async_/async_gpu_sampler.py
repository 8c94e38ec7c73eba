"""Alias of :mod:`rlpyt.samplers.async_.gpu_sampler` under its early module name.

rlpyt's ``mujoco_sac_async_gpu.py`` imports ``AsyncGpuSampler`` from here. New code uses
``rlpyt.samplers.async_.gpu_sampler``.
"""

from rlpyt.samplers.async_.gpu_sampler import AsyncGpuSampler

__all__ = ["AsyncGpuSampler"]
