"""Snapshot contents for exact resume, and locating/reading snapshot files."""

from __future__ import annotations

import glob
import os
import random
import re
from typing import Any

import numpy as np
import torch


def get_rng_state() -> dict:
    """States of Python's, numpy's and torch's global generators (and CUDA's, if any)."""
    state = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    """Restore what :func:`get_rng_state` returned."""
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def find_snapshot(path: str) -> str:
    """The snapshot file to resume from: ``path`` itself, or the newest in a run folder.

    In a folder, ``params.pkl`` (snapshot mode "last") wins, else the ``itr_<N>.pkl`` with the
    largest N.
    """
    if os.path.isfile(path):
        return path
    if not os.path.isdir(path):
        raise FileNotFoundError(f"No snapshot file or run folder at {path!r}.")
    last = os.path.join(path, "params.pkl")
    if os.path.isfile(last):
        return last
    numbered = glob.glob(os.path.join(path, "itr_*.pkl"))
    if not numbered:
        raise FileNotFoundError(
            f"No snapshot in {path!r}: resuming needs a run trained with snapshot_mode "
            "'last', 'all', 'gap' or 'last+gap' in logger_context."
        )
    return max(numbered, key=lambda p: int(re.findall(r"itr_(\d+)\.pkl$", p)[0]))


def load_snapshot(path: str, map_location: Any = "cpu") -> dict:
    """Read a snapshot written by a runner (a trusted file of your own: full unpickling)."""
    return torch.load(find_snapshot(path), map_location=map_location, weights_only=False)
