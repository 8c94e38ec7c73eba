"""The run's last line, as a function of what ended it (no run needed)."""

import pytest

from rlpyt.runners.divergence import DivergenceError
from rlpyt.runners.end_of_run import end_of_run_line, failure_reason


def note():
    return "Last snapshot: here."


def test_success_needs_no_snapshot_note():
    def refuse():
        raise AssertionError("asked for the snapshot note of a complete run")

    assert end_of_run_line(None, 5, 6, False, refuse) == ("Training complete.", None)
    line, _ = end_of_run_line(None, 3, 6, True, refuse)
    assert line == "Training complete: target reward reached after iteration 3."
    assert end_of_run_line(GeneratorExit(), 5, 6, False, refuse) == ("Training complete.", None)


@pytest.mark.parametrize(
    "error, itr, start, color",
    [
        (
            GeneratorExit(),
            2,
            "Training stopped by the caller (iter_train left) after iteration 2 (of 0-5)",
            "yellow",
        ),
        (
            KeyboardInterrupt(),
            2,
            "Training interrupted (KeyboardInterrupt) in iteration 2 (of 0-5)",
            "yellow",
        ),
        (
            ValueError("bad"),
            None,
            "Training failed before the first iteration: ValueError: bad",
            "red",
        ),
    ],
)
def test_every_other_ending_says_where_and_adds_the_note(error, itr, start, color):
    line, got = end_of_run_line(error, itr, 6, False, note)
    assert line == f"{start}. Last snapshot: here." and got == color


def test_divergence_keeps_its_own_message():
    error = DivergenceError(4, "iteration 4", "OptInfo field 'loss' (nan)", "Last: x.")
    assert end_of_run_line(error, 4, 6, False, note) == (str(error), "red")


def test_a_child_traceback_is_cut_to_its_first_and_last_lines():
    error = RuntimeError("Worker 1 failed:\nTraceback (most recent call last):\n  ...\nKeyError: 3")
    assert failure_reason(error) == "RuntimeError: Worker 1 failed: KeyError: 3"
