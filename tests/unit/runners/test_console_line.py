"""The console progress line: after every row on a terminal, ETA from the rate since (re)start;
and docs/metrics.md says when StepsPerSecond is nan as the runner does it."""

import io
import math
import os
import sys

import pytest

from rlpyt.runners import diagnostics as diagnostics_module
from rlpyt.runners.diagnostics import TrainingDiagnostics
from rlpyt.utils.logging.context import logger_context
from tests.unit.runners.test_runner_loop import make_runner

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "metrics.md")


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def console_lines(text):
    return [line.split("| ", 1)[1] for line in text.splitlines() if "steps/s | ETA" in line]


@pytest.fixture
def clock(monkeypatch):
    clock = Clock(1000.0)
    monkeypatch.setattr(diagnostics_module.time, "time", clock)
    return clock


def use_terminal(monkeypatch):
    """Make stdout a terminal (in the test body: pytest resets sys.stdout between phases)."""
    stream = Terminal()
    monkeypatch.setattr(sys, "stdout", stream)
    return stream


def test_on_a_terminal_every_row_gets_a_line_however_close_the_rows(clock, monkeypatch):
    terminal = use_terminal(monkeypatch)
    diag = TrainingDiagnostics((), itr_batch_size=64, n_itr=6)  # starts at t = 1000
    for itr in range(6):
        clock.now += 0.5  # log points 0.5 s apart: rlpyt's 5 s limit printed nothing
        diag.store(itr, [], None)
        diag.console_line(itr, log_point=True)
        diag.mark_logged(itr, update_counter=0)
    lines = console_lines(terminal.getvalue())
    assert len(lines) == 6
    assert lines[0] == "itr 1/6 | 64 steps | 128 steps/s | ETA 0:00:02"
    assert lines[-1] == "itr 6/6 | 384 steps | 128 steps/s | ETA 0:00:00"


def test_off_a_terminal_rows_get_no_line_but_slow_stretches_still_do(clock, capsys):
    diag = TrainingDiagnostics((), itr_batch_size=64, n_itr=6)
    clock.now += 1.0
    diag.store(0, [], None)
    diag.console_line(0, log_point=True)  # stdout captured: not a terminal
    diag.mark_logged(0, update_counter=0)
    assert console_lines(capsys.readouterr().out) == []
    clock.now += 6.0  # more than CONSOLE_LINE_SECONDS since the last row
    diag.store(1, [], None)
    assert console_lines(capsys.readouterr().out) == [
        "itr 2/6 | 128 steps | 11 steps/s | ETA 0:00:14"  # 2 itrs in 7 s; 4 left
    ]


def test_while_the_progress_bar_draws_only_rows_get_a_line(clock, monkeypatch):
    terminal = use_terminal(monkeypatch)
    diag = TrainingDiagnostics((), itr_batch_size=64, n_itr=6)
    diag.progress_bar_drawn = True
    clock.now += 6.0  # a slow stretch: the bar shows it, no extra line
    diag.store(0, [], None)
    assert console_lines(terminal.getvalue()) == []
    diag.console_line(0, log_point=True)
    assert len(console_lines(terminal.getvalue())) == 1


def test_the_eta_after_a_resume_counts_only_the_time_since_the_resume(clock, monkeypatch):
    terminal = use_terminal(monkeypatch)
    before = TrainingDiagnostics((), itr_batch_size=64, n_itr=60)
    clock.now += 600.0  # 10 iterations took 600 s before the crash
    state = before.state_dict()
    clock.now += 3600.0  # the run is resumed an hour later
    resumed = TrainingDiagnostics((), itr_batch_size=64, n_itr=60)
    resumed.load_state_dict(state, itr=9, update_counter=0)
    clock.now += 10.0  # two iterations (10, 11) in 10 s since the resume
    resumed.store(11, [], None)  # more than 5 s since the resume: a line between rows
    resumed.console_line(11, log_point=True)  # and one after the row
    lines = console_lines(terminal.getvalue())
    # 48 iterations left at 5 s each; rlpyt's formula gave 48 * 610 s / 2 = 4:04:00.
    assert lines == ["itr 12/60 | 768 steps | 13 steps/s | ETA 0:04:00"] * 2


def test_a_run_on_a_terminal_prints_one_line_per_row(tmp_path, monkeypatch):
    terminal = use_terminal(monkeypatch)
    runner = make_runner()  # logs after iterations 1, 3 and 5 of 6, in well under 5 s
    with logger_context(str(tmp_path), 0, "tty", {}, override_prefix=True):
        runner.train()
    lines = console_lines(terminal.getvalue())
    assert [line.split(" | ")[:2] for line in lines] == [
        ["itr 2/6", "128 steps"],
        ["itr 4/6", "256 steps"],
        ["itr 6/6", "384 steps"],
    ]


def test_steps_per_second_is_nan_exactly_where_the_docs_say(tmp_path):
    def rows(log_interval_steps):
        runner = make_runner()
        runner.log_interval_steps = log_interval_steps
        with logger_context(str(tmp_path), log_interval_steps, "sps", {}, override_prefix=True):
            return list(runner.iter_train())

    every_itr, every_second_itr = rows(64), rows(128)
    assert math.isnan(every_itr[0]["Diagnostics/StepsPerSecond"])  # Iteration 0
    assert every_second_itr[0]["Diagnostics/Iteration"] == 1
    assert every_second_itr[0]["Diagnostics/StepsPerSecond"] > 0  # the first row has a rate
    assert all(row["Diagnostics/StepsPerSecond"] > 0 for row in every_itr[1:])
    with open(DOCS) as f:
        (doc,) = [line for line in f if line.startswith("| `StepsPerSecond`")]
    assert "`nan` on the first row" not in doc  # what the docs said, and the runner never did
    assert "`nan` only in a row of `Iteration` 0" in doc
