"""The Logger: text lines, tabular diagnostics (``progress.csv``), snapshots and TensorBoard.

A module with process-wide state, used through module-level functions as in rlpyt::

    from rlpyt.utils.logging import logger
    logger.log("starting")                            # stdout + debug.log
    logger.record_tabular("Diagnostics/Iteration", itr)
    logger.record_tabular_misc_stat("Return", returns)   # ReturnAverage ... ReturnMax
    logger.dump_tabular(with_prefix=False)            # table on screen, one row in progress.csv
    logger.save_itr_params(itr, snapshot)             # params.pkl / itr_<N>.pkl per snapshot mode

Runners call it; :func:`rlpyt.utils.logging.context.logger_context` points its outputs at a
run folder. Text outputs are opened in append mode, tabular outputs in write mode (or append
when resuming). The CSV rules (deterministic column order, ``nan`` for missing values, header
rewrite when keys are added, one flushed row per dump) live in
:mod:`rlpyt.utils.logging.tabular_csv`. Snapshots are written to a temporary file and renamed
into place, so a crash never leaves a torn snapshot.
"""

from __future__ import annotations

import datetime
import functools
import math
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np
import torch

from rlpyt.utils.logging.atomic import atomic_write
from rlpyt.utils.logging.console import colorize, mkdir_p
from rlpyt.utils.logging.tabular_csv import TabularCsv, drop_rows_after_in_file

if TYPE_CHECKING:
    from torch.utils.tensorboard import SummaryWriter

SNAPSHOT_MODES = ("none", "last", "all", "gap", "last+gap")
MISC_STAT_NAMES = ("Average", "Std", "Median", "Min", "Max")
TENSORBOARD_STEP_KEY = "Diagnostics/CumSteps"
"""The column whose value, when a row records it, is that row's TensorBoard step (env steps)."""
RowOutput = Callable[[dict[str, str]], None]
"""A receiver of tabular rows (see :func:`add_row_output`)."""


@dataclass
class _LoggerState:
    prefixes: list[str] = field(default_factory=list)
    tabular_prefixes: list[str] = field(default_factory=list)
    tabular: dict[str, str] = field(default_factory=dict)  # key -> formatted value, in order
    tabular_scalars: dict[str, tuple[str, float]] = field(
        default_factory=dict
    )  # key -> TB tag, number
    stat_tags: dict[str, str] = field(default_factory=dict)  # "ReturnAverage" -> "Return/Average"
    text_files: dict[str, TextIO] = field(default_factory=dict)
    tabular_files: dict[str, TabularCsv] = field(default_factory=dict)
    held_tabular_files: dict[str, TabularCsv] = field(default_factory=dict)
    row_outputs: dict[str, list[RowOutput]] = field(default_factory=dict)  # CSV path -> receivers
    snapshot_dir: str | None = None
    snapshot_mode: str = "all"
    snapshot_gap: int = 1
    log_tabular_only: bool = False
    disable_prefix: bool = False
    disabled: bool = False
    tabular_disabled: bool = False
    tf_summary_dir: str | None = None
    tf_summary_writer: Any = None
    iteration: int = 0


_state = _LoggerState()


def reset() -> None:
    """Closes every output and restores the defaults (a fresh logger; for tests and notebooks)."""
    for text_file in _state.text_files.values():
        text_file.close()
    for csv_file in [*_state.tabular_files.values(), *_state.held_tabular_files.values()]:
        csv_file.close()
    vars(_state).update(vars(_LoggerState()))


# -- switches ---------------------------------------------------------------------------------


def disable() -> None:
    """Silences the logger: :func:`log` and :func:`dump_tabular` write nothing."""
    _state.disabled = True


def enable() -> None:
    """Undoes :func:`disable`."""
    _state.disabled = False


def disable_tabular() -> None:
    """Keeps printing the diagnostics table but stops writing rows to the tabular files."""
    _state.tabular_disabled = True


def enable_tabular() -> None:
    """Undoes :func:`disable_tabular`."""
    _state.tabular_disabled = False


