"""A one-line progress bar for the console (rlpyt's ``ProgBarCounter``, kept for its import path).

Our runners print their own console line between log dumps (progress, steps/s, ETA) and do not
use this bar; user scripts that drew rlpyt's bar around their own loops keep working. It draws
only on an interactive terminal, so log files and CI output stay clean.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_WIDTH = 30
_STEPS = 1000  # redraw at most this many times per bar


class ProgBarCounter:
    """Progress of a count towards ``total_count``, drawn as one self-overwriting line.

    Draws on ``stream`` (default ``sys.stderr``) only if it is a TTY and the logger is not in
    tabular-only mode; otherwise every call is a cheap no-op.

    Args:
        total_count: The count that means 100 %.
        stream: Where to draw (for tests); default ``sys.stderr``.
    """

    def __init__(self, total_count: int, stream: TextIO | None = None):
        self.total_count = max(int(total_count), 1)
        self.cur_count = 0
        self._stream = sys.stderr if stream is None else stream
        self._active = _is_tty(self._stream) and not _logger_tabular_only()
        self._start = time.monotonic()
        self._drawn_step = -1

    def update(self, current_count: int) -> None:
        """Move the bar to ``current_count`` (absolute, not an increment)."""
        self.cur_count = current_count
        if not self._active:
            return
        step = min(int(_STEPS * current_count / self.total_count), _STEPS)
        if step != self._drawn_step:
            self._drawn_step = step
            self._draw(step / _STEPS)

    def stop(self) -> None:
        """Finish the line; later updates draw nothing."""
        if self._active:
            self._draw(min(self.cur_count / self.total_count, 1.0))
            self._stream.write("\n")
            self._stream.flush()
            self._active = False

    def _draw(self, fraction: float) -> None:
        elapsed = time.monotonic() - self._start
        filled = int(round(_WIDTH * fraction))
        eta = elapsed * (1 - fraction) / fraction if fraction > 0 else float("nan")
        line = (
            f"\r[{'#' * filled}{'.' * (_WIDTH - filled)}] {100 * fraction:5.1f}%  "
            f"elapsed {elapsed:6.1f}s  ETA {eta:6.1f}s"
        )
        self._stream.write(line)
        self._stream.flush()


def _is_tty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (ValueError, OSError):  # closed stream
        return False


def _logger_tabular_only() -> bool:
    """True if rlpyt's logger exists and is set to print tables only."""
    try:
        from rlpyt.utils.logging import logger  # noqa: PLC0415 (lazy: logger is optional)
    except ImportError:
        return False
    get_flag = getattr(logger, "get_log_tabular_only", None)
    return bool(get_flag()) if callable(get_flag) else False
