"""Alias package of :mod:`rlpyt.samplers.parallel.gpu` (only its ``collectors`` module)."""
