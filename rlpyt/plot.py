"""Learning curves from run folders, viskit-style, as a PNG: ``python -m rlpyt.plot``.

::

    python -m rlpyt.plot data/local/20250101/120000/my_sweep --y ReturnAverage --split env.id

Every folder below the given paths holding ``progress.csv`` and ``variant.json`` (or
``params.json``) is a run. Parameters are flattened with dots (``algo.learning_rate``); each run
also gets the keys ``algorithm`` and ``environment`` (:func:`run_identity`) where its files name
them another way. By default each (algorithm, environment) pair is one panel, titled with both;
``--split`` makes one panel per value of another key (``none``: one panel). Inside a panel, runs
are grouped by the parameters whose values differ between its runs of one algorithm and env,
except the ones viskit never groups by (top-level keys starting with ``seed`` or ``log_dir``)
and the run bookkeeping (``run_ID``, ``exp_name``, ``git_commit``, ``git_dirty``,
``command_line``, ``package_versions.*``): one curve per distinct setting, the mean over its runs
with a band of one standard deviation, runs aligned by row (log point) as viskit does; the legend
names what varies inside the panel (none when nothing does). ``--group`` picks the grouping keys
by hand; ``--filter KEY=VALUE`` keeps the runs with that value. The figure draws at most
:data:`MAX_PANELS` panels of :data:`MAX_CURVES` curves each, so its size stays bounded; what is
left out is reported. ``--aggregate iqm|median|mean`` draws that aggregate over the runs instead,
with a stratified bootstrap confidence band (:mod:`rlpyt.utils.stats`), at the log points every
run of the curve has a value for. Needs matplotlib (``pip install "rlpyt[plot]"``), imported only
here.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

PARAMS_FILES = ("variant.json", "params.json")  # viskit's order of preference
LEGEND_WIDTH = 40  # characters per legend line: a curve's settings wrap between settings
LEGEND_INSIDE_LINES = 12  # a panel's legend with more lines goes beside it, not over the curves
BOOKKEEPING_KEYS = ("run_ID", "exp_name", "git_commit", "git_dirty", "command_line")
ALGORITHM_KEY = "algorithm"  # top-level params key: `rlpyt train`'s algorithm name, e.g. "ppo"
ENV_KEY = "environment"  # top-level params key: the env's gymnasium id, Atari game or task id
IDENTITY_KEYS = (ALGORITHM_KEY, ENV_KEY)
ENV_NAME_KEYS = ("env.id", "env.game", "env.task_id")  # where a config names its env
RESOLVED_ALGO_KEY = "resolved.algo.class"  # params.json's record of the algorithm class
RESOLVED_ENV_PREFIX = "resolved.sampler.kwargs.env_kwargs."
SPLIT_NONE = "none"  # --split value that puts every curve in one panel
MAX_PANELS = 9  # panels drawn; the others are reported as left out
MAX_CURVES = 10  # curves drawn per panel (matplotlib's ten default colours)
PANEL_SIZE = (5.5, 4.0)  # inches of one panel without its legend
LEGEND_BESIDE_WIDTH = 0.09 * LEGEND_WIDTH  # inches a legend beside its panel adds
MAX_ROWS_HEIGHT = 16.0  # inches all rows may share when legends make rows taller
DPI = 100


@dataclass
class Run:
    """One run folder: ``progress`` maps column -> ``[n_rows]`` float64 (unparseable = nan)."""

    path: str
    params: dict[str, Any]
    progress: dict[str, np.ndarray]


@dataclass
class Curve:
    """One setting's curve: ``x``, ``mean``, ``std`` are ``[n_points]`` over ``n_runs`` runs.

    ``panel`` is the panel's key (the ``split`` value, or the ``(algorithm, environment)``
    pair), ``panel_title`` its title. With an ``aggregate`` (``"iqm"``, ``"median"``,
    ``"mean"``), ``mean`` holds that aggregate and ``low``/``high`` its confidence interval
    (``std`` is still the runs' std).
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
    panel_title: str = ""


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
    """Every run folder below ``paths`` (searched recursively), in sorted path order.

    Each run's flat params get the :data:`IDENTITY_KEYS` its files name another way
    (:func:`run_identity`).
    """
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
                params.update(run_identity(params, folder))
                progress = read_progress(os.path.join(folder, "progress.csv"))
                runs.append(Run(folder, params, progress))
    return runs


def run_identity(params: dict[str, Any], folder: str) -> dict[str, str]:
    """The ``algorithm`` and ``environment`` of a run whose params do not record them.

    ``rlpyt train`` records both at the top level. For runs of train scripts, the algorithm
    is named from the class params.json records under ``resolved.algo.class``
    (:func:`algorithm_name`: ``ppo`` for rlpyt's PPO) and the
    environment the config's ``env.id``, ``env.game`` or ``env.task_id``, else the resolved
    sampler's env keywords.

    Args:
        params: the run's flat params (from variant.json or params.json).
        folder: the run folder; its params.json is read when ``params`` lacks the resolved
            section (variant.json has none).

    Returns:
        Those of :data:`IDENTITY_KEYS` that ``params`` lacks and the files tell (possibly none).
    """
    if all(key in params for key in IDENTITY_KEYS):
        return {}
    resolved = params if RESOLVED_ALGO_KEY in params else _resolved_params(folder)
    found: dict[str, str] = {}
    algo_class = resolved.get(RESOLVED_ALGO_KEY)
    if isinstance(algo_class, str):
        found[ALGORITHM_KEY] = algorithm_name(algo_class)
    resolved_names = [RESOLVED_ENV_PREFIX + key.split(".", 1)[1] for key in ENV_NAME_KEYS]
    names = [params.get(key) for key in ENV_NAME_KEYS]
    names += [resolved.get(key) for key in resolved_names]
    env = next((name for name in names if isinstance(name, str)), None)
    if env is not None:
        found[ENV_KEY] = env
    return {key: value for key, value in found.items() if key not in params}


def algorithm_name(class_path: str) -> str:
    """``rlpyt train``'s name of one of rlpyt's algorithm classes, else the class's own name.

    ``"rlpyt.algos.pg.ppo.PPO"`` gives ``"ppo"``, so a train script's PPO runs share a panel
    with the command line's; a class from elsewhere (a user's own) keeps its class name.
    (The command line's names are its classes' names in lower case, ``catdqn`` aside; a test
    holds this to the command line's registry, which this box may not import.)
    """
    module, _, name = class_path.rpartition(".")
    if not module.startswith("rlpyt.algos."):
        return name
    return _SHORT_ALGORITHM_NAMES.get(name, name.lower())


_SHORT_ALGORITHM_NAMES = {"CategoricalDQN": "catdqn"}


def _resolved_params(folder: str) -> dict[str, Any]:
    """The flat ``resolved.*`` entries of ``folder``'s params.json ({} if it has none)."""
    try:
        with open(os.path.join(folder, "params.json")) as f:
            params = json.load(f)
    except (OSError, ValueError):
        return {}
    resolved = params.get("resolved") if isinstance(params, dict) else None
    return flatten_params({"resolved": resolved}) if isinstance(resolved, dict) else {}


def filter_runs(runs: Sequence[Run], filters: Sequence[str]) -> list[Run]:
    """The runs whose params match every ``KEY=VALUE`` filter.

    Values compare as text (case-insensitive) or as numbers (``1e-3`` matches ``0.001``);
    filters on one key keep the runs matching any of their values.

    Raises:
        ValueError: a filter is not ``KEY=VALUE``, no run records its key, or no run matches
            (the message lists the values there are).
    """
    wanted: dict[str, list[str]] = {}
    for text in filters:
        key, equals, value = text.partition("=")
        if not equals or not key.strip():
            raise ValueError(
                f"Filter {text!r} is not KEY=VALUE; e.g. algorithm=ppo or env.id=CartPole-v1."
            )
        wanted.setdefault(key.strip(), []).append(value.strip())
    for key in wanted:
        if not any(key in run.params for run in runs):
            raise ValueError(
                f"Filter {key!r}: no run records that key. Keys that differ between the runs: "
                f"{', '.join(distinct_keys(runs)) or 'none'}."
            )
    kept = [run for run in runs if all(_matches(run.params.get(k), v) for k, v in wanted.items())]
    if not kept:
        values = {
            k: sorted({str(run.params[k]) for run in runs if k in run.params}) for k in wanted
        }
        raise ValueError(f"No run matches the filters {list(filters)}; the runs have {values}.")
    return kept


def _matches(value: object, texts: Sequence[str]) -> bool:
    for text in texts:
        if str(value).casefold() == text.casefold():
            return True
        if isinstance(value, int | float) and not isinstance(value, bool):
            try:
                if float(text) == float(value):
                    return True
            except ValueError:
                continue
    return False


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
    """Groups runs into panels and curves (mean and std of ``y`` over the runs of each setting).

    Args:
        runs: loaded runs, each with columns ``x`` and ``y``.
        x: the x-axis column, averaged over the runs of a curve.
        y: the plotted column.
        group: keys whose values define a setting across a panel; default: inside a panel,
            the algorithm and environment where they vary, then, per algorithm and
            environment, :func:`distinct_keys` of its runs (less ``split``).
        split: a key with one panel per value; None: one panel per (algorithm, environment)
            pair, in that order (unrecorded last); :data:`SPLIT_NONE`: a single panel.
        aggregate: ``"iqm"``, ``"median"`` or ``"mean"``: each curve is that aggregate over
            its runs with a stratified bootstrap CI (2,000 resamples, seed 0), at the log
            points where every run has a value; None: mean and std.
        confidence: the CI's coverage.

    Returns:
        The curves, ordered by panel then setting.
    """
    runs = _runs_with_columns(runs, (x, y))
    panels: dict[str, list[Run]] = {}
    for run in runs:
        panels.setdefault(repr(_panel_key(run, split)), []).append(run)
    ordered = sorted(panels.values(), key=lambda ms: _panel_order(_panel_key(ms[0], split), split))
    curves = []
    for members in ordered:
        panel = _panel_key(members[0], split)
        title = panel_title(panel, split) if len(panels) > 1 or panel != (None, None) else ""
        for setting, bucket in _settings(members, group, split):
            curve = _curve(bucket, x, y, setting, panel, title)
            if aggregate is not None:
                curve = _aggregated(curve, bucket, x, y, aggregate, confidence)
            curves.append(curve)
    return curves


def _identity(run: Run) -> tuple[Any, Any]:
    return run.params.get(ALGORITHM_KEY), run.params.get(ENV_KEY)


def _panel_key(run: Run, split: str | None) -> Any:
    if split is None:
        return _identity(run)
    return None if split == SPLIT_NONE else run.params.get(split)


def _panel_order(panel: Any, split: str | None) -> tuple:
    if split is None:  # by algorithm, then environment; unrecorded ones last
        return tuple((part is None, str(part).casefold()) for part in panel)
    return _order(panel)


def panel_title(panel: Any, split: str | None) -> str:
    """A panel's title: ``ppo on CartPole-v1``, what is known of the pair, or ``key=value``."""
    if split == SPLIT_NONE:
        return ""
    if split is not None:
        return f"{split}={panel}"
    known = [str(part) for part in panel if part is not None]
    return " on ".join(known) if known else "algorithm and env not recorded"


def _settings(
    members: list[Run], group: Sequence[str] | None, split: str | None
) -> list[tuple[dict[str, Any], list[Run]]]:
    """A panel's runs grouped by setting, ``[(setting, runs)]`` in setting order."""
    if group is not None:
        keys = [key for key in group if key != split]
        settings = [{key: run.params.get(key) for key in keys} for run in members]
    else:
        by_identity: dict[tuple[Any, Any], list[Run]] = {}
        for run in members:
            by_identity.setdefault(_identity(run), []).append(run)
        own_keys = {
            identity: [key for key in distinct_keys(runs) if key not in (*IDENTITY_KEYS, split)]
            for identity, runs in by_identity.items()
        }
        shown = [key for key in IDENTITY_KEYS if key != split and _varies(members, key)]
        settings = [
            {key: run.params.get(key) for key in shown + own_keys[_identity(run)]}
            for run in members
        ]
    buckets: dict[str, tuple[dict[str, Any], list[Run]]] = {}
    for setting, run in zip(settings, members, strict=True):
        buckets.setdefault(repr(list(setting.items())), (setting, []))[1].append(run)
    return sorted(buckets.values(), key=lambda item: [(k, _order(v)) for k, v in item[0].items()])


def _varies(runs: Sequence[Run], key: str) -> bool:
    return len({repr(run.params.get(key)) for run in runs}) > 1


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


def _curve(
    members: list[Run], x: str, y: str, setting: dict[str, Any], panel: Any, title: str
) -> Curve:
    label = ", ".join(f"{key}={value}" for key, value in setting.items()) or y
    xs, ys = _aligned(members, x), _aligned(members, y)
    with warnings.catch_warnings():  # all-nan rows are expected where runs differ in length
        warnings.simplefilter("ignore", category=RuntimeWarning)
        x_mean, mean, std = np.nanmean(xs, 0), np.nanmean(ys, 0), np.nanstd(ys, 0)
    keep = ~np.isnan(x_mean)
    return Curve(
        label, setting, panel, x_mean[keep], mean[keep], std[keep], len(members),
        panel_title=title,
    )  # fmt: skip


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
    *,
    filters: Sequence[str] = (),
    echo: Callable[[str], None] | None = None,
) -> str:
    """Plots ``y`` against ``x`` for every run below ``paths`` and writes a PNG.

    Args:
        paths: run or sweep folders.
        x: x-axis column (e.g. ``Diagnostics/CumSteps``).
        y: y-axis column (e.g. ``ReturnAverage``).
        out: the PNG file to write (folders are created).
        split: a parameter key (dotted) with one panel per value; None (default): one panel
            per algorithm and environment; ``"none"``: one panel.
        group: parameter key(s) defining the curves; default: what differs inside a panel.
        title: the figure title; default ``y`` (and the aggregate).
        aggregate: ``"iqm"``, ``"median"`` or ``"mean"`` with a 95% stratified bootstrap band
            over the runs of each curve; None (default): mean with a band of one std.
        filters: ``KEY=VALUE`` strings; only matching runs are plotted (:func:`filter_runs`).
        echo: called with a one-line summary of the grouping and a line per thing left out
            (:func:`select_curves`); None: only what is left out, as a warning.

    Returns:
        The absolute path of the PNG.
    """
    paths = [paths] if isinstance(paths, str) else list(paths)
    runs = load_runs(paths)
    if not runs:
        raise FileNotFoundError(
            f"No run folder (progress.csv with variant.json or params.json) below {paths}."
        )
    if filters:
        runs = filter_runs(runs, filters)
    group = [group] if isinstance(group, str) else group
    curves = make_curves(runs, x, y, group=group, split=split, aggregate=aggregate)
    selection = select_curves(curves)
    notes = left_out_notes(selection, split)
    if echo is not None:
        for line in [grouping_summary(curves, split), *notes]:
            echo(line)
    else:
        for note in notes:
            warnings.warn(note, stacklevel=2)
    if title is None and aggregate is not None:
        name = "IQM" if aggregate == "iqm" else aggregate
        title = f"{y}: {name} over runs, 95% bootstrap CI"
    return _draw(selection.curves, x, y, title or y, out)


