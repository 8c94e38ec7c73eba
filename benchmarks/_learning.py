"""Helpers shared by the learning benchmarks (``dqn_speed.py``, ``qpg_speed.py``).

Box: benchmarks (never part of the test suite). The benchmark scripts import this module by
name: run as ``python benchmarks/<script>.py``, Python puts ``benchmarks/`` first on
``sys.path``. It holds what both measure the same way:

- timing: :func:`timed_calls` (a warm-up, then calls counted over a window);
- formatting: :func:`spread` (``median [min-max]``), :func:`ratio`, :func:`fmt`,
  :func:`median_reached` (a seed that never got there counts as infinitely late),
  :func:`short`, :func:`print_rates`, :func:`print_ratio`;
- the evaluation schedule of a config: :func:`eval_interval_steps`;
- the float mode of a measurement: :func:`set_denormal_flush` (peers run with torch's default);
- the solve clock: :class:`SolveClock` counts env steps and wall seconds, evaluation time
  excluded, up to the first evaluation whose mean return reaches a threshold, and
  :class:`ClockedEvalRl`, a ``MinibatchRlEval`` that feeds the clock and stops there.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from rlpyt.runners.minibatch_rl import MinibatchRlEval

# -- float mode -----------------------------------------------------------------------------------


def set_denormal_flush(on: bool) -> None:
    """Set this thread's denormal flushing before a measurement.

    Our runners turn flushing on in their process (``rlpyt.runners.base.flush_denormals``), and
    the switch stays on for everything measured later in the same process. A peer (SB3) must run
    as it does on its own, with torch's default (off); a bare-model ceiling runs like ours (on),
    so that ours / bare compares framework overhead only.
    """
    torch.set_flush_denormal(on)


# torch's threads when this module was imported (torch's default), or --threads: what a peer's
# user gets. Our runners decide their own (rlpyt.utils.launching.threads) unless --threads.
_PEER_THREADS = [torch.get_num_threads()]
_RUNNER_THREADS: list[int | None] = [None]


def set_peer_threads(threads: int) -> None:
    """A benchmark's ``--threads``: torch threads for the peers' runs, ours, and for now."""
    _PEER_THREADS[0] = threads
    _RUNNER_THREADS[0] = threads
    torch.set_num_threads(threads)


def runner_affinity(**entries: Any) -> dict:
    """Our runner's affinity: ``entries``, plus ``master_torch_threads`` under ``--threads``."""
    threads = _RUNNER_THREADS[0]
    return entries if threads is None else dict(entries, master_torch_threads=threads)


def run_as_peer() -> None:
    """Before a peer's (SB3's) run: torch as it is when the peer runs alone.

    Denormals not flushed (:func:`set_denormal_flush`) and torch's default threads (or the
    benchmark's ``--threads``), whatever our runner set before in this process.
    """
    set_denormal_flush(False)
    torch.set_num_threads(_PEER_THREADS[0])


# -- timing -------------------------------------------------------------------------------------


def timed_calls(
    call: Callable[[], object], seconds: float, warmup: float, device: str = "cpu"
) -> tuple[int, float]:
    """Call ``call`` for ``warmup`` seconds, then count calls over ``seconds``.

    On a CUDA ``device`` the clock starts and stops after ``torch.cuda.synchronize`` (queued
    kernels counted in the window that queued them).

    Returns:
        ``(calls, elapsed seconds)`` of the timed window (at least one call).
    """
    sync = cuda_sync(device)
    end = time.perf_counter() + warmup
    while time.perf_counter() < end:
        call()
    sync()
    n, start = 0, time.perf_counter()
    while True:
        call()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            sync()
            return n, time.perf_counter() - start


def cuda_sync(device: str) -> Callable[[], None]:
    """A function that waits for ``device``'s queued work (a no-op off CUDA)."""
    if torch.device(device).type != "cuda":
        return lambda: None
    return lambda: torch.cuda.synchronize(device)


def cuda_idx_of(device: str) -> int | None:
    """The runner affinity's ``cuda_idx`` for ``device`` ("cpu", "cuda" or "cuda:N")."""
    dev = torch.device(device)
    return (dev.index or 0) if dev.type == "cuda" else None


# -- formatting ---------------------------------------------------------------------------------


def spread(values: list[float], spec: str = ",.1f") -> str:
    """``median [min-max]`` of a non-empty list of values, each formatted with ``spec``."""
    return (
        f"{format(statistics.median(values), spec)} "
        f"[{format(min(values), spec)}-{format(max(values), spec)}]"
    )


