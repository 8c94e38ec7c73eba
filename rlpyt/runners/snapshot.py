"""Snapshot contents for exact resume, and locating/reading snapshot files.

Box: Runner. A runner calls :func:`make_snapshot` at each log point (the logger decides whether
it reaches disk) and, on ``train(resume_from=...)``, :func:`snapshot_to_resume` (which checks
that ``resume_from`` and ``logger_context(resume=...)`` agree), :func:`load_snapshot` and
:func:`check_resumable`, then :func:`restore_components` after its own start-up. A file that
is not a readable snapshot raises :class:`UnreadableSnapshotError`, naming the file and the
previous readable snapshot of its folder.
"""

from __future__ import annotations

import glob
import os
import random
import re
from typing import TYPE_CHECKING

import numpy as np
import torch

from rlpyt.protocols import RecurrentAgent
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import active_run

if TYPE_CHECKING:
    from rlpyt.protocols import Agent, Algorithm, AsyncSampler, Sampler


# Keys a snapshot needs to resume; an rlpyt snapshot, with only the first four keys of
# make_snapshot's, lacks them and is refused.
RESUME_KEYS = (
    "itr",
    "agent_state_dict",
    "algo_state_dict",
    "sampler_state",
    "runner_state",
    "rng_state",
)


class UnreadableSnapshotError(RuntimeError):
    """A snapshot file is truncated, empty, or not a snapshot written by a runner."""


def make_snapshot(
    itr: int,
    cum_steps: int,
    agent: Agent,
    algo: Algorithm,
    sampler: Sampler | AsyncSampler,
    runner_state: dict,
) -> dict:
    """Everything needed to resume exactly after iteration ``itr``.

    The keys an rlpyt snapshot has (``itr``, ``cum_steps``, ``agent_state_dict``,
    ``optimizer_state_dict``), which scripts that read snapshots use, plus
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
        rnn_state=agent.sampling_rnn_state if isinstance(agent, RecurrentAgent) else None,
        rng_state=get_rng_state(),
    )


def restore_components(
    snapshot: dict, agent: Agent, algo: Algorithm, sampler: Sampler | AsyncSampler
) -> None:
    """Load a snapshot's agent, algorithm, sampler and RNG states (after their start-up)."""
    agent.load_state_dict(snapshot["agent_state_dict"])
    algo.load_state_dict(snapshot["algo_state_dict"])
    sampler.load_state_dict(snapshot["sampler_state"])
    if snapshot.get("rnn_state") is not None and isinstance(agent, RecurrentAgent):
        agent.sampling_rnn_state = snapshot["rnn_state"]
    set_rng_state(snapshot["rng_state"])


def nonfinite_tensor(state: object, prefix: str = "") -> str | None:
    """The dotted key of a state dict's first tensor with a NaN or infinity (None: none).

    ``state`` may nest dicts; non-floating tensors and other values are skipped.

    Used by the runners' divergence guard to name a parameter and by ``rlpyt play`` to refuse a
    diverged snapshot (``nonfinite_tensor(snapshot["agent_state_dict"])``).
    """
    if isinstance(state, torch.Tensor):
        finite = not state.is_floating_point() or bool(torch.isfinite(state).all())
        return None if finite else prefix or "<tensor>"
    if isinstance(state, dict):
        for key, value in state.items():
            found = nonfinite_tensor(value, f"{prefix}.{key}" if prefix else str(key))
            if found is not None:
                return found
    return None


def get_rng_state() -> dict:
    """States of Python's, numpy's and torch's global generators (and CUDA's, if any).

    CUDA's are saved only where this process has started CUDA: a process that never used it
    has drawn nothing from them, and asking would start CUDA here (costly, and fatal to CUDA
    in children forked later).
    """
    state = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    """Restore what :func:`get_rng_state` returned.

    CUDA's states are set lazily (when this process starts CUDA), on the devices that exist.
    """
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    cuda_states = state.get("cuda") or []
    n_devices = torch.cuda.device_count() if cuda_states else 0  # NVML: CUDA stays unstarted
    for index, cuda_state in enumerate(cuda_states[:n_devices]):
        torch.cuda.set_rng_state(cuda_state, index)


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
    numbered = _numbered_snapshots(path)
    if not numbered:
        raise FileNotFoundError(
            f"No snapshot in {path!r}: resuming needs a run trained with snapshot_mode "
            "'last', 'all', 'gap' or 'last+gap' in logger_context."
        )
    return numbered[-1]


def load_snapshot(path: str, map_location: str | torch.device | None = "cpu") -> dict:
    """Read a snapshot written by a runner (a trusted file of your own: full unpickling).

    Args:
        path: a snapshot file, or a run folder (its newest snapshot, see :func:`find_snapshot`).
        map_location: as ``torch.load``'s; default "cpu".

    Returns:
        The snapshot dict (at least ``itr`` and ``agent_state_dict``).

    Raises:
        FileNotFoundError: no snapshot at ``path``.
        UnreadableSnapshotError: the file is truncated, empty, not written by ``torch.save``,
            or not a snapshot dict; the message names the previous readable snapshot of the
            same folder, if there is one.
    """
    file = find_snapshot(path)
    problem = _snapshot_problem(file, map_location)
    if isinstance(problem, dict):
        return problem
    raise UnreadableSnapshotError(
        f"{file} is not a readable snapshot ({problem}); it may have been cut short by a "
        f"crash, emptied, or be another kind of file. {_previous_good(file, map_location)}"
    )


