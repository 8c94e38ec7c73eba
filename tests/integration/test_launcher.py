"""run_experiments end to end with tiny train scripts: sweeps, failures, Ctrl-C / SIGTERM."""

import json
import os
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
