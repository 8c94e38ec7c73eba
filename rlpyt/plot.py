"""Learning curves from run folders, viskit-style, as a PNG: ``python -m rlpyt.plot``.

::

    python -m rlpyt.plot data/local/20250101/120000/my_sweep --y ReturnAverage --split env.id

Every folder below the given paths holding ``progress.csv`` and ``variant.json`` (or
``params.json``) is a run. Parameters are flattened with dots (``algo.learning_rate``). Runs
are grouped by the parameters whose values differ across runs, except the ones viskit never
groups by (top-level keys starting with ``seed`` or ``log_dir``) and the run bookkeeping
(``run_ID``, ``exp_name``, ``git_commit``, ``git_dirty``, ``command_line``,
``package_versions.*``): one curve per distinct
setting, the mean over its runs with a band of one standard deviation, runs aligned by row
(log point) as viskit does. ``--group`` picks the grouping keys by hand; ``--split`` makes one
panel per value of a key. ``--aggregate iqm|median|mean`` draws that aggregate over the runs
instead, with a stratified bootstrap confidence band (:mod:`rlpyt.utils.stats`), at the log
points every run of the curve has a value for. Needs matplotlib (``pip install "rlpyt[plot]"``),
imported only here.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

PARAMS_FILES = ("variant.json", "params.json")  # viskit's order of preference
LEGEND_WIDTH = 40  # characters per legend line: a curve's settings wrap between settings
LEGEND_INSIDE_LINES = 12  # a panel's legend with more lines goes beside it, not over the curves
BOOKKEEPING_KEYS = ("run_ID", "exp_name", "git_commit", "git_dirty", "command_line")


@dataclass
class Run:
    """One run folder: ``progress`` maps column -> ``[n_rows]`` float64 (unparseable = nan)."""

    path: str
    params: dict[str, Any]
    progress: dict[str, np.ndarray]


@dataclass
class Curve:
    """One setting's curve: ``x``, ``mean``, ``std`` are ``[n_points]`` over ``n_runs`` runs.

    With an ``aggregate`` (``"iqm"``, ``"median"``, ``"mean"``), ``mean`` holds that aggregate
    and ``low``/``high`` its confidence interval (``std`` is still the runs' std).
    """

    label: str
    setting: dict[str, Any]
    panel: Any
    x: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    n_runs: int
    aggregate: str | None = None
    low: np.ndarray | None = None
    high: np.ndarray | None = None


def flatten_params(params: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts flattened to dotted keys: ``{"algo": {"lr": 1}}`` -> ``{"algo.lr": 1}``."""
    flat: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, dict):
            flat.update(flatten_params(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def read_progress(path: str) -> dict[str, np.ndarray]:
    """A progress.csv as column -> ``[n_rows]`` float64; blank or text cells become nan."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    columns = [key for key in (rows[0] if rows else {}) if key is not None]
    return {key: np.array([_to_float(row.get(key)) for row in rows]) for key in columns}


def _to_float(cell: str | None) -> float:
    if cell is None:  # a row shorter than the header
        return math.nan
    try:
        return float(cell)
    except (TypeError, ValueError):
        return math.nan


def load_runs(paths: Sequence[str]) -> list[Run]:
    """Every run folder below ``paths`` (searched recursively), in sorted path order."""
    runs = []
    for root in paths:
        if not os.path.isdir(root):
            raise FileNotFoundError(f"{root} is not a folder; pass run or sweep folders.")
        for folder, sub_folders, files in os.walk(root):
            sub_folders.sort()
            params_file = next((name for name in PARAMS_FILES if name in files), None)
            if "progress.csv" in files and params_file is not None:
                with open(os.path.join(folder, params_file)) as f:
                    params = flatten_params(json.load(f))
                progress = read_progress(os.path.join(folder, "progress.csv"))
                runs.append(Run(folder, params, progress))
    return runs


def is_grouping_candidate(key: str) -> bool:
    """False for keys never used to group runs (seeds, log dirs, run bookkeeping)."""
    return not (key.startswith(("seed", "log_dir", "package_versions.")) or key in BOOKKEEPING_KEYS)


def distinct_keys(runs: Sequence[Run]) -> list[str]:
    """The sorted grouping-candidate keys whose value differs between runs (absent = None)."""
    keys = sorted({key for run in runs for key in run.params if is_grouping_candidate(key)})
    return [key for key in keys if len({repr(run.params.get(key)) for run in runs}) > 1]


def make_curves(
    runs: Sequence[Run],
    x: str,
    y: str,
    group: Sequence[str] | None = None,
    split: str | None = None,
    aggregate: str | None = None,
    confidence: float = 0.95,
) -> list[Curve]:
    """Groups runs into curves (mean and std of ``y`` over the runs of each setting).

    Args:
        runs: loaded runs, each with columns ``x`` and ``y``.
        x: the x-axis column, averaged over the runs of a curve.
        y: the plotted column.
        group: keys whose values define a setting; default :func:`distinct_keys` minus ``split``.
        split: a key with one panel per value (``Curve.panel``); None for a single panel.
        aggregate: ``"iqm"``, ``"median"`` or ``"mean"``: each curve is that aggregate over
            its runs with a stratified bootstrap CI (2,000 resamples, seed 0), at the log
            points where every run has a value; None: mean and std.
        confidence: the CI's coverage.

    Returns:
        The curves, ordered by panel then setting.
    """
    runs = _runs_with_columns(runs, (x, y))
    group_keys = list(group) if group is not None else distinct_keys(runs)
    group_keys = [key for key in group_keys if key != split]
    buckets: dict[tuple[str, ...], list[Run]] = {}
    for run in runs:
        values = [run.params.get(key) for key in [split or "", *group_keys]]
        buckets.setdefault(tuple(map(repr, values)), []).append(run)
    curves = [_curve(members, x, y, group_keys, split) for members in buckets.values()]
    if aggregate is not None:
        curves = [
            _aggregated(curve, members, x, y, aggregate, confidence)
            for curve, members in zip(curves, buckets.values(), strict=True)
        ]
    return sorted(curves, key=lambda c: (_order(c.panel), [_order(v) for v in c.setting.values()]))


def _runs_with_columns(runs: Sequence[Run], columns: Sequence[str]) -> list[Run]:
    """The runs whose progress.csv has every column; the others are left out with a warning.

    A run logs a column from the first row that has it: ``ReturnAverage`` only once an episode
    has ended, so a young run of a sweep may not have it yet, and the rest still plot.

    Raises:
        ValueError: no run has them all (a misspelt column, most likely): the message lists
            the first run's columns.
    """
    kept: list[Run] = []
    left_out: list[Run] = []
    for run in runs:
        (kept if all(column in run.progress for column in columns) else left_out).append(run)
    if not kept:
        check_columns(runs[0], columns, "Choose the x and y columns among them.")
    if left_out:
        missing = [c for c in columns if any(c not in run.progress for run in left_out)]
        warnings.warn(
            f"{len(left_out)} of {len(runs)} runs have no column {missing} yet (a run logs "
            f"ReturnAverage once an episode has ended) and are left out: "
            f"{', '.join(run.path for run in left_out)}",
            stacklevel=3,
        )
    return kept


def check_columns(run: Run, columns: Sequence[str], advice: str) -> None:
    """Raise ValueError if ``run``'s progress.csv lacks one of ``columns``.

    The message names the missing columns, lists the ones there are, then ``advice``.
    """
    missing = [column for column in columns if column not in run.progress]
    if missing:
        raise ValueError(
            f"{run.path}/progress.csv has no column {missing}; its columns are "
            f"{sorted(run.progress)}. {advice}"
        )


def _curve(members: list[Run], x: str, y: str, group_keys: list[str], split: str | None) -> Curve:
    setting = {key: members[0].params.get(key) for key in group_keys}
    label = ", ".join(f"{key}={value}" for key, value in setting.items()) or y
    xs, ys = _aligned(members, x), _aligned(members, y)
    with warnings.catch_warnings():  # all-nan rows are expected where runs differ in length
        warnings.simplefilter("ignore", category=RuntimeWarning)
        x_mean, mean, std = np.nanmean(xs, 0), np.nanmean(ys, 0), np.nanstd(ys, 0)
    keep = ~np.isnan(x_mean)
    panel = members[0].params.get(split) if split else None
    return Curve(label, setting, panel, x_mean[keep], mean[keep], std[keep], len(members))


def _aggregated(
    curve: Curve, members: list[Run], x: str, y: str, aggregate: str, confidence: float
) -> Curve:
    """``curve`` with the aggregate of its runs and its CI at the points all runs have."""
    from rlpyt.utils import stats  # noqa: PLC0415

    if aggregate not in stats.AGGREGATES:
        raise ValueError(f"Unknown aggregate {aggregate!r}; use one of {sorted(stats.AGGREGATES)}.")
    xs, ys = _aligned(members, x), _aligned(members, y)
    complete = ~(np.isnan(ys).any(axis=0) | np.isnan(xs).all(axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        x_mean, std = np.nanmean(xs, 0)[complete], np.std(ys, 0)[complete]
    scores = ys[:, complete].T[..., None]  # [n_points, n_runs, 1 task]
    estimate = stats.bootstrap_ci(scores, stats.AGGREGATES[aggregate], 2000, confidence, rng=0)
    return dataclasses.replace(
        curve, x=x_mean, mean=estimate.value, std=std, aggregate=aggregate,
        low=estimate.low, high=estimate.high,
    )  # fmt: skip


def _aligned(runs: list[Run], column: str) -> np.ndarray:
    """``[n_runs, max_rows]``: each run's column by row index, nan-padded."""
    length = max(len(run.progress[column]) for run in runs)
    table = np.full((len(runs), length), np.nan)
    for i, run in enumerate(runs):
        table[i, : len(run.progress[column])] = run.progress[column]
    return table


def _order(value: object) -> tuple:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, repr(value))


def plot_runs(
    paths: Sequence[str] | str,
    x: str = "Diagnostics/CumSteps",
    y: str = "ReturnAverage",
    out: str = "curves.png",
    split: str | None = None,
    group: Sequence[str] | str | None = None,
    title: str | None = None,
    aggregate: str | None = None,
) -> str:
    """Plots ``y`` against ``x`` for every run below ``paths`` and writes a PNG.

    Args:
        paths: run or sweep folders.
        x: x-axis column (e.g. ``Diagnostics/CumSteps``).
        y: y-axis column (e.g. ``ReturnAverage``).
        out: the PNG file to write (folders are created).
        split: a parameter key (dotted) with one panel per value.
        group: parameter key(s) defining the curves; default: every key that differs.
        title: the figure title; default ``y`` (and the aggregate).
        aggregate: ``"iqm"``, ``"median"`` or ``"mean"`` with a 95% stratified bootstrap band
            over the runs of each curve; None (default): mean with a band of one std.

    Returns:
        The absolute path of the PNG.
    """
    paths = [paths] if isinstance(paths, str) else list(paths)
    runs = load_runs(paths)
    if not runs:
        raise FileNotFoundError(
            f"No run folder (progress.csv with variant.json or params.json) below {paths}."
        )
    group = [group] if isinstance(group, str) else group
    curves = make_curves(runs, x, y, group=group, split=split, aggregate=aggregate)
    if title is None and aggregate is not None:
        name = "IQM" if aggregate == "iqm" else aggregate
        title = f"{y}: {name} over runs, 95% bootstrap CI"
    return _draw(curves, x, y, split, title or y, out)


def _draw(curves: list[Curve], x: str, y: str, split: str | None, title: str, out: str) -> str:
    figure = _figure(curves, x, y, split, title)
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    figure.savefig(out, dpi=100)
    return out


def _figure(curves: list[Curve], x: str, y: str, split: str | None, title: str) -> Any:
    """The matplotlib Figure of ``curves``: one panel per ``split`` value, up to 3 per row.

    Legend entries wrap between settings (:func:`legend_label`); a panel whose legend has more
    than ``LEGEND_INSIDE_LINES`` lines gets it beside the panel, and the figure widens for it.
    """
    try:
        from matplotlib.figure import Figure  # noqa: PLC0415 (optional extra)
    except ImportError as error:
        raise ImportError('rlpyt.plot needs matplotlib: pip install "rlpyt[plot]"') from error
    panels: dict[Any, list[tuple[Curve, str]]] = {}  # panel -> its curves and legend labels
    for curve in curves:
        panels.setdefault(curve.panel, []).append((curve, legend_label(curve)))
    lines = {p: sum(label.count("\n") + 1 for _, label in cs) for p, cs in panels.items()}
    beside = max(lines.values()) > LEGEND_INSIDE_LINES
    n_cols = min(3, len(panels))
    n_rows = math.ceil(len(panels) / n_cols)
    width = 5.5 + (0.09 * LEGEND_WIDTH if beside else 0.0)  # inches per panel
    # A legend beside its panel may be taller than it: the row grows to hold it (small font:
    # about 0.17 inch per line, 0.08 between entries, 1 for titles and margins).
    entries = max(len(cs) for cs in panels.values())
    height = max(4.0, 0.17 * max(lines.values()) + 0.08 * entries + 1.0) if beside else 4.0
    figure = Figure(figsize=(width * n_cols, height * n_rows), layout="constrained")
    axes = figure.subplots(n_rows, n_cols, squeeze=False).ravel()
    for ax, (panel, panel_curves) in zip(axes, panels.items(), strict=False):
        for curve, label in panel_curves:
            (line,) = ax.plot(curve.x, curve.mean, label=label)
            low, high = curve.low, curve.high
            if low is None or high is None:
                low, high = curve.mean - curve.std, curve.mean + curve.std
            ax.fill_between(curve.x, low, high, color=line.get_color(), alpha=0.2)
        ax.set(xlabel=x, ylabel=y, title=f"{split}={panel}" if split else "")
        ax.grid(alpha=0.3)
        if lines[panel] > LEGEND_INSIDE_LINES:
            ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
        else:
            ax.legend(fontsize="small")
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    figure.suptitle(title)
    return figure


def legend_label(curve: Curve) -> str:
    """``curve``'s label as legend lines of at most ``LEGEND_WIDTH`` characters.

    Lines break between ``key=value`` settings, never inside one (a longer setting has a line
    of its own); a curve without settings keeps its label.
    """
    if not curve.setting:
        return curve.label
    lines: list[str] = []
    for setting in (f"{key}={value}" for key, value in curve.setting.items()):
        if lines and len(lines[-1]) + 2 + len(setting) <= LEGEND_WIDTH:
            lines[-1] += ", " + setting
        else:
            lines.append(setting)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: parse arguments, plot, print the PNG's path."""
    parser = argparse.ArgumentParser(
        prog="python -m rlpyt.plot", description=__doc__.split("\n")[0]
    )
    parser.add_argument("paths", nargs="+", help="run or sweep folders (searched recursively)")
    parser.add_argument("--x", default="Diagnostics/CumSteps", help="x-axis column")
    parser.add_argument("--y", default="ReturnAverage", help="y-axis column")
    parser.add_argument("--split", default=None, help="parameter key: one panel per value")
    parser.add_argument(
        "--group", action="append", default=None, help="parameter key defining curves (repeatable)"
    )
    parser.add_argument("--out", default="curves.png", help="PNG file to write")
    parser.add_argument("--title", default=None, help="figure title (default: the y column)")
    parser.add_argument(
        "--aggregate",
        choices=("iqm", "median", "mean"),
        default=None,
        help="aggregate over runs with a 95%% stratified bootstrap band (default: mean +- std)",
    )
    args = parser.parse_args(argv)
    path = plot_runs(
        args.paths, args.x, args.y, args.out, args.split, args.group, args.title, args.aggregate
    )
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
