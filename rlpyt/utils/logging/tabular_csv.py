"""The ``progress.csv`` writer behind the logger's tabular outputs (viskit's data file).

Invariants of every file written here, so that viskit and pandas read it as it is:

- comma separated, one header row first, then one row per ``dump_tabular``;
- columns in the order their keys were first recorded (deterministic, never a set);
- a missing value is the literal ``nan``; no cell is ever blank;
- when a later row brings new keys, the whole file is rewritten under the extended header
  with the old rows padded with ``nan`` (written to a temporary file, then renamed over the
  old one, so a crash leaves either the old or the new file, never half of one);
- each row is flushed as soon as it is written, so a crash loses no finished row.

The logger owns one :class:`TabularCsv` per tabular output file.
"""

from __future__ import annotations

import csv
import os
from typing import IO

from rlpyt.utils.logging.atomic import atomic_write
from rlpyt.utils.logging.console import mkdir_p

MISSING = "nan"


def read_table(path: str) -> tuple[list[str], list[list[str]]]:
    """Reads a CSV file into its header and rows (cells as strings).

    Args:
        path: the CSV file.

    Returns:
        ``(header, rows)``; both empty for an empty file.
    """
    with open(path, newline="") as f:
        lines = list(csv.reader(f))
    if not lines:
        return [], []
    return lines[0], lines[1:]


def write_table(path: str, header: list[str], rows: list[list[str]]) -> None:
    """Writes a whole CSV file atomically: a temporary file in the same folder, then a rename.

    Args:
        path: the CSV file to (re)write.
        header: column names.
        rows: rows of cells; short rows are padded with ``nan``, blank cells become ``nan``.
    """

    def write_rows(f: IO[str]) -> None:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            cells = [cell if cell != "" else MISSING for cell in row[: len(header)]]
            writer.writerow(cells + [MISSING] * (len(header) - len(cells)))

    atomic_write(path, write_rows, text=True)


def drop_rows_after_in_file(path: str, iteration: float, key: str) -> int:
    """Rewrites a CSV file keeping only the rows whose ``key`` column is ``<= iteration``.

    Rows whose ``key`` cell is not a number (e.g. ``nan``) are kept: nothing says they are later.

    Args:
        path: the CSV file.
        iteration: the last iteration to keep.
        key: the column holding the iteration number.

    Returns:
        The number of rows dropped.

    Raises:
        ValueError: if the file has a header without a ``key`` column.
    """
    header, rows = read_table(path)
    if not header:
        return 0
    if key not in header:
        raise ValueError(
            f"{path} has no column {key!r} to select rows by; its columns are {header}. "
            "Pass key=<the column holding the iteration number>."
        )
    column = header.index(key)
    kept = [row for row in rows if not _cell_greater(row, column, iteration)]
    if len(kept) < len(rows):
        write_table(path, header, kept)
    return len(rows) - len(kept)


def _cell_greater(row: list[str], column: int, threshold: float) -> bool:
    try:
        return float(row[column]) > threshold
    except (IndexError, ValueError):
        return False


class TabularCsv:
    """One open ``progress.csv``: keeps its header and appends one flushed row per dump.

    Args:
        path: the CSV file.
        append: if True and the file already has content, keep its header (and column order)
            and append after its last complete row (a torn last line from a crash is cut off);
            otherwise start a new, empty file.
    """

    def __init__(self, path: str, append: bool = False):
        self.path = path
        self.header: list[str] = []
        mkdir_p(os.path.dirname(path))
        if append and os.path.exists(path) and os.path.getsize(path) > 0:
            _cut_torn_last_line(path)
            self.header, _ = read_table(path)
            self._file = open(path, "a", newline="")
        else:
            self._file = open(path, "w", newline="")
        self._writer = csv.writer(self._file, lineterminator="\n")

    def write_row(self, row: dict[str, str], write_header: bool | None = None) -> None:
        """Appends one row, extending (and rewriting) the header first if ``row`` has new keys.

        Args:
            row: key -> formatted value; keys of the header missing here are written ``nan``.
            write_header: ``True`` rewrites the file with its header on top even when no key
                is new; ``None``/``False`` write the header only when the file is new or a key
                is added (a CSV without its header would be unreadable, so it is never omitted).
        """
        new_keys = [key for key in row if key not in self.header]
        if not self.header:
            self.header = new_keys
            self._writer.writerow(self.header)
        elif new_keys or write_header:
            self.header = self.header + new_keys
            self._rewrite_under_header()
        self._writer.writerow([_cell(row.get(key, MISSING)) for key in self.header])
        self._file.flush()

    def drop_rows_after(self, iteration: float, key: str) -> int:
        """Removes the rows whose ``key`` column exceeds ``iteration`` (see module function)."""
        self._file.close()
        try:
            return drop_rows_after_in_file(self.path, iteration, key)
        finally:
            self._reopen_for_append()

    def close(self) -> None:
        """Flushes and closes the file."""
        if not self._file.closed:
            self._file.close()

    def _rewrite_under_header(self) -> None:
        self._file.close()
        old_header, rows = read_table(self.path)
        position = {key: i for i, key in enumerate(old_header)}
        rows = [[_cell_at(row, position.get(key)) for key in self.header] for row in rows]
        write_table(self.path, self.header, rows)
        self._reopen_for_append()

    def _reopen_for_append(self) -> None:
        self._file = open(self.path, "a", newline="")
        self._writer = csv.writer(self._file, lineterminator="\n")


def _cell(value: str) -> str:
    return value if value != "" else MISSING


def _cell_at(row: list[str], position: int | None) -> str:
    if position is None or position >= len(row):
        return MISSING
    return _cell(row[position])


def _cut_torn_last_line(path: str) -> None:
    """Truncates a file after its last newline (drops a row a crash left half written)."""
    with open(path, "rb+") as f:
        data = f.read()
        if data.endswith(b"\n"):
            return
        f.truncate(data.rfind(b"\n") + 1)
