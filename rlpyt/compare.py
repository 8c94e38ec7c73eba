"""Compare the settings of a sweep over seeds: IQM, median, mean, optimality gap with CIs.

Box: analysis of run folders (``rlpyt compare`` calls :func:`compare_runs`). Runs are found
and grouped as ``rlpyt plot`` does (:mod:`rlpyt.plot`): every folder with ``progress.csv`` and
``variant.json``/``params.json``, one setting per distinct value of the keys that differ
between runs (seeds and run bookkeeping excluded), the runs of a setting being its seeds.
Each run gives two scores of a progress.csv column (``ReturnAverage`` by default):

- **final**: its value at the last log row (the mean of the last ``last`` rows);
- **AUC**: the area under its curve against env steps divided by the steps covered, i.e.
  the average score over training (trapezoids; rows where the column is nan are skipped).

Per setting and score, :mod:`rlpyt.utils.stats` gives the IQM, median, mean and optimality
gap with stratified bootstrap confidence intervals, and the performance profiles (fraction of
runs above each score) are drawn into a PNG. With ``task``, runs are also split by that key
(e.g. ``env.id``): tasks are the bootstrap's strata, and each setting needs the same number
of runs on every task. docs/statistics.md explains the method.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rlpyt.plot import Run, check_columns, distinct_keys, load_runs
from rlpyt.utils import stats

if TYPE_CHECKING:
    from matplotlib.axes import Axes

SCORES = ("final", "AUC")
ESTIMATORS = ("IQM", "median", "mean", "optimality gap")


@dataclass
class SettingScores:
    """One setting: its runs' scores ``[n_runs, n_tasks]`` per score kind, and their estimates.

    ``estimates[score][estimator]`` is a :class:`rlpyt.utils.stats.Estimate` of scalars.
    """

    label: str
    setting: dict[str, Any]
    tasks: list[Any]
    scores: dict[str, np.ndarray]
    estimates: dict[str, dict[str, stats.Estimate]] = field(default_factory=dict)

    @property
    def n_runs(self) -> int:
        """Runs (seeds) per task."""
        return int(self.scores["final"].shape[0])


@dataclass
class Comparison:
    """What :func:`compare_runs` found: settings in order, and how it was computed."""

    y: str
    x: str
    settings: list[SettingScores]
    gamma: float | None
    gamma_source: str
    reps: int
    confidence: float


def run_scores(run: Run, x: str, y: str, last: int = 1) -> tuple[float, float]:
    """A run's final score (mean of ``y`` over its last ``last`` non-nan rows) and AUC score.

    The AUC score is ``trapz(y, x) / (x[-1] - x[0])`` over the non-nan rows: the average of
    ``y`` over the steps covered (the one value when there is a single row).

    Raises:
        ValueError: the run has no row where ``x`` and ``y`` are both numbers.
    """
    xs, ys = run.progress[x], run.progress[y]
    keep = ~(np.isnan(xs) | np.isnan(ys))
    xs, ys = xs[keep], ys[keep]
    if ys.size == 0:
        raise ValueError(f"{run.path}/progress.csv has no row with numbers in {x!r} and {y!r}.")
    final = float(np.mean(ys[-last:]))
    if ys.size == 1 or xs[-1] == xs[0]:
        return final, float(ys[-1])
    area = float(np.sum((ys[1:] + ys[:-1]) * np.diff(xs)) / 2.0)
    return final, area / float(xs[-1] - xs[0])


def group_settings(
    runs: Sequence[Run], group: Sequence[str] | None = None, task: str | None = None
) -> list[tuple[dict[str, Any], list[Run]]]:
    """Runs grouped by setting: ``[(setting values, runs)]`` in sorted setting order.

    Args:
        runs: loaded runs.
        group: keys whose values define a setting; default every key that differs
            (:func:`rlpyt.plot.distinct_keys`), less ``task`` and the keys that follow it.
        task: a key that splits a setting's runs into tasks (not part of the setting).
    """
    keys = [key for key in (group if group is not None else distinct_keys(runs)) if key != task]
    if group is None and task is not None:
        keys = [key for key in keys if not follows_task(runs, key, task)]
    buckets: dict[tuple[str, ...], list[Run]] = {}
    for run in runs:
        buckets.setdefault(tuple(repr(run.params.get(key)) for key in keys), []).append(run)
    grouped = [
        ({key: members[0].params.get(key) for key in keys}, members) for members in buckets.values()
    ]
    return sorted(grouped, key=lambda item: [_order(value) for value in item[0].values()])


def follows_task(runs: Sequence[Run], key: str, task: str) -> bool:
    """Whether ``key`` takes one value per task: a name of the task, not a setting.

    ``environment``, ``name`` and ``eval_env.id`` of command-line runs follow ``env.id`` so.
    """
    values: dict[str, set[str]] = {}
    for run in runs:
        values.setdefault(repr(run.params.get(task)), set()).add(repr(run.params.get(key)))
    return all(len(seen) == 1 for seen in values.values())


def _order(value: object) -> tuple:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, repr(value))


def score_matrix(
    members: Sequence[Run], x: str, y: str, task: str | None, last: int
) -> tuple[list[Any], dict[str, np.ndarray]]:
    """Tasks and ``{"final": [R, T], "AUC": [R, T]}`` of one setting's runs.

    Raises:
        ValueError: the tasks have different numbers of runs.
    """
    by_task: dict[str, list[Run]] = {}
    for run in members:
        by_task.setdefault(repr(run.params.get(task)) if task else "", []).append(run)
    counts = {key: len(runs) for key, runs in by_task.items()}
    if len(set(counts.values())) > 1:
        raise ValueError(
            f"Each task needs the same number of runs in a setting; {task} has {counts} "
            f"(runs of {os.path.dirname(members[0].path)})."
        )
    order = sorted(by_task, key=lambda key: _order(by_task[key][0].params.get(task or "")))
    per_run = [[run_scores(run, x, y, last) for run in by_task[key]] for key in order]
    table = np.array(per_run, dtype=np.float64).transpose(1, 0, 2)  # [R, T, 2]
    tasks = [by_task[key][0].params.get(task) if task else None for key in order]
    return tasks, {"final": table[..., 0], "AUC": table[..., 1]}


def default_gamma(runs: Sequence[Run]) -> tuple[float | None, str]:
    """The optimality gap's ``gamma``: the reward threshold of the runs' one gymnasium env.

    Returns:
        ``(gamma, where it came from)``; ``(None, reason)`` when the runs name no env id,
        several, or one without a ``reward_threshold``.
    """
    env_ids = {run.params.get("env.id") for run in runs}
    if len(env_ids) != 1 or None in env_ids:
        return None, "pass --gamma (the runs do not share one env.id)"
    (env_id,) = env_ids
    try:
        import gymnasium  # noqa: PLC0415

        threshold = gymnasium.spec(str(env_id)).reward_threshold
    except Exception:  # noqa: BLE001 (any failure to look it up means: no default)
        threshold = None
    if threshold is None:
        return None, f"pass --gamma ({env_id} has no reward_threshold)"
    return float(threshold), f"{env_id}'s reward_threshold"


def compare_runs(
    paths: Sequence[str] | str,
    y: str = "ReturnAverage",
    x: str = "Diagnostics/CumSteps",
    group: Sequence[str] | None = None,
    task: str | None = None,
    gamma: float | None = None,
    last: int = 1,
    reps: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Comparison:
    """Scores and aggregate estimates with CIs for every setting of the runs below ``paths``.

    Args:
        paths: run or sweep folders.
        y: the scored progress.csv column.
        x: the env-steps column (for the AUC score).
        group: keys defining a setting (default: every key that differs).
        task: a key whose values are tasks (bootstrap strata), e.g. ``env.id``.
        gamma: the optimality gap's target; default the env's reward threshold if the runs
            share a gymnasium env that has one, else no gap.
        last: log rows averaged into the final score.
        reps: bootstrap resamples.
        confidence: CI coverage.
        seed: the bootstrap's seed (the same numbers on every call).

    Raises:
        FileNotFoundError: no run below ``paths``.
        ValueError: a missing column, or unequal runs per task.
    """
    paths = [paths] if isinstance(paths, str) else list(paths)
    runs = load_runs(paths)
    if not runs:
        raise FileNotFoundError(f"No run folder (progress.csv with variant.json) below {paths}.")
    for run in runs:
        check_columns(
            run,
            (x, y),
            "A run logs ReturnAverage once an episode has ended: compare runs that have, or "
            "choose the columns among these.",
        )
    source = "--gamma"
    if gamma is None:
        gamma, source = default_gamma(runs)
    comparison = Comparison(y, x, [], gamma, source, reps, confidence)
    for setting, members in group_settings(runs, group, task):
        label = ", ".join(f"{key}={value}" for key, value in setting.items()) or "all runs"
        tasks, scores = score_matrix(members, x, y, task, last)
        entry = SettingScores(label, setting, tasks, scores)
        for kind in SCORES:
            entry.estimates[kind] = estimate_all(scores[kind], gamma, reps, confidence, seed)
        comparison.settings.append(entry)
    return comparison


def estimate_all(
    scores: np.ndarray, gamma: float | None, reps: int, confidence: float, seed: int
) -> dict[str, stats.Estimate]:
    """IQM, median, mean (and optimality gap when ``gamma`` is given) of ``[R, T]`` scores."""
    statistics: dict[str, stats.Statistic] = {
        "IQM": stats.aggregate_iqm,
        "median": stats.aggregate_median,
        "mean": stats.aggregate_mean,
    }
    if gamma is not None:
        statistics["optimality gap"] = functools.partial(stats.optimality_gap, gamma=gamma)
    return {
        name: stats.bootstrap_ci(scores, statistic, reps, confidence, rng=seed)
        for name, statistic in statistics.items()
    }


def format_estimate(estimate: stats.Estimate) -> str:
    """``"value [low, high]"`` with 4 significant digits."""
    return f"{float(estimate.value):.4g} [{float(estimate.low):.4g}, {float(estimate.high):.4g}]"


def format_table(comparison: Comparison) -> str:
    """The comparison as a text table: one row per setting and score kind."""
    c = comparison
    gap = "n/a" if c.gamma is None else f"{c.gamma:g} ({c.gamma_source})"
    lines = [
        f"{c.y} of {len(c.settings)} settings: estimate [{c.confidence:.0%} CI], stratified "
        f"bootstrap over runs, {c.reps} resamples",
        "final = last log row; AUC = average over training (area under the curve / steps)",
        f"optimality gap = mean(max(gamma - score, 0)), gamma = {gap}",
        "",
    ]
    header = ["setting", "runs", "score", *ESTIMATORS]
    rows = []
    for entry in c.settings:
        runs = f"{entry.n_runs}" + (f"x{len(entry.tasks)}" if len(entry.tasks) > 1 else "")
        for i, kind in enumerate(SCORES):
            cells = [
                format_estimate(entry.estimates[kind][name])
                if name in entry.estimates[kind]
                else "-"
                for name in ESTIMATORS
            ]
            rows.append([entry.label if i == 0 else "", runs if i == 0 else "", kind, *cells])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        lines.append(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    return "\n".join(lines)


def draw_profiles(comparison: Comparison, out: str, n_taus: int = 101) -> str:
    """Performance profiles (fraction of runs scoring above tau, with CI bands) as a PNG.

    One panel per score kind (final, AUC), one curve per setting; bands from at most 2,000
    bootstrap resamples.

    Returns:
        The absolute path of the PNG.
    """
    try:
        from matplotlib.figure import Figure  # noqa: PLC0415 (optional extra)
    except ImportError as error:
        raise ImportError(
            'Performance profiles need matplotlib: pip install "rlpyt[plot]"'
        ) from error
    figure = Figure(figsize=(11.0, 4.0), layout="constrained")
    axes = figure.subplots(1, len(SCORES), squeeze=False).ravel()
    for ax, kind in zip(axes, SCORES, strict=True):
        _draw_profile_panel(ax, comparison, kind, n_taus)
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    figure.savefig(out, dpi=100)
    return out


def _draw_profile_panel(ax: Axes, comparison: Comparison, kind: str, n_taus: int) -> None:
    every = np.concatenate([entry.scores[kind].ravel() for entry in comparison.settings])
    taus = np.linspace(every.min(), every.max(), n_taus)
    profile_of = functools.partial(stats.performance_profile, taus=taus)
    for entry in comparison.settings:
        reps = min(comparison.reps, 2000)
        profile = stats.bootstrap_ci(entry.scores[kind], profile_of, reps, comparison.confidence)
        (line,) = ax.plot(taus, profile.value, label=entry.label)
        ax.fill_between(taus, profile.low, profile.high, color=line.get_color(), alpha=0.2)
    ax.set(xlabel=f"{kind} {comparison.y} (tau)", ylabel="fraction of runs > tau")
    ax.set_title(f"performance profile: {kind} score")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
