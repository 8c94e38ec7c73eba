"""Training speed on a shared machine: each row idle and beside CPU-bound competing processes.

Box: benchmarks (never part of the test suite). Researchers run rlpyt beside other work. Every
row is a real ``rlpyt train`` command line in a fresh subprocess, as a user gets it, run twice
per repeat: on the idle machine, then with ``--competitors`` busy-loop processes
(``while True: pass``, not pinned to a core) that this script starts before the run (and waits
for) and kills after it, also on Ctrl-C. Idle and loaded runs alternate (idle, loaded, idle,
loaded, ...) so that drift of the host's speed affects both alike; each repeat has its own seed,
the same for its idle and its loaded run.

The figure of a run is its training-phase rate, read from its ``progress.csv``: the median over
logged rows of ``Diagnostics/StepsPerSecond`` (and ``Diagnostics/UpdatesPerSecond`` for the
replay families), over rows once learning has started: for replay rows those whose previous row
already had ``Diagnostics/CumUpdates`` > 0 (no interval that includes the pre-learning phase),
for on-policy rows all but the first logged row. The script prints per row the medians of the
repeats, loaded / idle, the raw repeats, the runner's console line about CPU affinity and torch
threads (idle and loaded), and at the end the smallest ratio.

A run past ``--timeout`` seconds is stopped and marked "timeout" (its figures, if it logged
training-phase rows, come from those rows); a run that fails prints the tail of its output and
marks its row failed.

Usage::

    python benchmarks/contention.py                              # all rows, 3 repeats
    python benchmarks/contention.py --scale 0.15 --repeats 1 --rows ppo_cartpole dqn_cartpole
    python benchmarks/contention.py --competitors 15 --json contention.json   # a 16-core box
    python benchmarks/contention.py --extra-args="--torch-threads 1"
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

import torch


class Row(NamedTuple):
    """One benchmark row: a ``rlpyt train`` command line and its step budget.

    ``args`` follow ``rlpyt train`` (split as a shell would); ``steps`` and ``log_interval`` are
    env steps; ``batch`` is the config's sampler batch (``batch_T * batch_B``, see ``rlpyt train
    ALGO --env ENV --show-config``), to which scaled budgets are rounded.
    """

    args: str
    steps: int
    log_interval: int
    batch: int

    @property
    def replay(self) -> bool:
        """A replay family's row: it waits ``learn_from`` steps and also reports updates/s."""
        return self.args.split()[0] in LEARN_FROM

    @property
    def learn_from(self) -> int:
        """Env steps before the first update (0 for the on-policy families)."""
        return LEARN_FROM.get(self.args.split()[0], 0)


# The replay families' algo.min_steps_learn in the CLI's configs (`--show-config`): --scale
# shrinks only the steps after it, so that a scaled run still learns.
LEARN_FROM = {"dqn": 1_000, "sac": 100, "td3": 1_000}

# Budgets for 9-13 s of training per idle run on the 2-core machine of docs/benchmarks.md (plus
# 3-9 s of start-up and evaluations), each with 4 or more training-phase log rows; everything
# else is the CLI's defaults. The rows' idle rates and durations are in that page's section.
# fmt: off
ROWS: dict[str, Row] = {
    # name                rlpyt train ...                                     steps     log  batch
    "ppo_cartpole":       Row("ppo --env CartPole-v1 --sampler serial",      65_536,  8_192, 256),
    "a2c_cartpole":       Row("a2c --env CartPole-v1 --sampler serial",     140_000, 20_000,  40),
    "dqn_cartpole":       Row("dqn --env CartPole-v1",                       20_480,  2_560, 256),
    "sac_pendulum":       Row("sac --env Pendulum-v1",                        1_050,    150,   1),
    "td3_pendulum":       Row("td3 --env Pendulum-v1",                        2_200,    200,   1),
    "a2c_pong_cpu":       Row("a2c --env pong --sampler cpu --n-workers 2",   9_600,  1_600, 160),
    "dqn_cartpole_async": Row("dqn --env CartPole-v1 --runner async",        12_288,  2_048, 256),
    "ppo_cartpole_cpu":   Row("ppo --env CartPole-v1 --sampler cpu",         49_152,  8_192, 256),
    "ppo_cartpole_gpu":   Row("ppo --env CartPole-v1 --sampler gpu",         49_152,  8_192, 256),
    "ppo_cartpole_alt":   Row("ppo --env CartPole-v1 --sampler alternating", 49_152,  8_192, 256),
}
# fmt: on