@dataclass
class Selection:
    """The curves a figure draws, and what it leaves out to stay a readable size.

    Attributes:
        curves: the curves drawn: those of the first :data:`MAX_PANELS` panels, at most
            :data:`MAX_CURVES` of each, in the order given.
        left_out_panels: the titles of the panels left out.
        left_out_curves: panel title -> the labels of its curves left out.
    """

    curves: list[Curve]
    left_out_panels: list[str]
    left_out_curves: dict[str, list[str]]


def select_curves(
    curves: Sequence[Curve], max_panels: int = MAX_PANELS, max_curves: int = MAX_CURVES
) -> Selection:
    """The first ``max_panels`` panels of ``curves`` and the first ``max_curves`` of each."""
    selection = Selection([], [], {})
    for i, panel_curves in enumerate(_by_panel(curves)):
        name = panel_curves[0].panel_title or "the panel"
        if i >= max_panels:
            selection.left_out_panels.append(name)
            continue
        selection.curves.extend(panel_curves[:max_curves])
        if len(panel_curves) > max_curves:
            selection.left_out_curves[name] = [c.label for c in panel_curves[max_curves:]]
    return selection


def _by_panel(curves: Sequence[Curve]) -> list[list[Curve]]:
    panels: dict[str, list[Curve]] = {}
    for curve in curves:
        panels.setdefault(repr(curve.panel), []).append(curve)
    return list(panels.values())


