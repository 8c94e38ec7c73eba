"""run_experiments end to end with tiny train scripts: sweeps, failures, Ctrl-C / SIGTERM."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from rlpyt.utils.launching.affinity import AffinityError, encode_affinity, prepend_run_slot
from rlpyt.utils.launching.cpus import ALLOWED_CPUS_ENV, allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VARIANT, VariantLevel, make_variants

SCRIPTS = Path(__file__).parent / "launch_scripts"
TRAIN_RECORD = str(SCRIPTS / "train_record.py")
TRAIN_SLEEP = str(SCRIPTS / "train_sleep.py")
LAUNCH_SWEEP = str(SCRIPTS / "launch_sweep.py")


@pytest.fixture(autouse=True)
def no_recorded_cpus(monkeypatch):
    monkeypatch.delenv(ALLOWED_CPUS_ENV, raising=False)


def read_result(log_dir, run_id):
    return json.loads((Path(log_dir) / f"run_{run_id}" / "result.json").read_text())


def test_two_run_sweep_completes(tmp_path):
    n_core = min(2, len(allowed_cpus()))
    code = encode_affinity(n_cpu_core=n_core, cpu_per_run=1, hyperthread_offset=0, n_socket=1)
    level = VariantLevel([("algo", "learning_rate")], [(0.1,), (0.2,)], ["lr_0.1", "lr_0.2"])
    variants, log_dirs = make_variants(level)

    summary = run_experiments(
        TRAIN_RECORD, code, "sweep", 1, variants, log_dirs,
        common_args=("default",), root_log_dir=str(tmp_path), poll_interval=0.05,
    )  # fmt: skip

    exp_dir = Path(summary.exp_dir)
    assert exp_dir.is_relative_to(tmp_path) and exp_dir.name == "sweep"
    assert summary.failed == [] and [r.returncode for r in summary.runs] == [0, 0]
    tree = (exp_dir / "experiments_tree.txt").read_text()
    assert f"process ID: {os.getpid()}" in tree and "lr_0.1\nlr_0.2\n" in tree
    assert (exp_dir / "num_launched.txt").read_text().strip().endswith("2 out of 2.")
    for record, variant, log_dir in zip(summary.runs, variants, log_dirs, strict=True):
        assert record.log_dir == str(exp_dir / log_dir)
        assert json.loads((exp_dir / log_dir / VARIANT).read_text()) == variant
        result = read_result(record.log_dir, 0)
        slot_code = prepend_run_slot(record.run_slot, code)
        assert result["argv"] == [slot_code, record.log_dir, "0", "default"]
        assert result["config"]["algo"] == variant["algo"]
        if shutil.which("taskset") and result["pinned"] is not None:
            assert result["pinned"] == result["master_cpus"]
    if n_core == 2:
        assert sorted(r.run_slot for r in summary.runs) == [0, 1]


def test_more_runs_than_slots_are_queued(tmp_path):
    code = encode_affinity(n_cpu_core=1, cpu_per_run=1, hyperthread_offset=0, n_socket=1)
    level = VariantLevel([("algo", "learning_rate")], [(0.1,), (0.2,)], ["a", "b"])
    variants, log_dirs = make_variants(level)

    summary = run_experiments(
        TRAIN_RECORD, code, "queued", 2, variants, log_dirs,
        common_args=("default",), root_log_dir=str(tmp_path), poll_interval=0.05,
    )  # fmt: skip

    assert [(Path(r.log_dir).name, r.run_ID, r.run_slot) for r in summary.runs] == [
        ("a", 0, 0),
        ("b", 0, 0),
        ("a", 1, 0),
        ("b", 1, 0),
    ]
    assert summary.failed == []
    for record in summary.runs:
        assert read_result(record.log_dir, record.run_ID)["argv"][2] == str(record.run_ID)
    num_launched = Path(summary.exp_dir, "num_launched.txt").read_text()
    assert num_launched.strip().endswith("4 out of 4.")


def test_failing_run_is_reported_and_the_other_completes(tmp_path):
    code = encode_affinity(n_cpu_core=2, hyperthread_offset=0, n_socket=1, set_affinity=False)
    variants, log_dirs = make_variants(VariantLevel([("exit_code",)], [(3,), (0,)], ["bad", "ok"]))

    with pytest.warns(RuntimeWarning, match=r"1 of 2 runs failed:\n  exit code 3: .*bad"):
        summary = run_experiments(
            TRAIN_RECORD, code, "failing", 1, variants, log_dirs,
            common_args=("default",), root_log_dir=str(tmp_path), poll_interval=0.05,
        )  # fmt: skip

    (failed,) = summary.failed
    assert failed.returncode == 3 and Path(failed.log_dir).name == "bad"
    ok_dir = Path(summary.exp_dir, "ok")
    assert read_result(ok_dir, 0)["config"]["exit_code"] == 0


def test_mismatched_inputs_are_explained(tmp_path):
    with pytest.raises(ValueError, match="2 variants but 1 log_dirs"):
        run_experiments(
            TRAIN_RECORD, "1cpu_0gpu_1cpr", "x", 1, [{}, {}], ["a"], root_log_dir=str(tmp_path)
        )


def gone(pid):
    """Not running: absent, or a zombie waiting for init (orphans are reaped by init, not us)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def wait_for_pid_files(root, launcher, n_files):
    deadline = time.monotonic() + 120  # A guard against hangs, not a timing assertion.
    while time.monotonic() < deadline:
        files = sorted(root.rglob("pids.json"))
        if len(files) == n_files:
            return [json.loads(f.read_text()) for f in files]
        assert launcher.poll() is None, "the launcher exited before its runs started"
        time.sleep(0.05)
    raise AssertionError(f"{n_files} runs did not start")