def _snapshot_problem(file: str, map_location: str | torch.device | None) -> dict | str:
    """The snapshot in ``file``, or a description of why it is not one."""
    if os.path.getsize(file) == 0:
        return "the file is empty"
    try:
        snapshot = torch.load(file, map_location=map_location, weights_only=False)
    except Exception as error:  # torch and pickle raise many types for a bad file
        return f"{type(error).__name__}: {error}"
    if not isinstance(snapshot, dict):
        return f"it holds a {type(snapshot).__name__}, not a snapshot dict"
    missing = [key for key in ("itr", "agent_state_dict") if key not in snapshot]
    if missing:
        return f"its dict lacks {', '.join(missing)}"
    return snapshot


def _previous_good(file: str, map_location: str | torch.device | None) -> str:
    """A sentence naming the newest readable snapshot older than ``file`` in its folder."""
    folder = os.path.dirname(os.path.abspath(file))
    candidates = _numbered_snapshots(folder)
    match = re.search(r"itr_(\d+)\.pkl$", file)
    if match:  # only older ones; params.pkl ("last") is newer than any itr_<N>.pkl
        candidates = [c for c in candidates if _itr_of(c) < int(match.group(1))]
    for candidate in reversed(candidates):
        if isinstance(_snapshot_problem(candidate, map_location), dict):
            return (
                f"The previous good snapshot is {candidate}: resume from it with "
                f"train(resume_from={candidate!r})."
            )
    return f"There is no earlier readable snapshot in {folder}."


def _numbered_snapshots(folder: str) -> list[str]:
    """The ``itr_<N>.pkl`` files of ``folder``, by increasing N."""
    numbered = [p for p in glob.glob(os.path.join(folder, "itr_*.pkl")) if _itr_of(p) >= 0]
    return sorted(numbered, key=_itr_of)


def _itr_of(path: str) -> int:
    match = re.search(r"itr_(\d+)\.pkl$", path)
    return int(match.group(1)) if match else -1


def check_resumable(snapshot: dict, path: str) -> None:
    """Raises :class:`UnreadableSnapshotError` if ``snapshot`` lacks what resuming needs.

    Args:
        snapshot: as returned by :func:`load_snapshot`.
        path: where it came from (for the message).
    """
    missing = [key for key in RESUME_KEYS if key not in snapshot]
    if missing:
        raise UnreadableSnapshotError(
            f"The snapshot {path} lacks {', '.join(missing)}, so a run cannot resume from it "
            "(it was not written by this version's runners, e.g. an rlpyt snapshot). Its "
            "agent_state_dict still loads into an agent with agent.load_state_dict(...)."
        )


def snapshot_to_resume(resume_from: str | bool | None) -> str | None:
    """The snapshot file ``train(resume_from=...)`` resumes from; None: start afresh.

    Refuses, before any training, when ``resume_from`` and the open ``logger_context``'s
    ``resume`` disagree: ``resume_from=True`` or a snapshot inside the run folder without
    ``resume=True`` (its progress.csv was started anew), or ``resume=True`` without
    ``resume_from`` (rows from iteration 0 would follow the old ones).

    Args:
        resume_from: a snapshot file, a run folder, True (the current run folder) or
            None/False.

    Raises:
        ValueError: the two switches disagree, or True outside a run folder.
        FileNotFoundError: no snapshot where ``resume_from`` points.
    """
    run = active_run()
    if not resume_from:
        if run is not None and run.resume:
            raise ValueError(
                f"logger_context(resume=True) reopened {run.path} to continue its run, but "
                "train() was called with resume_from=None: call train(resume_from=True) to "
                "continue from its newest snapshot, or open logger_context without "
                "resume=True (and with a new run_ID) to start a new run."
            )
        return None
    if resume_from is True and run is None and logger.get_snapshot_dir() is None:
        raise ValueError(
            "train(resume_from=True) resumes from the current run folder: call it inside "
            "logger_context(..., resume=True), or pass the snapshot path."
        )
    if resume_from is True and run is not None and not run.resume:
        raise _disagreement(resume_from, run.path)
    if resume_from is True:
        return find_snapshot(run.path if run is not None else str(logger.get_snapshot_dir()))
    file = find_snapshot(str(resume_from))
    if run is not None and not run.resume and _is_inside(file, run.path):
        raise _disagreement(resume_from, run.path)
    return file


def _disagreement(resume_from: str | bool, run_path: str) -> ValueError:
    return ValueError(
        f"train(resume_from={resume_from!r}) continues the run in {run_path}, but its "
        "logger_context was opened with resume=False, which starts progress.csv anew. Open "
        "it with logger_context(..., resume=True) and call train(resume_from=True); to start "
        "a new run instead, call train() without resume_from (and use a new run_ID)."
    )


def _is_inside(path: str, folder: str) -> bool:
    path, folder = os.path.abspath(path), os.path.abspath(folder)
    return os.path.commonpath([path, folder]) == folder
