"""How the ``rlpyt`` command reports a failure: one message on the terminal, no traceback.

Box: command line. :class:`ReportingGroup` is the ``rlpyt`` click group; it runs every
subcommand inside one handler:

- click's own errors (``click.UsageError``: rc 2, ``click.ClickException``: rc 1) keep click's
  ``Error: ...`` message;
- a known failure (a :data:`KNOWN_FAILURES` type: divergence, a worker, rank or child process
  that failed, an unreadable snapshot, an impossible affinity) becomes one ``Error: ...``
  message and rc 1; where the runner's last log line reported it already
  (:func:`reported_by_runner`), only the line saying where the traceback is follows;
- any other exception is a bug and keeps its traceback.

Warnings raised while a subcommand runs are shown as one ``Warning: ...`` line each
(:func:`one_line_warnings`), without Python's file, line number and source line; ``--verbose``
shows them in Python's format.

A run started by ``rlpyt train`` appends the traceback of whatever ended it to its
``debug.log`` (:func:`record_traceback`); the message says where. ``--verbose``
(:func:`verbose_option`, on the commands that run something) also prints it on the terminal.
The known failures are matched by class path, so this module imports neither torch nor the
runners.
"""

from __future__ import annotations

import os
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

KNOWN_FAILURES = frozenset(
    {
        "rlpyt.runners.divergence.DivergenceError",
        "rlpyt.samplers.parallel.worker.WorkerError",
        "rlpyt.runners.sync_ranks.RankError",
        "rlpyt.runners.async_rl.AsyncRlProcessError",
        "rlpyt.runners.snapshot.UnreadableSnapshotError",
        "rlpyt.utils.launching.layouts.AffinityError",
    }
)
"""Exceptions (``module.Class``, subclasses included) reported as one message, not a bug."""

_VERBOSE_KEY = "rlpyt.verbose"  # click context meta entry (shared by the group's contexts)
_DEBUG_LOG_ATTRIBUTE = "rlpyt_debug_log"  # set on an exception whose traceback was recorded
_LOGGED_ATTRIBUTE = "rlpyt_logged"  # set on an exception the runner's last log line reported


class SetupError(click.ClickException):
    """This machine cannot do what the command asks (a missing package or login): rc 2.

    click prints its message alone, without the usage lines of a ``click.UsageError``.
    """

    exit_code = 2


def is_known_failure(error: BaseException) -> bool:
    """Whether ``error`` is (a subclass of) one of :data:`KNOWN_FAILURES`."""
    names = (f"{cls.__module__}.{cls.__qualname__}" for cls in type(error).__mro__)
    return any(name in KNOWN_FAILURES for name in names)


def record_traceback(error: BaseException, run_dir: str | None) -> None:
    """Append ``error``'s traceback to ``<run_dir>/debug.log`` (when the run folder exists).

    The handler's message then names that file.
    """
    if run_dir is None or not os.path.isdir(run_dir):
        return
    path = os.path.join(run_dir, "debug.log")
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write("".join(traceback.format_exception(error)))
    except OSError:
        return
    setattr(error, _DEBUG_LOG_ATTRIBUTE, path)


@contextmanager
def reported_by_runner() -> Iterator[None]:
    """Around a runner's ``iter_train`` loop: an exception leaving it was logged already.

    The runner's last log line says how the run ended (the divergence, the failed worker...),
    so the handler does not repeat it and only says where the traceback is.
    """
    try:
        yield
    except Exception as error:
        setattr(error, _LOGGED_ATTRIBUTE, True)
        raise


def failure_message(error: BaseException) -> str:
    """The one message of a known failure.

    Its first line; when the rest is a child's traceback (a worker, rank or child process
    that failed), the traceback's last line (the child's exception) follows it.
    """
    lines = [line for line in str(error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    message = lines[0]
    if len(lines) > 1 and any(line.startswith("Traceback") for line in lines):
        message = f"{message.rstrip(':')}: {lines[-1].strip()}"
    return message


def verbose_option(command: Callable) -> Callable:
    """Add ``--verbose``: a failure's traceback is printed on the terminal too."""

    def remember(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value:
            ctx.meta[_VERBOSE_KEY] = True

    return click.option(
        "--verbose",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=remember,
        help="On a failure, also print its Python traceback (a run's debug.log keeps it "
        "either way).",
    )(command)


@contextmanager
def one_line_warnings(ctx: click.Context) -> Iterator[None]:
    """Inside: a warning is one ``Warning: <message>`` line on stderr (``--verbose``: Python's).

    ``--verbose`` is read when a warning is shown, since the subcommand's options are parsed
    inside this context.
    """
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:  # fmt: skip
        if ctx.meta.get(_VERBOSE_KEY):
            shown(message, category, filename, lineno, file, line)
        else:
            click.echo(f"Warning: {message}", err=True)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


class ReportingGroup(click.Group):
    """A click group whose subcommands' known failures end in one message (see module doc)."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand; a known failure becomes a ``click.ClickException``."""
        try:
            with one_line_warnings(ctx):
                return super().invoke(ctx)
        except click.ClickException as error:
            _print_traceback(ctx, error)
            raise
        except Exception as error:
            if not is_known_failure(error):
                raise
            _print_traceback(ctx, error)
            if getattr(error, _LOGGED_ATTRIBUTE, False):  # the line above says it: no repeat
                click.echo(_where_traceback(error), err=True)
                raise click.exceptions.Exit(1) from None
            message = f"{failure_message(error)}\n{_where_traceback(error)}"
            raise click.ClickException(message) from None


def _print_traceback(ctx: click.Context, error: BaseException) -> None:
    if ctx.meta.get(_VERBOSE_KEY):
        click.echo("".join(traceback.format_exception(error)).rstrip(), err=True)


def _where_traceback(error: BaseException) -> str:
    path = getattr(error, _DEBUG_LOG_ATTRIBUTE, None)
    if path is None:
        return "(--verbose prints the traceback.)"
    return f"(The traceback is in {path}; --verbose prints it here too.)"
