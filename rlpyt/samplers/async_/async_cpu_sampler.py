"""Alias of :mod:`rlpyt.samplers.async_.cpu_sampler` under its early module name.

rlpyt's ``mujoco_td3_async_cpu.py`` imports ``AsyncCpuSampler`` from here. New code uses
``rlpyt.samplers.async_.cpu_sampler``.
"""

from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler

__all__ = ["AsyncCpuSampler"]