def ratio(a: float | None, b: float | None) -> str:
    """``a / b`` to two decimals; "n/a" when either is missing or ``b`` is 0."""
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def median_reached(values: list[float | None]) -> float | None:
    """Median with a never-reached seed (None) as infinitely late; None when that median is."""
    median = statistics.median(math.inf if v is None else v for v in values)
    return None if math.isinf(median) else median


def fmt(value: float | None, spec: str = ",.0f") -> str:
    """``value`` formatted with ``spec``, or "not reached" for None."""
    return "not reached" if value is None else format(value, spec)


def short(rates: dict[str, list[float]]) -> str:
    """The latest value of every non-empty series, for a progress line."""
    return "; ".join(f"{k} {v[-1]:,.1f}" for k, v in rates.items() if v)


def print_rates(title: str, rates: dict[str, list[float]]) -> None:
    """A titled table: one ``median [min-max]`` line per non-empty series."""
    print(f"\n== {title}: median [min-max] ==")
    for key, values in rates.items():
        if values:
            print(f"{key:40s} {spread(values)}")


def print_ratio(label: str, a: float | None, b: float | None) -> None:
    """One ``label  a / b`` line."""
    print(f"{label:56s} {ratio(a, b)}")


# -- evaluation schedule ------------------------------------------------------------------------


def eval_interval_steps(config: dict) -> int:
    """Env steps between a config's evaluations: whole sampler batches in ``log_interval_steps``.

    Args:
        config: An rlpyt-shaped config with ``sampler.batch_T``, ``sampler.batch_B`` and
            ``runner.log_interval_steps``.
    """
    batch = config["sampler"]["batch_T"] * config["sampler"]["batch_B"]
    return max(config["runner"]["log_interval_steps"] // batch, 1) * batch


# -- the solve clock ----------------------------------------------------------------------------


class SolveClock:
    """Env steps and wall seconds (evaluation excluded) at the first solving evaluation.

    Args:
        solved: The evaluation mean return that counts as solved (``>=``).

    Attributes:
        start: ``time.perf_counter()`` when training started (reset it to start the clock).
        eval_seconds: Seconds spent evaluating so far (subtracted from the wall time).
        reached: ``(env steps, training seconds)`` at the first solving evaluation, or None.
        evaluations: ``(env steps, mean return)`` of every evaluation recorded.
        train_seconds: Training seconds (evaluation excluded) at the latest evaluation.
    """

    def __init__(self, solved: float):
        self.solved = solved
        self.start = time.perf_counter()
        self.eval_seconds = 0.0
        self.reached: tuple[int, float] | None = None
        self.evaluations: list[tuple[int, float]] = []
        self.train_seconds = 0.0

    def evaluation(self, steps: int, mean_return: float, seconds: float) -> bool:
        """Record one evaluation at ``steps`` that took ``seconds``; True once solved."""
        self.eval_seconds += seconds
        self.evaluations.append((steps, mean_return))
        self.train_seconds = time.perf_counter() - self.start - self.eval_seconds
        if self.reached is None and mean_return >= self.solved:
            self.reached = (steps, self.train_seconds)
        return self.reached is not None


class ClockedEvalRl(MinibatchRlEval):
    """``MinibatchRlEval`` that times training only and records every evaluation in a clock.

    The clock starts when start-up ends; the evaluation before training is excluded from it
    and not recorded. Callers iterate ``iter_train()`` and stop once ``clock.reached`` is set.

    Args:
        solved: The clock's threshold (:class:`SolveClock`).
        **kwargs: ``MinibatchRlEval``'s keywords.
    """

    clock: SolveClock

    def __init__(self, *, solved: float, **kwargs: Any):
        super().__init__(**kwargs)
        self.solved = solved
        self.eval_trajectories = 0  # trajectories in the latest recorded evaluation

    def startup(self) -> int:
        n_itr = super().startup()
        self.clock = SolveClock(self.solved)
        return n_itr

    def evaluate_agent(self, itr: int) -> tuple[list, float]:
        t0 = time.perf_counter()
        traj_infos, eval_time = super().evaluate_agent(itr)
        if itr > 0 and traj_infos:
            self.eval_trajectories = len(traj_infos)
            mean = float(np.mean([info["Return"] for info in traj_infos]))
            self.clock.evaluation((itr + 1) * self.itr_batch_size, mean, time.perf_counter() - t0)
        elif itr == 0:
            self.clock.eval_seconds += time.perf_counter() - t0
        return traj_infos, eval_time
