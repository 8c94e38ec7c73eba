"""Run a sweep on one machine: each run is a train-script process on its own CPU/GPU slot.

Part of the launching box; called from launch scripts. :func:`run_experiments` queues
``runs_per_setting`` runs of every variant onto the run slots of an affinity code and starts
each with :func:`launch_experiment` as::

    [taskset -c <cpus>] <python> <script> <slot_affinity_code> <log_dir> <run_ID> <*args>

(the train-script command-line contract; ``run_ID`` arrives as a string). Each run's stdout and
stderr go to ``<log_dir>/run_<run_ID>/console.log``; the terminal gets one line per run as it
starts, its progress (read from its ``progress.csv``) and whether it finished or failed. A
failed run does not stop the sweep; failures are reported at the end. Invariant: when
:func:`run_experiments` returns or raises (Ctrl-C, SIGTERM), none of its child processes is
left running or unreaped.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import psutil

from rlpyt.utils.launching.affinity import affinity_from_code, get_n_run_slots, prepend_run_slot
from rlpyt.utils.launching.variant import save_variant

POLL_INTERVAL = 0.2  # Seconds between checks for a free slot.
STOP_TIMEOUT = 10.0  # Seconds a child gets to exit after SIGINT, then again after SIGTERM.
PROGRESS_INTERVAL = 10.0  # Seconds between a run's progress lines on the terminal.
CONSOLE_LOG = "console.log"  # A run's stdout and stderr, in its run folder.


@dataclasses.dataclass
class RunRecord:
    """One launched run: where it logs, where it ran, and how it ended (None: still running)."""

    log_dir: str
    run_ID: int  # noqa: N815 (rlpyt's name, as in logger_context)
    run_slot: int
    command: list[str]
    returncode: int | None = None
    console_log: str | None = None  # The run's stdout + stderr; None: they went to the terminal.


@dataclasses.dataclass
class ExperimentsSummary:
    """What :func:`run_experiments` launched, under ``exp_dir``."""

    exp_dir: str
    runs: list[RunRecord]

    @property
    def failed(self) -> list[RunRecord]:
        """Runs that exited with a non-zero code (negative: killed by that signal)."""
        return [r for r in self.runs if r.returncode not in (0, None)]


def _log(message: str) -> None:
    try:
        from rlpyt.utils.logging.logger import log  # noqa: PLC0415 (written in parallel)
    except ImportError:
        import logging  # noqa: PLC0415

        logging.getLogger(__name__).info(message)
        return
    log(message)


def log_exps_tree(exp_dir: str, log_dirs: Sequence[str], runs_per_setting: int) -> None:
    """Write ``experiments_tree.txt``: manager pid, settings and runs counts, log dirs."""
    os.makedirs(exp_dir, exist_ok=True)
    with open(os.path.join(exp_dir, "experiments_tree.txt"), "w", encoding="utf-8") as f:
        f.write(f"Experiment manager process ID: {os.getpid()}.\n")
        f.write(
            f"Number of settings (experiments) to run: {len(log_dirs)}  "
            f"({runs_per_setting * len(log_dirs)}).\n\n"
        )
        f.writelines(f"{log_dir}\n" for log_dir in log_dirs)


def log_num_launched(exp_dir: str, n_launched: int, total: int) -> None:
    """Rewrite ``num_launched.txt`` with the launch count so far."""
    with open(os.path.join(exp_dir, "num_launched.txt"), "w", encoding="utf-8") as f:
        f.write(f"Experiments launched so far: {n_launched} out of {total}.\n")


def taskset_prefix(affinity: dict | Sequence[dict]) -> list[str]:
    """``["taskset", "-c", "<cpus>"]`` for a run, or ``[]`` when pinning is off or impossible.

    Pinning needs ``set_affinity``, the ``taskset`` program, and every CPU of ``all_cpus``
    inside this process's ``os.sched_getaffinity(0)``.
    """
    entries: Sequence[dict] = [affinity] if isinstance(affinity, dict) else affinity
    if not all(entry.get("set_affinity", True) for entry in entries):
        return []
    cpus = sorted({c for entry in entries for c in entry.get("all_cpus", ())})
    if not cpus or shutil.which("taskset") is None or not hasattr(os, "sched_getaffinity"):
        return []
    if not set(cpus) <= os.sched_getaffinity(0):
        return []
    return ["taskset", "-c", ",".join(str(c) for c in cpus)]


def _first_cuda_idx(affinity: dict | Sequence[dict]) -> int | None:
    entries: Sequence[dict] = [affinity] if isinstance(affinity, dict) else affinity
    for entry in entries:
        for node in (entry, *entry.get("optimizer", ())):
            if node.get("cuda_idx") is not None:
                return node["cuda_idx"]
    return None


def launch_experiment(
    script: str,
    run_slot: int,
    affinity_code: str,
    log_dir: str,
    variant: dict,
    run_ID: int,  # noqa: N803 (rlpyt's keyword)
    args: Sequence,
    python_executable: str | None = None,
    set_egl_device: bool = False,
    console_log: str | None = None,
) -> subprocess.Popen:
    """Save ``variant`` into ``log_dir`` and start one run of ``script`` in ``run_slot``.

    Args:
        script: train script path (relative to the current directory, as rlpyt's were).
        run_slot: slot index; prepended to ``affinity_code`` for the script.
        affinity_code: code without run slot (from ``encode_affinity``).
        log_dir: the setting's log folder; the script makes ``run_<run_ID>`` inside.
        variant: the overrides for this setting, saved as ``variant_config.json``.
        run_ID: run number within the setting.
        args: extra command-line arguments (e.g. the config key).
        python_executable: interpreter, default ``sys.executable``.
        set_egl_device: set ``EGL_DEVICE_ID`` to the run's CUDA index (headless rendering).
        console_log: file for the run's stdout and stderr (appended to; its folder is made);
            None (default, as rlpyt): they go to this process's terminal.

    Returns:
        The child process handle.
    """
    slot_code = prepend_run_slot(run_slot, affinity_code)
    affinity = affinity_from_code(slot_code)  # Also fails early on impossible requests.
    env = dict(os.environ)
    cuda_idx = _first_cuda_idx(affinity)
    if set_egl_device and cuda_idx is not None:
        env["EGL_DEVICE_ID"] = str(cuda_idx)
    command = taskset_prefix(affinity) + [python_executable or sys.executable, script]
    command += [slot_code, log_dir, str(run_ID)] + [str(a) for a in args]
    save_variant(variant, log_dir)
    if console_log is None:
        _log("Launching: " + " ".join(command))
        return subprocess.Popen(command, env=env)
    os.makedirs(os.path.dirname(console_log) or ".", exist_ok=True)
    with open(console_log, "ab") as output:  # The child keeps its own copy of the descriptor.
        output.write(("Launching: " + " ".join(command) + "\n").encode())
        output.flush()
        return subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)


def run_experiments(
    script: str,
    affinity_code: str,
    experiment_title: str,
    runs_per_setting: int,
    variants: Sequence[dict],
    log_dirs: Sequence[str],
    common_args: Sequence | None = None,
    runs_args: Sequence[Sequence] | None = None,
    set_egl_device: bool = False,
    root_log_dir: str | None = None,
    poll_interval: float = POLL_INTERVAL,
    python_executable: str | None = None,
    stop_timeout: float = STOP_TIMEOUT,
    *,
    runs_to_files: bool = True,
    progress_interval: float = PROGRESS_INTERVAL,
) -> ExperimentsSummary:
    """Run every variant ``runs_per_setting`` times, as many at once as the code has run slots.

    The sweep folder is ``get_log_dir(experiment_title, root_log_dir)``
    (``<root>/local/<yyyymmdd>/<HHMMSS>/<experiment_title>``) holding ``experiments_tree.txt``,
    ``num_launched.txt`` and one folder per entry of ``log_dirs``. Runs go out in rlpyt's order
    (run 0 of every setting, then run 1, ...), each to the first free slot. A run that fails
    does not stop the others; failures are logged, warned about, and listed in the summary.
    On Ctrl-C or SIGTERM every child gets SIGINT, then SIGTERM, then SIGKILL (``stop_timeout``
    seconds apart), its leftover descendants are killed, all are reaped, and the exception
    propagates (SIGTERM as ``SystemExit(143)``).

    Args:
        script: train script, called per the command-line contract (module docstring).
        affinity_code: machine resources from ``encode_affinity`` (no run slot).
        experiment_title: name of the sweep folder.
        runs_per_setting: runs (seeds) per variant, ``run_ID`` 0..n-1.
        variants: one overrides dict per setting (from ``make_variants``).
        log_dirs: one relative folder per setting (from ``make_variants``).
        common_args: arguments for every run, e.g. ``(config_key,)``.
        runs_args: per-setting extra arguments, same length as ``variants``.
        set_egl_device: export ``EGL_DEVICE_ID`` (the run's CUDA index) to each run.
        root_log_dir: root instead of ``<cwd>/data`` (tests, shared scratch disks).
        poll_interval: seconds between checks for finished runs.
        python_executable: interpreter for the runs, default ``sys.executable``.
        stop_timeout: seconds each stop signal waits before escalating.
        runs_to_files: True (default): each run's stdout and stderr go to
            ``<log_dir>/run_<run_ID>/console.log`` and the terminal shows one line per run at
            start, progress lines, and one when it is done or failed (with its log's path).
            False: rlpyt's behaviour, every run writes to this process's terminal.
        progress_interval: seconds between a run's progress lines (steps, latest
            ReturnAverage from its progress.csv); only with ``runs_to_files``.

    Returns:
        The sweep folder and one :class:`RunRecord` per run, with exit codes.
    """
    runs_args = _check_sweep(variants, log_dirs, runs_args)
    n_slots = get_n_run_slots(affinity_code)
    if n_slots < 1:
        raise ValueError(f"Affinity code {affinity_code!r} leaves no run slot.")
    for run_slot in range(n_slots):  # Impossible requests fail before anything starts.
        affinity_from_code(prepend_run_slot(run_slot, affinity_code))
    from rlpyt.utils.logging.context import get_log_dir  # noqa: PLC0415 (keeps imports light)

    exp_dir = get_log_dir(experiment_title, root_log_dir=root_log_dir)
    common = tuple(common_args or ())
    queue = [
        (run_ID, variant, os.path.join(exp_dir, log_dir), common + tuple(run_args))
        for run_ID in range(runs_per_setting)
        for variant, log_dir, run_args in zip(variants, log_dirs, runs_args, strict=True)
    ]
    log_exps_tree(exp_dir, log_dirs, runs_per_setting)

    def launch(run_slot: int, run_id: int, variant: dict, log_dir: str, args: tuple):
        console_log = _console_log(log_dir, run_id) if runs_to_files else None
        return launch_experiment(
            script, run_slot, affinity_code, log_dir, variant, run_id, args,
            python_executable=python_executable, set_egl_device=set_egl_device,
            console_log=console_log,
        )  # fmt: skip

    sweep = _Sweep(launch, n_slots, queue, exp_dir, progress_interval if runs_to_files else None)
    with _sigterm_raises_system_exit():
        try:
            while sweep.step():
                time.sleep(poll_interval)
        finally:
            sweep.stop(stop_timeout)
    summary = ExperimentsSummary(exp_dir, sweep.records)
    _report_failures(summary)
    return summary


def _check_sweep(
    variants: Sequence[dict], log_dirs: Sequence[str], runs_args: Sequence[Sequence] | None
) -> list[Sequence]:
    if len(variants) != len(log_dirs):
        raise ValueError(
            f"Got {len(variants)} variants but {len(log_dirs)} log_dirs; use both outputs of "
            f"make_variants()."
        )
    if runs_args is None:
        return [()] * len(variants)
    if len(runs_args) != len(variants):
        raise ValueError(f"runs_args has {len(runs_args)} entries for {len(variants)} variants.")
    return list(runs_args)


def _console_log(log_dir: str, run_ID: int) -> str:  # noqa: N803
    return os.path.join(log_dir, f"run_{run_ID}", CONSOLE_LOG)


def _latest_progress(run_dir: str) -> tuple[str, str] | None:
    """``(cum_steps, return_average)`` of the last complete row of ``progress.csv``, or None.

    Read while the run writes it: a missing file, a partial last line or a missing column
    just means no progress to show yet.
    """
    try:
        with open(os.path.join(run_dir, "progress.csv"), encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError:
        return None
    lines = text.splitlines()[: text.count("\n")]  # Only newline-terminated rows.
    if len(lines) < 2:
        return None
    header, last = next(csv.reader([lines[0]])), next(csv.reader([lines[-1]]))
    row = dict(zip(header, last, strict=False))
    steps, value = row.get("Diagnostics/CumSteps"), row.get("ReturnAverage")
    if steps is None or value is None:
        return None
    return steps, _short_number(value)


def _short_number(text: str) -> str:
    try:
        value = float(text)
    except ValueError:
        return text
    return f"{value:.4g}" if math.isfinite(value) else text


class _Sweep:
    """Queue of runs over run slots; ``step`` reaps finished runs and fills free slots.

    With ``progress_interval`` set (runs write to their console.log), it also says on the
    terminal when each run starts, how far it got (at most every ``progress_interval``
    seconds per run) and how it ended.
    """

    def __init__(
        self, launch, n_slots: int, queue: list, exp_dir: str, progress_interval: float | None
    ):
        self.launch = launch
        self.progress_interval = progress_interval
        self.last_progress: dict[int, tuple[float, tuple[str, str] | None]] = {}
        self.slots: list[tuple[subprocess.Popen, RunRecord] | None] = [None] * n_slots
        self.queue = list(queue)
        self.total = len(queue)
        self.exp_dir = exp_dir
        self.records: list[RunRecord] = []

    def step(self) -> bool:
        """Reap finished runs, start queued ones; True while anything is queued or running."""
        for run_slot, entry in enumerate(self.slots):
            if entry is not None and entry[0].poll() is not None:
                self._finish(run_slot, entry)
            if self.slots[run_slot] is None and self.queue:
                self._start(run_slot, *self.queue.pop(0))
            elif (running := self.slots[run_slot]) is not None:
                self._report_progress(run_slot, running[1])
        return any(entry is not None for entry in self.slots)

    def _start(self, run_slot: int, run_id: int, variant: dict, log_dir: str, args: tuple) -> None:
        proc = self.launch(run_slot, run_id, variant, log_dir, args)
        record = RunRecord(log_dir, run_id, run_slot, list(proc.args))
        self.slots[run_slot] = (proc, record)
        self.records.append(record)
        log_num_launched(self.exp_dir, len(self.records), self.total)
        if self.progress_interval is not None:
            record.console_log = _console_log(log_dir, run_id)
            self.last_progress[run_slot] = (time.monotonic(), None)
            count = f"[{len(self.records)}/{self.total}]"
            _log(
                f"{count} {self._label(record)}: started (slot {run_slot}), "
                f"console output in {record.console_log}"
            )

    def _label(self, record: RunRecord) -> str:
        """``<setting>/run_<run_ID>``, e.g. ``lr_0.001/run_0``."""
        setting = os.path.relpath(record.log_dir, self.exp_dir).replace(os.sep, "/")
        return f"{setting}/run_{record.run_ID}"

    def _report_progress(self, run_slot: int, record: RunRecord) -> None:
        if self.progress_interval is None:
            return
        last_time, last_seen = self.last_progress[run_slot]
        if time.monotonic() - last_time < self.progress_interval:
            return
        progress = _latest_progress(os.path.dirname(record.console_log or ""))
        self.last_progress[run_slot] = (time.monotonic(), progress or last_seen)
        if progress is not None and progress != last_seen:
            steps, value = progress
            _log(f"{self._label(record)}: {steps} steps, ReturnAverage {value}")

    def _finish(self, run_slot: int, entry: tuple[subprocess.Popen, RunRecord]) -> None:
        proc, record = entry
        record.returncode = proc.returncode
        self.slots[run_slot] = None
        if record.console_log is not None:
            self._report_end(record)
        elif record.returncode != 0:
            _log(
                f"Run failed (exit code {record.returncode}): {record.log_dir} run {record.run_ID}"
            )

    def _report_end(self, record: RunRecord) -> None:
        progress = _latest_progress(os.path.dirname(record.console_log or ""))
        latest = f", {progress[0]} steps, ReturnAverage {progress[1]}" if progress else ""
        if record.returncode == 0:
            _log(f"{self._label(record)}: done{latest}")
        else:
            _log(
                f"{self._label(record)}: FAILED (exit code {record.returncode}){latest}; "
                f"see {record.console_log}"
            )

    def stop(self, timeout: float) -> None:
        """Stop and reap every child still running (nothing to do after a normal finish)."""
        procs = [entry[0] for entry in self.slots if entry is not None]
        stop_processes(procs, timeout)
        for run_slot, entry in enumerate(self.slots):
            if entry is not None:
                self._finish(run_slot, entry)


def stop_processes(procs: Sequence[subprocess.Popen], timeout: float = STOP_TIMEOUT) -> None:
    """SIGINT, then SIGTERM, then SIGKILL each live process; kill leftover descendants; reap.

    SIGINT first lets a Python train script run its ``finally`` blocks (sampler shutdown).
    Descendants are collected before each signal, since an exiting child orphans them.
    """
    descendants: dict[int, psutil.Process] = {}
    stages = ((signal.SIGINT, timeout), (signal.SIGTERM, timeout), (None, None))
    for sig, wait in stages:
        alive = [p for p in procs if p.poll() is None]
        for proc in alive:
            descendants.update((d.pid, d) for d in _descendants(proc.pid))
            proc.send_signal(sig) if sig is not None else proc.kill()
        _wait_all(alive, wait)
    for proc in descendants.values():
        try:
            proc.kill()
        except psutil.Error:  # Already gone (or pid reused: psutil refuses to signal it).
            pass


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _wait_all(procs: Sequence[subprocess.Popen], timeout: float | None) -> None:
    """Wait for (and reap) ``procs``, at most ``timeout`` seconds in all; None waits forever."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for proc in procs:
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            proc.wait(remaining)
        except subprocess.TimeoutExpired:
            return
        except KeyboardInterrupt:  # A second Ctrl-C: escalate now instead of waiting.
            return


@contextmanager
def _sigterm_raises_system_exit() -> Iterator[None]:
    """Turn SIGTERM into ``SystemExit(143)`` so ``finally`` blocks stop the children."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _report_failures(summary: ExperimentsSummary) -> None:
    if not summary.failed:
        _log(f"All {len(summary.runs)} runs finished: {summary.exp_dir}")
        return
    lines = [
        f"  exit code {r.returncode}: {r.log_dir} run_ID {r.run_ID} (slot {r.run_slot})"
        + (f", log: {r.console_log}" if r.console_log else "")
        for r in summary.failed
    ]
    message = f"{len(summary.failed)} of {len(summary.runs)} runs failed:\n" + "\n".join(lines)
    _log(message)
    warnings.warn(message, RuntimeWarning, stacklevel=3)
