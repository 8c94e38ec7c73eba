"""Snapshot contents for exact resume, and locating/reading snapshot files.

Box: Runner. A runner calls :func:`make_snapshot` at each log point (the logger decides whether
it reaches disk) and, on ``train(resume_from=...)``, :func:`load_snapshot` then
:func:`restore_components` after its own start-up.
"""

from __future__ import annotations

import glob
import os
import random
import re
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    from rlpyt.protocols import Agent, Algorithm, Sampler


def make_snapshot(
    itr: int, cum_steps: int, agent: Agent, algo: Algorithm, sampler: Sampler, runner_state: dict
) -> dict:
    """Everything needed to resume exactly after iteration ``itr``.

    rlpyt's keys (``itr``, ``cum_steps``, ``agent_state_dict``, ``optimizer_state_dict``) plus
    ``algo_state_dict``, ``sampler_state``, ``runner_state`` (the runner's diagnostics),
    ``rnn_state`` (recurrent agents' sampling state, else None) and ``rng_state``.
    """
    return dict(
        itr=itr,
        cum_steps=cum_steps,
        agent_state_dict=agent.state_dict(),
        optimizer_state_dict=algo.optim_state_dict(),
        algo_state_dict=algo.state_dict(),
        sampler_state=sampler.state_dict(),
        runner_state=runner_state,
        rnn_state=getattr(agent, "sampling_rnn_state", None),  # only recurrent agents have one
        rng_state=get_rng_state(),
    )


def restore_components(snapshot: dict, agent: Agent, algo: Algorithm, sampler: Sampler) -> None:
    """Load a snapshot's agent, algorithm, sampler and RNG states (after their start-up)."""
    agent.load_state_dict(snapshot["agent_state_dict"])
    algo.load_state_dict(snapshot["algo_state_dict"])
    sampler.load_state_dict(snapshot["sampler_state"])
    if snapshot.get("rnn_state") is not None:
        agent.sampling_rnn_state = snapshot["rnn_state"]  # type: ignore[attr-defined]
    set_rng_state(snapshot["rng_state"])


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


def load_snapshot(path: str, map_location: str | torch.device | None = "cpu") -> dict:
    """Read a snapshot written by a runner (a trusted file of your own: full unpickling)."""
    return torch.load(find_snapshot(path), map_location=map_location, weights_only=False)