def set_log_tabular_only(log_tabular_only: bool) -> None:
    """If True, :func:`log` is silent and :func:`dump_tabular` prints only the bare table."""
    _state.log_tabular_only = bool(log_tabular_only)


def get_log_tabular_only() -> bool:
    """Whether only tables are printed (see :func:`set_log_tabular_only`)."""
    return _state.log_tabular_only


def set_disable_prefix(disable_prefix: bool) -> None:
    """If True, text lines are written without the pushed prefixes."""
    _state.disable_prefix = bool(disable_prefix)


def get_disable_prefix() -> bool:
    """Whether prefixes are left out of text lines."""
    return _state.disable_prefix


# -- outputs ----------------------------------------------------------------------------------


def add_text_output(file_name: str) -> None:
    """Copies every :func:`log` line to ``file_name`` (opened in append mode; folders made)."""
    path = os.path.abspath(file_name)
    if path not in _state.text_files:
        mkdir_p(os.path.dirname(path))
        _state.text_files[path] = open(path, "a")


def remove_text_output(file_name: str) -> None:
    """Closes and forgets a text output (no-op if it is not one)."""
    text_file = _state.text_files.pop(os.path.abspath(file_name), None)
    if text_file is not None:
        text_file.close()


def add_tabular_output(file_name: str, append: bool = False) -> None:
    """Writes a CSV row to ``file_name`` at every :func:`dump_tabular`.

    Args:
        file_name: the CSV file, usually ``<run folder>/progress.csv``.
        append: keep the existing file and its header order and add rows after it (resume);
            by default the file is started anew, as rlpyt did. An output put on hold with
            :func:`hold_tabular_output` is taken back as it was.
    """
    path = os.path.abspath(file_name)
    if path in _state.tabular_files:
        return
    held = _state.held_tabular_files.pop(path, None)
    _state.tabular_files[path] = held if held is not None else TabularCsv(path, append=append)


def remove_tabular_output(file_name: str) -> None:
    """Closes and forgets a tabular output, active or on hold (no-op if it is neither)."""
    path = os.path.abspath(file_name)
    for outputs in (_state.tabular_files, _state.held_tabular_files):
        csv_file = outputs.pop(path, None)
        if csv_file is not None:
            csv_file.close()


def hold_tabular_output(file_name: str) -> None:
    """Pauses a tabular output, file left open, until :func:`add_tabular_output` takes it back."""
    path = os.path.abspath(file_name)
    if path in _state.tabular_files:
        _state.held_tabular_files[path] = _state.tabular_files.pop(path)


def add_row_output(output: RowOutput, tabular_file: str) -> None:
    """Hands ``output`` every row that is written to the tabular output ``tabular_file``.

    For outputs that must hold exactly what progress.csv holds (Weights & Biases): ``output``
    is called after each row reaches the CSV file, only while that file is an active tabular
    output (not disabled, not on hold), with a new dict each time: column -> the text written
    to the cell, for the columns recorded in that row.

    Args:
        output: called as ``output(row)``.
        tabular_file: the CSV file (as given to :func:`add_tabular_output`).
    """
    _state.row_outputs.setdefault(os.path.abspath(tabular_file), []).append(output)


def remove_row_output(output: RowOutput, tabular_file: str) -> None:
    """Undoes :func:`add_row_output` (no-op if ``output`` is not attached to that file)."""
    outputs = _state.row_outputs.get(os.path.abspath(tabular_file), [])
    if output in outputs:
        outputs.remove(output)


def drop_rows_after(
    iteration: int, key: str = "Diagnostics/Iteration", file_name: str | None = None
) -> int:
    """Rewrites tabular files keeping only rows with ``key <= iteration`` (for exact resume).

    A run resumed from the snapshot of iteration ``iteration`` repeats the iterations logged
    after it; dropping those rows first keeps ``progress.csv`` free of duplicates.

    Args:
        iteration: the last iteration to keep.
        key: the column holding the iteration number.
        file_name: one CSV file (open or not); by default every active tabular output.

    Returns:
        The number of rows dropped, over all files.
    """
    if file_name is None:
        return sum(csv.drop_rows_after(iteration, key) for csv in _state.tabular_files.values())
    csv_file = _state.tabular_files.get(os.path.abspath(file_name))
    if csv_file is not None:
        return csv_file.drop_rows_after(iteration, key)
    return drop_rows_after_in_file(file_name, iteration, key)