STEPS_PER_S = "Diagnostics/StepsPerSecond"
UPDATES_PER_S = "Diagnostics/UpdatesPerSecond"
CUM_UPDATES = "Diagnostics/CumUpdates"
COMPETITOR_START_S = 0.5  # the competitors run (and spin) this long before the measured run
AFFINITY_MARKERS = ("torch threads", "cpu affinity")  # the runner's console line, lower case
TAIL_LINES = 25
PHASES = ("idle", "loaded")  # the order of a repeat's two runs


# -- the competing load ---------------------------------------------------------------------------


@contextmanager
def competitors(n: int) -> Iterator[list[int]]:
    """Run ``n`` busy-loop processes (not pinned) for the ``with`` block; always kill them.

    Yields their process ids once they have run ``COMPETITOR_START_S`` seconds.
    """
    procs: list[subprocess.Popen] = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        time.sleep(COMPETITOR_START_S)
        dead = [p.pid for p in procs if p.poll() is not None]
        if dead:
            raise RuntimeError(f"competitor processes {dead} exited before the run")
        yield [p.pid for p in procs]
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


# -- one run --------------------------------------------------------------------------------------


@dataclass
class Run:
    """One ``rlpyt train`` run: how it ended and its training-phase rates."""

    phase: str  # "idle" or "loaded"
    seed: int
    status: str = "ok"  # "ok", "failed" (non-zero exit), "timeout", "no training rows"
    seconds: float = 0.0  # wall time of the whole process (start-up included)
    rows: int = 0  # training-phase log rows the rates come from
    steps_per_s: float | None = None
    updates_per_s: float | None = None
    affinity_lines: list[str] = field(default_factory=list)
    note: str = ""
    output_tail: str = ""  # the last lines of a failed run's console output


def budget(row: Row, scale: float) -> tuple[int, int]:
    """``(steps, log interval)`` of ``row`` at ``scale``, in whole sampler batches."""

    def batches(x: float) -> int:
        return max(round(x / row.batch), 1) * row.batch

    steps = row.learn_from + scale * (row.steps - row.learn_from)
    return batches(steps), batches(scale * row.log_interval)


def command(row: Row, scale: float, seed: int, log_dir: str, extra: list[str]) -> list[str]:
    """The ``rlpyt train`` command line of one run of ``row``."""
    rlpyt = Path(sys.executable).with_name("rlpyt")
    launcher = [str(rlpyt)] if rlpyt.exists() else [sys.executable, "-m", "rlpyt"]
    steps, log_interval = budget(row, scale)
    return [
        *launcher,
        "train",
        *shlex.split(row.args),
        "--steps",
        str(steps),
        "--log-interval",
        str(log_interval),
        "--seed",
        str(seed),
        "--log-dir",
        log_dir,
        "--run-id",
        "0",
        *extra,
    ]


def stop(proc: subprocess.Popen) -> None:
    """Interrupt a run's process group (its workers too), then kill what is left of it."""
    try:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(10.0)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def run_once(cmd: list[str], out_path: Path, timeout: float) -> tuple[int | None, float]:
    """Run ``cmd`` in its own process group, output to ``out_path``; stop it after ``timeout``.

    Returns:
        ``(exit code or None on timeout, wall seconds)``.
    """
    start = time.perf_counter()
    with out_path.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code: int | None = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            if proc.poll() is None:
                stop(proc)
    return code, time.perf_counter() - start


def training_rows(rows: list[dict[str, str]], replay: bool) -> list[dict[str, str]]:
    """The log rows of the training phase (see the module docstring)."""
    if not replay:
        return rows[1:]
    return [row for prev, row in pairwise(rows) if number(prev.get(CUM_UPDATES)) > 0]


def number(text: str | None) -> float:
    """A CSV cell as a float (NaN when empty or missing)."""
    try:
        return float(text) if text else math.nan
    except ValueError:
        return math.nan


def median_of(rows: list[dict[str, str]], key: str) -> float | None:
    """Median of the finite values of column ``key``; None when there are none."""
    values = [v for v in (number(row.get(key)) for row in rows) if math.isfinite(v)]
    return statistics.median(values) if values else None


def read_rates(run: Run, progress: Path, replay: bool) -> None:
    """Fill ``run``'s rates from its ``progress.csv`` (a note when the file or rows are missing)."""
    if not progress.exists():
        run.note = "no progress.csv"
        return
    with progress.open(newline="") as f:
        rows = list(csv.DictReader(f))
    phase = training_rows(rows, replay)
    run.rows = len(phase)
    run.steps_per_s = median_of(phase, STEPS_PER_S)
    if replay:
        run.updates_per_s = median_of(phase, UPDATES_PER_S)
    if rows and STEPS_PER_S not in rows[0]:
        run.note = f"no {STEPS_PER_S} column"
    elif not phase:
        last = rows[-1].get(CUM_UPDATES, "?") if rows else "?"
        run.note = f"{len(rows)} log rows, none in the training phase (CumUpdates {last})"


