"""The run's last log line: how it ended and, unless it succeeded, where its snapshot is.

Box: Runner. :meth:`rlpyt.runners.base.TrainingRunnerBase.iter_train` logs
:func:`end_of_run_line` in its ``finally``, whatever ended the run; the divergence guard's
message ends with :func:`snapshot_note` too. Invariant: a run's log ends with exactly one of
"Training complete", "Training diverged", "Training stopped", "Training interrupted" or
"Training failed".
"""

from __future__ import annotations

from collections.abc import Callable

from rlpyt.runners.divergence import DivergenceError
from rlpyt.runners.snapshot import find_snapshot
from rlpyt.utils.logging import logger


def end_of_run_line(
    error: BaseException | None,
    itr: int | None,
    n_itr: int,
    target_reached: bool,
    note: Callable[[], str],
) -> tuple[str, str | None]:
    """The last line of a run and its terminal color (None: plain).

    Args:
        error: What ended ``iter_train`` (None: it ran to the end, "Training complete.");
            ``GeneratorExit``: the caller left the loop (``break``, ``close()``), "stopped"
            unless at the last row; ``KeyboardInterrupt``: "interrupted";
            :class:`DivergenceError`: "diverged" with its message; anything else (a worker
            fault, a failed resume, ...): "failed" with the exception's type and message.
        itr: The iteration being run (None: none started).
        n_itr: Iterations of the run.
        target_reached: The run stopped early at its ``target_reward``.
        note: Where the last snapshot is (:func:`snapshot_note`), asked for all but success.
    """
    stopped = isinstance(error, GeneratorExit)  # the loop was left at a yield: a log point
    if error is None and target_reached:
        return f"Training complete: target reward reached after iteration {itr}.", None
    if error is None or (stopped and itr == n_itr - 1):  # left after the last row
        return "Training complete.", None
    if isinstance(error, DivergenceError):  # its message names the last finite snapshot
        return str(error), "red"
    where = "before the first iteration"
    if itr is not None:
        where = f"{'after' if stopped else 'in'} iteration {itr} (of 0-{n_itr - 1})"
    if stopped:
        ending, color = f"Training stopped by the caller (iter_train left) {where}", "yellow"
    elif isinstance(error, KeyboardInterrupt):
        ending, color = f"Training interrupted (KeyboardInterrupt) {where}", "yellow"
    else:
        ending, color = f"Training failed {where}: {failure_reason(error)}", "red"
    return f"{ending}. {note()}", color


def snapshot_note(itr: int, iteration_name: str, resume_hint: str, finite: bool = False) -> str:
    """Where the newest snapshot of the logger's run folder is and how to continue from it.

    Args:
        itr: The iteration it was taken after (below 0: not known).
        iteration_name: How the log names that iteration (``"sampler iteration"``).
        resume_hint: How to continue, in the caller's terms.
        finite: Call it the last snapshot with finite parameters (the divergence guard
            checks every iteration before its snapshot, so the newest one is).
    """
    snapshot_dir = logger.get_snapshot_dir()
    if snapshot_dir is None:
        return "No snapshot: the logger has no run folder (train inside logger_context)."
    try:
        path = find_snapshot(snapshot_dir)
    except OSError:  # FileNotFoundError: none there
        if logger.get_snapshot_mode() == "none":
            return (
                "No snapshot: snapshot_mode is 'none' (pass snapshot_mode='last' to "
                "logger_context to be able to resume)."
            )
        return f"No snapshot in {snapshot_dir} yet (the first is saved at the first log point)."
    of_itr = f" ({iteration_name} {itr})" if itr >= 0 else ""
    which = "Last snapshot with finite parameters" if finite else "Last snapshot"
    return f"{which}: {path}{of_itr}; continue with {resume_hint}."


def failure_reason(error: BaseException) -> str:
    """``Type: message`` in one line for a run's last log line.

    A message that carries a child's traceback (a worker, rank or child process that failed)
    keeps its first line and the traceback's last one (the child's exception); the whole
    traceback stays in the exception, which the caller gets.
    """
    lines = [line for line in str(error).splitlines() if line.strip()]
    if len(lines) > 1 and any(line.startswith("Traceback") for line in lines):
        lines = [f"{lines[0].rstrip(':')}: {lines[-1].strip()}"]
    return type(error).__name__ + (f": {' '.join(lines)}" if lines else "")