# -- prefixes ---------------------------------------------------------------------------------


def push_prefix(prefix: str) -> None:
    """Starts every following text line with ``prefix`` (after the earlier ones)."""
    _state.prefixes.append(prefix)


def pop_prefix() -> None:
    """Removes the last pushed text prefix."""
    _state.prefixes.pop()


@contextmanager
def prefix(key: str) -> Iterator[None]:
    """Context manager: text lines inside start with ``key``."""
    push_prefix(key)
    try:
        yield
    finally:
        pop_prefix()


def push_tabular_prefix(key: str) -> None:
    """Starts every following tabular key with ``key`` (e.g. ``"Eval/"``)."""
    _state.tabular_prefixes.append(key)


def pop_tabular_prefix() -> None:
    """Removes the last pushed tabular prefix."""
    _state.tabular_prefixes.pop()


@contextmanager
def tabular_prefix(key: str) -> Iterator[None]:
    """Context manager: tabular keys recorded inside start with ``key``."""
    push_tabular_prefix(key)
    try:
        yield
    finally:
        pop_tabular_prefix()


# -- text -------------------------------------------------------------------------------------


def log(
    s: object, with_prefix: bool = True, with_timestamp: bool = True, color: str | None = None
) -> None:
    """Writes one line to stdout and to every text output.

    The line reads ``YYYY-mm-dd HH:MM:SS.ffffff  | <prefixes><s>``. ``color`` (see
    :func:`~rlpyt.utils.logging.console.colorize`) applies to the terminal only, so the
    text files hold no escape codes.
    """
    if _state.disabled or _state.log_tabular_only:
        return
    line = str(s)
    if with_prefix and not _state.disable_prefix:
        line = "".join(_state.prefixes) + line
    if with_timestamp:
        line = f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S.%f}  | {line}"
    sys.stdout.write((colorize(line, color) if color else line) + "\n")
    sys.stdout.flush()
    for text_file in _state.text_files.values():
        text_file.write(line + "\n")
        text_file.flush()


# -- tabular ----------------------------------------------------------------------------------


def record_tabular(key: str, val: object) -> None:
    """Records one value for the next :func:`dump_tabular` (and TensorBoard, if a writer is set).

    The key gets the pushed tabular prefixes. Recording a key twice before a dump keeps the
    last value at the first position. ``None`` and blank values are written ``nan``, booleans
    ``1``/``0``, one-element tensors and arrays as their number. Numeric values also go to the
    TensorBoard writer at the dump, under :func:`tensorboard_tag` of the key.
    """
    prefixes = "".join(_state.tabular_prefixes)
    column = prefixes + str(key)
    _state.tabular[column] = _format_value(val)
    scalar = _as_scalar(val)
    _state.tabular_scalars.pop(column, None)
    if scalar is not None:
        _state.tabular_scalars[column] = (prefixes + tensorboard_tag(str(key)), scalar)


def record_tabular_misc_stat(key: str, values: Sequence[float], placement: str = "back") -> None:
    """Records the Average, Std (population), Median, Min and Max of ``values``.

    Columns are ``<key>Average`` ... (placement "back") or ``Average<key>`` ... (placement
    "front"), with or without a TensorBoard writer; TensorBoard groups the "back" ones as
    ``<key>/Average`` ... (see :func:`tensorboard_tag`). An empty ``values`` records five ``nan``.

    Args:
        key: the name of the quantity, e.g. ``"Return"``.
        values: ``[N]`` numbers (a list, array or 1-element tensors).
        placement: ``"back"`` or ``"front"``: where the statistic's name goes.
    """
    for column, value in misc_stat_columns(key, values, placement).items():
        record_tabular(column, value)


