"""The rlpyt group's failure reports: a known failure is one message (rc 1), its traceback in
the run's debug.log and, with --verbose, on the terminal; any other exception keeps its traceback.
"""

import traceback

import pytest
from click.testing import CliRunner

from rlpyt.cli import train as train_module
from rlpyt.cli.errors import (
    failure_message,
    is_known_failure,
    record_traceback,
    reported_by_runner,
)
from rlpyt.cli.main import rlpyt
from rlpyt.runners.divergence import DivergenceError
from rlpyt.samplers.parallel.worker import WorkerError

TRAIN = ["train", "ppo", "--env", "CartPole-v1", "--steps", "256"]


def worker_error():
    try:
        raise ValueError("the env exploded")
    except ValueError:
        details = traceback.format_exc()
    return WorkerError(rank=1, env_index=3, env_ranks=[2, 3], details=details)


@pytest.fixture
def failing_run(tmp_path, monkeypatch):
    """``rlpyt train`` whose run raises the exception ``failing_run.error`` inside its folder."""
    monkeypatch.chdir(tmp_path)
    state = {"error": None}

    def run_training(spec, **kwargs):
        run_dir = tmp_path / "runs" / "run_0"
        run_dir.mkdir(parents=True)
        (run_dir / "debug.log").write_text("a logged line\n")
        try:
            if state.get("logged"):
                with reported_by_runner():
                    raise state["error"]
            raise state["error"]
        except Exception as error:
            record_traceback(error, str(run_dir))
            raise

    monkeypatch.setattr(train_module, "run_training", run_training)
    return state


def test_a_divergence_is_one_message_and_its_traceback_goes_to_debug_log(tmp_path, failing_run):
    failing_run["error"] = DivergenceError(4, "iteration 4", "OptInfo field 'loss' (nan)", "")
    result = CliRunner().invoke(rlpyt, TRAIN)
    assert result.exit_code == 1, result.output
    assert "Error: Training diverged in iteration 4: OptInfo field 'loss'" in result.output
    assert "Traceback" not in result.output
    debug_log = tmp_path / "runs" / "run_0" / "debug.log"
    assert f"The traceback is in {debug_log}" in result.output
    logged = debug_log.read_text()
    assert logged.startswith("a logged line\nTraceback (most recent call last)")
    assert "DivergenceError: Training diverged in iteration 4" in logged


def test_a_failure_the_runner_logged_is_not_repeated(tmp_path, failing_run):
    failing_run["error"] = DivergenceError(4, "iteration 4", "OptInfo field 'loss' (nan)", "")
    failing_run["logged"] = True
    result = CliRunner().invoke(rlpyt, TRAIN)
    assert result.exit_code == 1, result.output
    debug_log = tmp_path / "runs" / "run_0" / "debug.log"
    assert (
        result.output.strip() == f"(The traceback is in {debug_log}; --verbose prints it here too.)"
    )


def test_verbose_also_prints_the_traceback(failing_run):
    failing_run["error"] = DivergenceError(4, "iteration 4", "OptInfo field 'loss' (nan)", "")
    result = CliRunner().invoke(rlpyt, [*TRAIN, "--verbose"])
    assert result.exit_code == 1, result.output
    assert "Traceback (most recent call last)" in result.output
    assert "Error: Training diverged in iteration 4" in result.output


def test_a_worker_failure_is_one_line_naming_the_workers_exception(failing_run):
    failing_run["error"] = worker_error()
    result = CliRunner().invoke(rlpyt, TRAIN)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    (line,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert line == (
        "Error: Sampler worker rank 1 failed at env index 3 (global): ValueError: the env exploded"
    )


def test_an_unknown_exception_is_a_bug_and_keeps_its_traceback(failing_run):
    failing_run["error"] = ZeroDivisionError("a bug")
    result = CliRunner().invoke(rlpyt, TRAIN)
    assert isinstance(result.exception, ZeroDivisionError)  # not turned into a message
    assert "Error:" not in result.output


def test_usage_errors_keep_rc_2_and_print_no_traceback(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(rlpyt, ["train", "--resume", str(tmp_path), "--verbose"])
    assert result.exit_code == 2 and "is not a run folder" in result.output, result.output


def test_known_failures_are_matched_by_class_subclasses_included():
    class LateDivergenceError(DivergenceError):
        pass

    assert is_known_failure(worker_error())
    assert is_known_failure(LateDivergenceError(0, "iteration 0", "x", ""))
    assert not is_known_failure(RuntimeError("x"))
    assert failure_message(RuntimeError("")) == "RuntimeError"


def test_verbose_is_on_the_commands_that_run_something():
    for command in ("train", "sweep", "tune", "play"):
        result = CliRunner().invoke(rlpyt, [command, "--help"])
        assert "--verbose" in result.output, command


def test_a_run_id_whose_folder_holds_a_run_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_dir = tmp_path / "runs" / "run_0"
    run_dir.mkdir(parents=True)
    (run_dir / "progress.csv").write_text("Diagnostics/CumSteps\n256\n")
    args = [*TRAIN, "--run-id", "0", "--log-dir", str(tmp_path / "runs")]
    result = CliRunner().invoke(rlpyt, args)
    assert result.exit_code == 2, result.output
    assert f"{run_dir} holds a run already" in result.output
    assert f"rlpyt train --resume {run_dir}" in " ".join(result.output.split())
    assert (run_dir / "progress.csv").read_text() == "Diagnostics/CumSteps\n256\n"


def test_a_warning_during_a_command_is_one_line_without_its_source_line(tmp_path):
    """``rlpyt plot`` over a run without the column yet warns: one line, no file:line prefix."""
    run = tmp_path / "young" / "run_0"
    run.mkdir(parents=True)
    (run / "progress.csv").write_text("Diagnostics/CumSteps,Other\n100,1\n")
    (run / "params.json").write_text("{}")
    old = tmp_path / "old" / "run_0"
    old.mkdir(parents=True)
    (old / "progress.csv").write_text("Diagnostics/CumSteps,ReturnAverage\n100,1\n200,2\n")
    (old / "params.json").write_text("{}")
    argv = ["plot", str(tmp_path), "--out", str(tmp_path / "p.png")]
    result = CliRunner().invoke(rlpyt, argv)
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if "yet" in line]
    assert len(warned) == 1 and warned[0].startswith("Warning: "), result.stderr
    assert "UserWarning" not in result.stderr and ".py:" not in result.stderr