def grouping_summary(curves: Sequence[Curve], split: str | None) -> str:
    """One line: the runs, the panels (how they were made) and each panel's curves."""
    how = {None: "one per algorithm and env", SPLIT_NONE: "a single panel"}.get(
        split, f"one per value of {split}"
    )
    panels = _by_panel(curves)
    parts = []
    for panel_curves in panels:
        keys = sorted({key for curve in panel_curves for key in curve.setting})
        count = _count(len(panel_curves), "curve")
        by = f" by {', '.join(keys)}" if keys else ""
        parts.append(f"{panel_curves[0].panel_title or 'all runs'}: {count}{by}")
    n_runs = _count(sum(curve.n_runs for curve in curves), "run")
    return f"{n_runs} in {_count(len(panels), 'panel')} ({how}); " + "; ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def left_out_notes(selection: Selection, split: str | None) -> list[str]:
    """A line per panel or curve list the figure leaves out, saying how to choose instead."""
    notes = []
    if selection.left_out_panels:
        order = "by algorithm, then env" if split is None else "by value"
        notes.append(
            f"Left out {len(selection.left_out_panels)} panels (the first {MAX_PANELS} "
            f"{order} are drawn): {', '.join(selection.left_out_panels)}. Choose the runs with "
            "--filter KEY=VALUE (repeatable; e.g. --filter algorithm=ppo --filter "
            "environment=CartPole-v1) or the panels with --split KEY."
        )
    for name, labels in selection.left_out_curves.items():
        notes.append(
            f"Left out {len(labels)} curves of {name} (the first {MAX_CURVES} in order of "
            f"their settings are drawn): {'; '.join(labels)}. Choose the runs with --filter "
            "KEY=VALUE, or give each value of a key its own panel with --split KEY."
        )
    return notes