def affinity_lines(output: str) -> list[str]:
    """The runner's lines about CPU affinity and torch threads, timestamps stripped, once each."""
    found: list[str] = []
    for line in output.splitlines():
        if any(marker in line.lower() for marker in AFFINITY_MARKERS):
            text = line.split(" | ", 1)[-1].strip()
            if text not in found:
                found.append(text)
    return found


def measure(name: str, phase: str, seed: int, args: argparse.Namespace, work: Path) -> Run:
    """One run of row ``name`` (``phase``: "idle" or "loaded"), its folder under ``work``."""
    row = ROWS[name]
    log_dir = Path(tempfile.mkdtemp(prefix=f"{name}_{phase}_{seed}_", dir=work))
    cmd = command(row, args.scale, seed, str(log_dir), args.extra)
    out_path = log_dir / "console.txt"
    if phase == "loaded":
        with competitors(args.competitors):
            code, seconds = run_once(cmd, out_path, args.timeout)
    else:
        code, seconds = run_once(cmd, out_path, args.timeout)
    output = out_path.read_text(errors="replace")
    run = Run(phase, seed, seconds=seconds, affinity_lines=affinity_lines(output))
    if code is None:
        run.status = "timeout"
    elif code != 0:
        run.status = "failed"
        run.note = f"exit {code}"
        run.output_tail = "\n".join(output.splitlines()[-TAIL_LINES:])
        print(f"  {phase} run failed (exit {code}); its last lines:\n{run.output_tail}", flush=True)
        return run
    read_rates(run, log_dir / "run_0" / "progress.csv", row.replay)
    if run.status == "ok" and run.steps_per_s is None:
        run.status = "no training rows"
    return run


# -- a row: repeats, medians, report --------------------------------------------------------------


def fmt(value: float | None) -> str:
    """A rate for the tables ("-" when missing)."""
    return "-" if value is None else f"{value:,.1f}"


def run_line(run: Run) -> str:
    """One run, for the progress log."""
    rates = f"steps/s {fmt(run.steps_per_s)}"
    if run.updates_per_s is not None:
        rates += f", updates/s {fmt(run.updates_per_s)}"
    note = f" ({run.note})" if run.note else ""
    return (
        f"  seed {run.seed} {run.phase:6s} {run.status:7s} {run.seconds:6.1f} s, "
        f"{run.rows} rows, {rates}{note}"
    )


def measure_row(name: str, args: argparse.Namespace, work: Path) -> list[Run]:
    """Idle and loaded runs of row ``name``, interleaved, ``args.repeats`` times.

    Stops the row at its first failed run.
    """
    steps, log_interval = budget(ROWS[name], args.scale)
    print(
        f"\n== {name}: rlpyt train {ROWS[name].args} --steps {steps} "
        f"--log-interval {log_interval} {shlex.join(args.extra)}".rstrip(),
        flush=True,
    )
    runs: list[Run] = []
    for seed in range(args.repeats):
        for phase in PHASES:
            runs.append(measure(name, phase, seed, args, work))
            print(run_line(runs[-1]), flush=True)
            if runs[-1].status == "failed":
                print_runner_lines(runs)
                return runs
    print_runner_lines(runs)
    return runs


def print_runner_lines(runs: list[Run]) -> None:
    """The runner's affinity and threads lines of a row's first idle and first loaded run."""
    for phase in PHASES:
        first = next((r for r in runs if r.phase == phase), None)
        if first is not None:
            for line in first.affinity_lines or ["(no such line in its output)"]:
                print(f"  runner, {phase}: {line}")


def medians(runs: list[Run], phase: str, key: str) -> tuple[float | None, list[float | None]]:
    """Median over the ``phase`` runs' ``key`` figures, and the figures of every repeat."""
    values = [getattr(r, key) for r in runs if r.phase == phase]
    present = [v for v in values if v is not None]
    return (statistics.median(present) if present else None), values


def row_status(runs: list[Run]) -> str:
    """The worst status among a row's runs ("ok" when all are)."""
    for status in ("failed", "timeout", "no training rows"):
        if any(r.status == status for r in runs):
            return status
    return "ok"


def summarize(name: str, runs: list[Run]) -> dict:
    """A row's figures: per rate key, idle and loaded medians, their ratio and the repeats."""
    figures = {}
    keys = ("steps_per_s", "updates_per_s") if ROWS[name].replay else ("steps_per_s",)
    for key in keys:
        idle, idle_values = medians(runs, "idle", key)
        loaded, loaded_values = medians(runs, "loaded", key)
        ratio = loaded / idle if idle and loaded is not None else None
        figures[key] = dict(
            idle=idle,
            loaded=loaded,
            ratio=ratio,
            idle_repeats=idle_values,
            loaded_repeats=loaded_values,
        )
    return dict(status=row_status(runs), figures=figures, runs=[asdict(r) for r in runs])


