"""Alias of :mod:`rlpyt.samplers.parallel.cpu.sampler` under its early name.

``CpuParallelSampler`` (rlpyt's ``mujoco_ddpg_cpu.py``) is today's ``CpuSampler``: the same
class, not a subclass. New code imports ``CpuSampler`` from ``rlpyt.samplers.parallel.cpu.sampler``.
"""

from rlpyt.samplers.parallel.cpu.sampler import CpuSampler

CpuParallelSampler = CpuSampler

__all__ = ["CpuParallelSampler", "CpuSampler"]
