"""Alias package: ``rlpyt.samplers.paralell`` (sic), misspelt so in rlpyt's early scripts.

The real package is :mod:`rlpyt.samplers.parallel`; only ``paralell.gpu.collectors`` exists here.
"""
