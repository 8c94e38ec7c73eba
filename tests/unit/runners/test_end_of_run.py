"""The run's last line says how it ended: complete, failed, interrupted or stopped, and where the
last snapshot is (rlpyt printed "Training complete." after a crash too)."""

import os

import pytest

from rlpyt.utils.logging.context import logger_context
from tests.unit.runners.test_runner_loop import make_runner


def debug_log(run_dir):
    with open(os.path.join(run_dir, "debug.log")) as f:
        return f.read()


def fail_at(obj, method, itr, error):
    """Make ``obj.method`` raise ``error`` when called for iteration ``itr``."""
    original = getattr(obj, method)

    def failing(current_itr, *args):
        if current_itr == itr:
            raise error
        return original(current_itr, *args)

    setattr(obj, method, failing)


def count_shutdowns(runner):
    shutdowns = []
    sampler_shutdown = runner.sampler.shutdown
    runner.sampler.shutdown = lambda: shutdowns.append(1) or sampler_shutdown()
    return shutdowns


def test_a_finished_run_says_complete(tmp_path):
    runner = make_runner()
    with logger_context(str(tmp_path), 0, "ok", {}, override_prefix=True) as run_dir:
        runner.train()
    log = debug_log(run_dir)
    assert log.rstrip().endswith("Training complete.")
    assert "failed" not in log and "Last snapshot" not in log


def test_a_crash_says_failed_why_and_where_the_last_snapshot_is(tmp_path):
    runner = make_runner()
    shutdowns = count_shutdowns(runner)
    fail_at(runner.algo, "optimize_agent", 4, RuntimeError("worker 1 died"))
    with logger_context(str(tmp_path), 0, "crash", {}, snapshot_mode="last") as run_dir:
        with pytest.raises(RuntimeError, match="worker 1 died"):  # the caller still gets it
            runner.train()
    log = debug_log(run_dir)
    assert "Training complete." not in log
    snapshot = os.path.join(run_dir, "params.pkl")
    assert (
        "Training failed in iteration 4 (of 0-5): RuntimeError: worker 1 died. "
        f"Last snapshot: {snapshot} (iteration 3); continue with logger_context(..., "
        "resume=True) and runner.train(resume_from=True)." in log
    )
    assert shutdowns == [1]


def test_a_worker_failure_is_one_line_naming_the_workers_exception(tmp_path):
    """The last line holds no child traceback; the exception the caller gets keeps it."""
    import traceback  # noqa: PLC0415

    from rlpyt.samplers.parallel.worker import WorkerError  # noqa: PLC0415

    try:
        raise ValueError("the env exploded")
    except ValueError:
        details = traceback.format_exc()
    runner = make_runner()
    error = WorkerError(rank=1, env_index=3, env_ranks=[2, 3], details=details)
    fail_at(runner.sampler, "obtain_samples", 2, error)
    with logger_context(str(tmp_path), 0, "worker", {}, override_prefix=True) as run_dir:
        with pytest.raises(WorkerError, match="Traceback"):
            runner.train()
    log = debug_log(run_dir)
    assert "Traceback" not in log
    assert (
        "Training failed in iteration 2 (of 0-5): WorkerError: Sampler worker rank 1 failed at "
        "env index 3 (global): ValueError: the env exploded. No snapshot" in log
    )


def test_ctrl_c_says_interrupted_and_names_the_newest_numbered_snapshot(tmp_path):
    runner = make_runner()
    fail_at(runner.sampler, "obtain_samples", 2, KeyboardInterrupt())
    with logger_context(str(tmp_path), 0, "ctrl_c", {}, snapshot_mode="all") as run_dir:
        with pytest.raises(KeyboardInterrupt):
            runner.train()
    log = debug_log(run_dir)
    assert "Training complete." not in log
    snapshot = os.path.join(run_dir, "itr_1.pkl")
    assert (
        "Training interrupted (KeyboardInterrupt) in iteration 2 (of 0-5). "
        f"Last snapshot: {snapshot} (iteration 1)" in log
    )


def test_leaving_iter_train_early_says_stopped(tmp_path):
    runner = make_runner()
    with logger_context(str(tmp_path), 0, "stop", {}, override_prefix=True) as run_dir:
        for row in runner.iter_train():
            if row["Diagnostics/Iteration"] == 3:
                break
    log = debug_log(run_dir)
    assert "Training complete." not in log
    assert (
        "Training stopped by the caller (iter_train left) after iteration 3 (of 0-5). "
        "No snapshot: snapshot_mode is 'none' (pass snapshot_mode='last' to logger_context "
        "to be able to resume)." in log
    )


def test_leaving_iter_train_at_its_last_row_is_a_finished_run(tmp_path):
    runner = make_runner()
    with logger_context(str(tmp_path), 0, "last", {}, override_prefix=True) as run_dir:
        for row in runner.iter_train():
            if row["Diagnostics/Iteration"] == 5:  # the last iteration: all the work is done
                break
    log = debug_log(run_dir)
    assert log.rstrip().endswith("Training complete.") and "stopped" not in log


def test_a_failed_resume_says_failed_before_the_first_iteration(tmp_path):
    with logger_context(str(tmp_path), 0, "resume", {}, snapshot_mode="last") as run_dir:
        make_runner().train()
    snapshot = os.path.join(run_dir, "params.pkl")
    with open(snapshot, "wb") as f:
        f.write(b"truncated")
    runner = make_runner()
    shutdowns = count_shutdowns(runner)
    with logger_context(str(tmp_path), 0, "resume", {}, snapshot_mode="last", resume=True):
        with pytest.raises(Exception):  # noqa: B017, PT011 (the loader's own error)
            runner.train(resume_from=True)
    log = debug_log(run_dir)
    assert log.count("Training complete.") == 1  # the first run's, not the failed resume's
    assert "Training failed before the first iteration: " in log
    assert f"Last snapshot: {snapshot}; continue with" in log  # its iteration is not known
    assert shutdowns == [1]