@pytest.mark.parametrize(
    "sig, outcome", [(signal.SIGINT, "KeyboardInterrupt"), (signal.SIGTERM, "SystemExit(143)")]
)
def test_interrupt_stops_and_reaps_every_child(tmp_path, sig, outcome):
    report = tmp_path / "report.json"
    launcher = subprocess.Popen(
        [sys.executable, LAUNCH_SWEEP, str(tmp_path), TRAIN_SLEEP, str(report)]
    )
    pids = []
    try:
        pids = [pid for run in wait_for_pid_files(tmp_path, launcher, 2) for pid in run.values()]
        assert not any(gone(pid) for pid in pids)  # Children and grandchildren are running.
        launcher.send_signal(sig)  # Only to the launcher, unlike Ctrl-C in a terminal.
        launcher.wait(timeout=120)
    finally:
        for pid in [launcher.pid, *pids]:
            if not gone(pid):
                psutil.Process(pid).kill()
    assert json.loads(report.read_text()) == dict(outcome=outcome, children=[])
    assert all(gone(pid) for pid in pids)


def test_impossible_affinity_fails_before_any_folder_is_made(tmp_path, monkeypatch):
    monkeypatch.setenv(ALLOWED_CPUS_ENV, "0,1")
    with pytest.raises(AffinityError, match=r"'2slt_4cpu_0gpu_1cpr_0hto' needs 3 CPUs"):
        run_experiments(
            TRAIN_RECORD, "4cpu_0gpu_1cpr_0hto", "x", 1, [{}], ["a"], root_log_dir=str(tmp_path)
        )
    assert list(tmp_path.iterdir()) == []


TRAIN_PROGRESS = str(SCRIPTS / "train_progress.py")


def sweep_of_two(tmp_path, exit_codes, **kwargs):
    code = encode_affinity(n_cpu_core=2, hyperthread_offset=0, n_socket=1, set_affinity=False)
    level = VariantLevel(
        [("algo", "learning_rate"), ("exit_code",)],
        [(0.1, exit_codes[0]), (0.2, exit_codes[1])],
        ["lr_0.1", "lr_0.2"],
    )
    variants, log_dirs = make_variants(level)
    return run_experiments(
        TRAIN_PROGRESS, code, "quiet", 1, variants, log_dirs, common_args=("default",),
        root_log_dir=str(tmp_path), poll_interval=0.05, **kwargs,
    )  # fmt: skip


def test_sweep_runs_write_to_their_folders_and_terminal_shows_a_line_per_run(tmp_path, capfd):
    """Each run's tables go to its own folder, not interleaved on the terminal (5,600 lines)."""
    with pytest.warns(RuntimeWarning, match=r"1 of 2 runs failed:\n  exit code 4: .*log: .*"):
        summary = sweep_of_two(tmp_path, (0, 4), progress_interval=0.1)

    out, err = capfd.readouterr()
    assert "TABLE-ROW" not in out + err and "TRACEBACK-LIKE" not in out + err
    ok, bad = (Path(summary.exp_dir, d, "run_0", "console.log") for d in ("lr_0.1", "lr_0.2"))
    assert [r.console_log for r in summary.runs] == [str(ok), str(bad)]
    assert ok.read_text().count("TABLE-ROW") == 3 and "TRACEBACK-LIKE" in bad.read_text()
    assert f"[1/2] lr_0.1/run_0: started (slot 0), console output in {ok}" in out
    assert f"[2/2] lr_0.2/run_0: started (slot 1), console output in {bad}" in out
    assert "lr_0.1/run_0: done, 1536 steps, ReturnAverage 30.1" in out
    assert f"lr_0.2/run_0: FAILED (exit code 4), 1536 steps, ReturnAverage 30.2; see {bad}" in out
    # Progress lines: rows come 0.3 s apart, the launcher reads every 0.1 s (when not starved).
    assert re.search(r"lr_0.[12]/run_0: (512|1024) steps, ReturnAverage [12]0.[12]\n", out)
    assert len(out.splitlines()) < 20


def test_runs_to_files_false_keeps_rlpyts_shared_terminal(tmp_path, capfd):
    summary = sweep_of_two(tmp_path, (0, 0), runs_to_files=False)

    out, _ = capfd.readouterr()
    assert out.count("TABLE-ROW") == 6 and "started (slot" not in out
    assert summary.failed == [] and all(r.console_log is None for r in summary.runs)
    assert not list(Path(summary.exp_dir).rglob("console.log"))


def test_latest_progress_reads_only_complete_rows(tmp_path):
    from rlpyt.utils.launching.exp_launcher import _latest_progress

    progress = tmp_path / "progress.csv"
    assert _latest_progress(str(tmp_path)) is None  # Not written yet.
    progress.write_text("Diagnostics/CumSteps,ReturnAverage\n")
    assert _latest_progress(str(tmp_path)) is None
    progress.write_text("Diagnostics/CumSteps,ReturnAverage\n512,21.123456\n1024,4")
    assert _latest_progress(str(tmp_path)) == ("512", "21.12")  # The partial row is skipped.
    progress.write_text("Diagnostics/Iteration\n0\n")
    assert _latest_progress(str(tmp_path)) is None  # Not an rlpyt table: no progress line.