def misc_stat_columns(
    key: str, values: Sequence[float], placement: str = "back"
) -> dict[str, float]:
    """The five columns :func:`record_tabular_misc_stat` records, without recording them.

    The names are the same whether a TensorBoard writer is set or not (``ReturnAverage``);
    the logger remembers each "back" column's TensorBoard tag (``Return/Average``).

    Args: as :func:`record_tabular_misc_stat`.

    Returns:
        Column name -> value, in the order they are recorded.
    """
    if placement not in ("back", "front"):
        raise ValueError(f"placement must be 'back' or 'front', not {placement!r}.")
    columns = {}
    for name, value in zip(MISC_STAT_NAMES, misc_stats(values), strict=True):
        column = name + key if placement == "front" else key + name
        if placement == "back":
            _state.stat_tags[column] = f"{key}/{name}"
        columns[column] = value
    return columns


def tensorboard_tag(key: str) -> str:
    """The TensorBoard tag of a tabular key (before the tabular prefixes are added).

    A "back" statistics column made by :func:`misc_stat_columns` is grouped by its quantity,
    ``ReturnAverage`` -> ``Return/Average``; every other key is its own tag. This is the one
    place where CSV columns and TensorBoard tags are related.
    """
    return _state.stat_tags.get(key, key)


def misc_stats(values: Sequence[float]) -> tuple[float, float, float, float, float]:
    """Average, population Std, Median, Min, Max of ``values``; five NaNs if it is empty."""
    try:
        array = np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError):  # e.g. a list of one-element tensors on a GPU
        array = np.array([float(_unwrap(v)) for v in values], dtype=np.float64)
    if array.size == 0:
        return (np.nan,) * 5
    return (
        float(np.average(array)),
        float(np.std(array)),
        float(np.median(array)),
        float(np.min(array)),
        float(np.max(array)),
    )


def dump_tabular(with_prefix: bool = True, write_header: bool | None = None) -> None:
    """Prints the recorded values as a two-column table and appends one row to each CSV.

    Args:
        with_prefix: start the printed lines with the text prefixes.
        write_header: ``True`` rewrites each CSV with its header on top; by default the
            header is written when a file is new or gains keys.
    """
    recorded, _state.tabular = _state.tabular, {}
    scalars, _state.tabular_scalars = _state.tabular_scalars, {}
    _write_tensorboard(scalars)
    if _state.disabled or not recorded:
        return
    lines = _format_table(recorded)
    if _state.log_tabular_only:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    else:
        for line in lines:
            log(line, with_prefix=with_prefix)
    if not _state.tabular_disabled:
        for path, csv_file in _state.tabular_files.items():
            csv_file.write_row(recorded, write_header=write_header)
            for output in _state.row_outputs.get(path, ()):
                output(dict(recorded))


def _write_tensorboard(scalars: dict[str, tuple[str, float]]) -> None:
    """Writes one row's numbers to the TensorBoard writer, if one is set.

    The step is the row's env steps (:data:`TENSORBOARD_STEP_KEY`) when the row records them,
    so curves of runs with different batch sizes line up; otherwise the iteration set with
    :func:`set_iteration`.
    """
    writer = _state.tf_summary_writer
    if writer is None or not scalars:
        return
    _, step_value = scalars.get(TENSORBOARD_STEP_KEY, ("", math.nan))
    step = _state.iteration if math.isnan(step_value) else int(step_value)
    for tag, scalar in scalars.values():
        writer.add_scalar(tag, scalar, step)


def _unwrap(val: object) -> Any:
    """A one-element tensor or array as its scalar; anything else unchanged."""
    if isinstance(val, torch.Tensor) and val.numel() == 1:
        return val.item()
    if isinstance(val, np.ndarray) and val.size == 1:
        return val.reshape(())[()]
    return val


def _format_value(val: object) -> str:
    val = _unwrap(val)
    if val is None:
        return "nan"
    if isinstance(val, bool | np.bool_):
        return str(int(val))
    return str(val) or "nan"


def _as_scalar(val: object) -> float | None:
    value = _unwrap(val)
    if isinstance(value, str | bytes) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _format_table(recorded: dict[str, str]) -> list[str]:
    key_width = max(len(key) for key in recorded)
    value_width = max(len(value) for value in recorded.values())
    rule = "-" * key_width + "  " + "-" * value_width
    rows = [f"{key:<{key_width}}  {value:>{value_width}}" for key, value in recorded.items()]
    return [rule, *rows, rule]