def _draw(curves: list[Curve], x: str, y: str, title: str, out: str) -> str:
    figure = _figure(curves, x, y, title)
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    figure.savefig(out, dpi=DPI)
    return out


@dataclass
class _Layout:
    n_rows: int
    n_cols: int
    size: tuple[float, float]  # inches
    label_lines: int | None  # the most lines a legend entry keeps (None: all)


def _layout(panels: list[list[Curve]]) -> _Layout:
    """The grid and size of a figure of ``panels``.

    Panels are :data:`PANEL_SIZE` inches, up to 3 per row. Where a legend has more than
    ``LEGEND_INSIDE_LINES`` lines, legends go beside their panels (2 per row, each wider by
    :data:`LEGEND_BESIDE_WIDTH`) and the rows grow to hold them (small font: about 0.17 inch
    per line, 0.08 between entries, 1 for titles and margins), up to :data:`MAX_ROWS_HEIGHT`
    inches for all rows; where that is too little, entries are cut to fewer lines.
    """
    lines = max(_legend_lines(panel_curves) for panel_curves in panels)
    entries = max(len(panel_curves) for panel_curves in panels)
    beside = lines > LEGEND_INSIDE_LINES
    n_cols = min(2 if beside else 3, len(panels))
    n_rows = math.ceil(len(panels) / n_cols)
    width, height = PANEL_SIZE
    label_lines = None
    if beside:
        width += LEGEND_BESIDE_WIDTH
        needed = 0.17 * lines + 0.08 * entries + 1.0
        height = min(max(height, MAX_ROWS_HEIGHT / n_rows), max(height, needed))
        if needed > height:
            label_lines = max(1, int((height - 1.0 - 0.08 * entries) / 0.17) // entries)
    return _Layout(n_rows, n_cols, (width * n_cols, height * n_rows), label_lines)


def _legend_lines(panel_curves: list[Curve]) -> int:
    """Lines of a panel's legend (0 when it has none)."""
    if not _has_legend(panel_curves):
        return 0
    return sum(legend_label(curve).count("\n") + 1 for curve in panel_curves)


def _has_legend(panel_curves: list[Curve]) -> bool:
    """A panel has a legend when something varies inside it."""
    return len(panel_curves) > 1 or bool(panel_curves[0].setting)


def _figure(curves: list[Curve], x: str, y: str, title: str) -> Any:
    """The matplotlib Figure of ``curves``: one panel per ``Curve.panel`` (see :func:`_layout`).

    Legend entries wrap between settings (:func:`legend_label`); a panel whose legend has more
    than ``LEGEND_INSIDE_LINES`` lines gets it beside the panel, and the figure widens for it.
    """
    try:
        from matplotlib.figure import Figure  # noqa: PLC0415 (optional extra)
    except ImportError as error:
        raise ImportError('rlpyt.plot needs matplotlib: pip install "rlpyt[plot]"') from error
    panels = _by_panel(curves)
    layout = _layout(panels)
    figure = Figure(figsize=layout.size, layout="constrained")
    axes = figure.subplots(layout.n_rows, layout.n_cols, squeeze=False).ravel()
    for ax, panel_curves in zip(axes, panels, strict=False):
        _draw_panel(ax, panel_curves, x, y, layout.label_lines)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    figure.suptitle(title)
    return figure


def _draw_panel(
    ax: Any, panel_curves: list[Curve], x: str, y: str, label_lines: int | None
) -> None:
    for curve in panel_curves:
        marker = "o" if curve.x.size == 1 else None  # a line of one point draws nothing
        label = legend_label(curve, label_lines)
        (line,) = ax.plot(curve.x, curve.mean, marker=marker, label=label)
        low, high = curve.low, curve.high
        if low is None or high is None:
            low, high = curve.mean - curve.std, curve.mean + curve.std
        ax.fill_between(curve.x, low, high, color=line.get_color(), alpha=0.2)
    ax.set(xlabel=x, ylabel=y, title=panel_curves[0].panel_title)
    ax.grid(alpha=0.3)
    if not _has_legend(panel_curves):
        return
    if _legend_lines(panel_curves) > LEGEND_INSIDE_LINES:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    else:
        ax.legend(fontsize="small")


def legend_label(curve: Curve, max_lines: int | None = None) -> str:
    """``curve``'s label as legend lines of at most ``LEGEND_WIDTH`` characters.

    Lines break between ``key=value`` settings, never inside one (a longer setting has a line
    of its own, cut to the width with ``…``); a curve without settings keeps its label. With
    ``max_lines``, the lines after it are left out and the last one ends with ``…``.
    """
    if not curve.setting:
        return curve.label
    lines: list[str] = []
    for setting in (f"{key}={value}" for key, value in curve.setting.items()):
        if len(setting) > LEGEND_WIDTH:
            setting = setting[: LEGEND_WIDTH - 1] + "…"
        if lines and len(lines[-1]) + 2 + len(setting) <= LEGEND_WIDTH:
            lines[-1] += ", " + setting
        else:
            lines.append(setting)
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: LEGEND_WIDTH - 2] + " …"
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: parse arguments, plot, print the PNG's path (the grouping on stderr)."""
    parser = argparse.ArgumentParser(
        prog="python -m rlpyt.plot", description=__doc__.split("\n")[0]
    )
    parser.add_argument("paths", nargs="+", help="run or sweep folders (searched recursively)")
    parser.add_argument("--x", default="Diagnostics/CumSteps", help="x-axis column")
    parser.add_argument("--y", default="ReturnAverage", help="y-axis column")
    parser.add_argument(
        "--split",
        default=None,
        help="parameter key: one panel per value ('none': one panel; default: one panel per "
        "algorithm and env)",
    )
    parser.add_argument(
        "--group", action="append", default=None, help="parameter key defining curves (repeatable)"
    )
    parser.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="plot only the runs with this value (repeatable)",
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
        args.paths, args.x, args.y, args.out, args.split, args.group, args.title, args.aggregate,
        filters=args.filter, echo=lambda line: print(line, file=sys.stderr),
    )  # fmt: skip
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
