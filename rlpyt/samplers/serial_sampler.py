"""Alias of :mod:`rlpyt.samplers.serial.sampler` under the module name of rlpyt's early scripts.

``from rlpyt.samplers.serial_sampler import SerialSampler`` (rlpyt's ``atari_dqn_serial.py``)
imports the same class as ``rlpyt.samplers.serial.sampler``. New code uses that path.
"""

from rlpyt.samplers.serial.sampler import SerialSampler

__all__ = ["SerialSampler"]