# -- snapshots --------------------------------------------------------------------------------


def set_snapshot_dir(dir_name: str | None) -> None:
    """Sets (and creates) the folder :func:`save_itr_params` writes to; None turns saving off."""
    if dir_name is not None:
        mkdir_p(dir_name)
    _state.snapshot_dir = dir_name


def get_snapshot_dir() -> str | None:
    """The snapshot folder, or None."""
    return _state.snapshot_dir


def set_snapshot_mode(mode: str) -> None:
    """Chooses which snapshots reach the disk: "none", "last", "all", "gap" or "last+gap".

    "last" overwrites ``params.pkl``; "all" keeps ``itr_<N>.pkl`` for every call; "gap" keeps
    ``itr_<N>.pkl`` when ``itr == 0`` or ``(itr + 1) % gap == 0``; "last+gap" does both.
    """
    if mode not in SNAPSHOT_MODES:
        raise ValueError(f"Unknown snapshot mode {mode!r}; choose one of {SNAPSHOT_MODES}.")
    _state.snapshot_mode = mode


def get_snapshot_mode() -> str:
    """The snapshot mode (module default "all"; ``logger_context`` defaults to "none")."""
    return _state.snapshot_mode


def set_snapshot_gap(gap: int) -> None:
    """Sets the iteration gap of the "gap" and "last+gap" modes (a positive integer)."""
    if int(gap) < 1:
        raise ValueError(f"The snapshot gap must be a positive integer, not {gap!r}.")
    _state.snapshot_gap = int(gap)


def get_snapshot_gap() -> int:
    """The iteration gap of the "gap" modes."""
    return _state.snapshot_gap


def snapshot_file_names(itr: int, mode: str, gap: int = 1) -> list[str]:
    """The files a snapshot of iteration ``itr`` goes to under ``mode`` (empty: not saved)."""
    on_gap = itr == 0 or (itr + 1) % gap == 0
    names = {
        "none": [],
        "last": ["params.pkl"],
        "all": [f"itr_{itr}.pkl"],
        "gap": [f"itr_{itr}.pkl"] if on_gap else [],
        "last+gap": ([f"itr_{itr}.pkl"] if on_gap else []) + ["params.pkl"],
    }
    return names[mode]


def save_itr_params(itr: int, params: object) -> None:
    """Saves a snapshot with ``torch.save`` according to the snapshot dir, mode and gap.

    Args:
        itr: the iteration the snapshot belongs to.
        params: anything ``torch.save`` takes, e.g. ``dict(itr, cum_steps, agent_state_dict,
            optimizer_state_dict)``.
    """
    if _state.snapshot_dir is None:
        return
    names = snapshot_file_names(itr, _state.snapshot_mode, _state.snapshot_gap)
    paths = [os.path.join(_state.snapshot_dir, name) for name in names]
    if paths:
        atomic_write(paths[0], lambda f: torch.save(params, f))
    for path in paths[1:]:
        with open(paths[0], "rb") as source:
            atomic_write(path, functools.partial(shutil.copyfileobj, source))


# -- TensorBoard --------------------------------------------------------------------------------


def set_tf_summary_writer(writer: SummaryWriter | None) -> None:
    """Sets the TensorBoard ``SummaryWriter`` that :func:`record_tabular` also writes to."""
    _state.tf_summary_writer = writer


def get_tf_summary_writer() -> Any:
    """The TensorBoard writer, or None."""
    return _state.tf_summary_writer


def set_tf_summary_dir(dir_name: str | None) -> None:
    """Remembers the TensorBoard folder (informational)."""
    _state.tf_summary_dir = dir_name


def get_tf_summary_dir() -> str | None:
    """The TensorBoard folder, or None."""
    return _state.tf_summary_dir


def set_iteration(iteration: int) -> None:
    """Sets the TensorBoard step of rows that record no ``Diagnostics/CumSteps`` (env steps)."""
    _state.iteration = int(iteration)


def get_iteration() -> int:
    """The iteration set with :func:`set_iteration` (TensorBoard step of rows without CumSteps)."""
    return _state.iteration
