"""Alias package: the CPU sampler's module names from rlpyt's early scripts.

Today's package is :mod:`rlpyt.samplers.parallel.cpu`; the modules here re-export its classes.
"""