def print_summary(results: dict[str, dict], args: argparse.Namespace) -> None:
    """The table of all rows and the smallest loaded / idle ratio."""
    print(
        f"\n== training-phase rates, medians of {args.repeats} repeats; loaded: "
        f"{args.competitors} busy-loop competitor(s) =="
    )
    print(
        f"{'row':26s}{'figure':11s}{'idle':>10s}{'loaded':>10s}{'loaded/idle':>13s}  "
        f"{'status':8s} repeats idle | loaded"
    )
    ratios = []
    for name, result in results.items():
        for key, fig in result["figures"].items():
            label = "steps/s" if key == "steps_per_s" else "updates/s"
            ratio = "-" if fig["ratio"] is None else f"{fig['ratio']:.2f}"
            repeats = (
                " ".join(fmt(v) for v in fig["idle_repeats"])
                + " | "
                + " ".join(fmt(v) for v in fig["loaded_repeats"])
            )
            print(
                f"{name:26s}{label:11s}{fmt(fig['idle']):>10s}{fmt(fig['loaded']):>10s}"
                f"{ratio:>13s}  {result['status']:8s} {repeats}"
            )
            if fig["ratio"] is not None:
                ratios.append((fig["ratio"], f"{name} {label}"))
    if ratios:
        worst = min(ratios)
        print(f"minimum loaded/idle: {worst[0]:.2f} ({worst[1]})")
    else:
        print("minimum loaded/idle: n/a (no row has both figures)")


# -- host -----------------------------------------------------------------------------------------


def loop_seconds() -> float:
    """Seconds of a 10M-iteration Python ``for`` loop: the host's single-core speed now."""
    start = time.perf_counter()
    for _ in range(10_000_000):
        pass
    return time.perf_counter() - start


def host() -> dict:
    """The machine: cores, this process's affinity, load average, loop time, torch."""
    return dict(
        nproc=os.cpu_count(),
        affinity=sorted(os.sched_getaffinity(0)),
        load_average=os.getloadavg(),
        loop_10m_s=loop_seconds(),
        torch=torch.__version__,
        torch_threads=torch.get_num_threads(),
    )


def print_host(info: dict, args: argparse.Namespace) -> None:
    load = " ".join(f"{x:.2f}" for x in info["load_average"])
    print(
        f"host: nproc {info['nproc']}; affinity {info['affinity']}; load average {load}; "
        f"10M-iteration Python loop {info['loop_10m_s']:.2f} s"
    )
    print(
        f"torch {info['torch']}; torch threads {info['torch_threads']} (this process; each "
        "run sets its own, see the runner lines)"
    )
    print(
        f"{args.repeats} repeats (idle, loaded interleaved); {args.competitors} competitor(s) "
        f"(busy loop, not pinned); scale {args.scale}; timeout {args.timeout:.0f} s per run"
    )


# -- main -----------------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the step budgets")
    parser.add_argument(
        "--competitors", type=int, default=1, help="busy-loop processes (0: an idle/idle check)"
    )
    parser.add_argument(
        "--timeout", type=float, default=180.0, help="seconds per run, then it is stopped"
    )
    parser.add_argument("--json", type=Path, help="write all raw figures here")
    parser.add_argument(
        "--extra-args",
        default="",
        help='appended to every rlpyt train command, e.g. --extra-args="--torch-threads 1"',
    )
    args = parser.parse_args()
    if args.repeats < 1 or args.competitors < 0 or args.scale <= 0 or args.timeout <= 0:
        parser.error("--repeats takes 1 or more, --competitors 0 or more, --scale and --timeout >0")
    args.extra = shlex.split(args.extra_args)
    return args


def main() -> None:
    args = parse_args()
    # A SIGTERM unwinds like Ctrl-C, so the competitors and the current run are stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    info = host()
    print_host(info, args)
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="rlpyt_contention_") as work:
        for name in args.rows:
            results[name] = summarize(name, measure_row(name, args, Path(work)))
            write_json(args, info, results)  # after every row: an interrupted run keeps its rows
    print_summary(results, args)
    info["loop_10m_s_at_end"] = loop_seconds()
    print(f"10M-iteration Python loop at the end: {info['loop_10m_s_at_end']:.2f} s")
    write_json(args, info, results)
    if args.json:
        print(f"raw figures: {args.json}")


def write_json(args: argparse.Namespace, info: dict, results: dict[str, dict]) -> None:
    """All raw figures to ``--json`` (nothing without it)."""
    if args.json:
        report = dict(host=info, args=vars(args), rows=results)
        args.json.write_text(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted (the competitors and the current run are stopped)")
