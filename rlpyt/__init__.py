"""rlpyt: deep reinforcement learning research in PyTorch."""

import os as _os
import sys as _sys

__version__ = "0.2.0"


def _sleeping_openmp_threads() -> str | None:
    """Make OpenMP's idle threads sleep instead of spin, unless the user chose a wait policy.

    Beside a competing process a spinning idle thread takes the core the competitor needs, and a
    multi-threaded update collapses (rlpyt.utils.launching.threads). OpenMP reads the variable
    when torch loads, so this acts where rlpyt is imported before torch, and in every worker
    process started by spawn or forkserver (they inherit the environment).

    Returns:
        The policy this process's OpenMP runs with (None: unset, OpenMP's default spin).
    """
    given = _os.environ.get("OMP_WAIT_POLICY")
    if given is None:
        _os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return given if "torch" in _sys.modules else _os.environ["OMP_WAIT_POLICY"]


OPENMP_WAIT_POLICY = _sleeping_openmp_threads()
