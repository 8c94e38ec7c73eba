"""Alias package: the GPU sampler's module names from rlpyt's early scripts.

Today's package is :mod:`rlpyt.samplers.parallel.gpu`; the modules here re-export its classes.
"""
