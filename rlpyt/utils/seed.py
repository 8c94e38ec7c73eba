"""Seeding of Python's, numpy's and torch's global random number generators.

Runners call :func:`set_seed` once per process (the master, then each worker with its own
offset); :func:`make_seed` draws a fresh seed when the user gave none. The last seed set is
kept so snapshots and logs can report it.
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch

# numpy's legacy global seed must be below 2**32; rlpyt reduced seeds modulo this value.
_SEED_MODULUS = 4294967294

_seed: int | None = None


def set_seed(seed: int) -> None:
    """Seed ``random``, numpy and torch (CPU and every CUDA device) and remember the seed.

    Args:
        seed: Any int; the generators get ``seed % 4294967294``.
    """
    global _seed  # noqa: PLW0603 (module-level record of the process's seed, as rlpyt kept)
    seed = int(seed) % _SEED_MODULUS
    _seed = seed
    random.seed(seed)
    np.random.seed(seed)
    # Also seeds every CUDA device, lazily: asking torch.cuda.is_available() here would start
    # the CUDA driver in a process that forks children later (AsyncRl's sampler process runs
    # its action server on the GPU), and CUDA does not survive a fork.
    torch.manual_seed(seed)
    _log(f"Seed set to {seed}.")


def get_seed() -> int | None:
    """The seed last given to :func:`set_seed` in this process (None if never called)."""
    return _seed


def make_seed() -> int:
    """A fresh seed in ``[0, 10000)``, different for processes started at the same moment.

    Mixes the nanosecond clock, the process id and OS entropy, so forked children (which
    share their parent's RNG states) and simultaneously launched runs still differ.
    """
    material = f"{time.time_ns()}-{os.getpid()}-{time.perf_counter_ns()}".encode()
    digest = hashlib.blake2b(material + os.urandom(16), digest_size=8).digest()
    return int.from_bytes(digest, "little") % 10000


def set_envs_seeds(envs: Iterable[Any], seed: int | None) -> None:
    """Call ``env.seed(seed + i)`` on the i-th env for every env that has a ``seed`` method.

    Args:
        envs: Environment instances.
        seed: Base seed; None leaves the envs alone.
    """
    if seed is None:
        return
    for i, env in enumerate(envs):
        if callable(getattr(env, "seed", None)):
            env.seed(seed + i)


def _log(message: str) -> None:
    """Log through rlpyt's logger where it exists; stay quiet otherwise."""
    try:
        from rlpyt.utils.logging import logger  # noqa: PLC0415 (lazy: logger is optional)
    except ImportError:
        return
    log = getattr(logger, "log", None)
    if callable(log):
        log(message)
