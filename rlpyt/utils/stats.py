"""Aggregate scores over seeds with stratified bootstrap confidence intervals (numpy only).

The estimators of Agarwal et al., "Deep Reinforcement Learning at the Edge of the Statistical
Precipice" (NeurIPS 2021), with their definitions (those of the authors' ``rliable`` package):

- scores are a ``[n_runs, n_tasks]`` matrix (one column per task, one row per seed);
- **IQM**: the interquartile mean, the mean of all ``n_runs * n_tasks`` scores after
  dropping ``floor(0.25 * n)`` of the lowest and as many of the highest (a 25% trimmed mean);
- **mean**: of the per-task mean scores;
- **median**: of the per-task mean scores; with a single task, where that would be the mean
  again, the median of its runs' scores (ours: the question one task asks);
- **optimality gap** at ``gamma``: ``mean(max(gamma - x, 0))`` over all scores;
- **performance profile** at ``tau``: the fraction of all scores ``> tau``;
- **stratified bootstrap**: each resample draws ``n_runs`` runs with replacement within each
  task (stratum) independently; a 95% CI is the 2.5th and 97.5th percentile of the statistic
  over the resamples (the percentile method).

Every statistic reduces the last two axes (runs, tasks) and keeps any leading axes, so one
call aggregates whole learning curves (``[n_points, n_runs, n_tasks]``) and all bootstrap
resamples (leading axis ``[reps]``) at once. ``rlpyt compare`` and ``rlpyt plot --aggregate``
use this module; docs/statistics.md explains the method.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Statistic = Callable[[np.ndarray], np.ndarray]
"""Maps scores ``[..., n_runs, n_tasks]`` to ``[...]`` (or ``[..., K]`` for profiles)."""


def aggregate_mean(scores: np.ndarray) -> np.ndarray:
    """Mean over tasks of the per-task mean scores. ``[..., R, T]`` -> ``[...]``."""
    return np.asarray(scores, dtype=np.float64).mean(axis=-2).mean(axis=-1)


def aggregate_median(scores: np.ndarray) -> np.ndarray:
    """Median over tasks of the per-task mean scores. ``[..., R, T]`` -> ``[...]``.

    With one task (``T == 1``) the median of its runs' scores: rliable's definition would
    give the mean there.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape[-1] == 1:
        return np.median(scores[..., 0], axis=-1)
    return np.median(scores.mean(axis=-2), axis=-1)


def aggregate_iqm(scores: np.ndarray) -> np.ndarray:
    """Interquartile mean of all runs and tasks. ``[..., R, T]`` -> ``[...]``.

    The ``n = R * T`` scores are sorted and ``floor(0.25 * n)`` dropped at each end (scipy's
    ``trim_mean(x, 0.25)``, which rliable uses); with fewer than 4 scores nothing is dropped.
    """
    scores = np.asarray(scores, dtype=np.float64)
    flat = np.sort(scores.reshape(*scores.shape[:-2], -1), axis=-1)
    cut = int(0.25 * flat.shape[-1])
    return flat[..., cut : flat.shape[-1] - cut].mean(axis=-1)


def optimality_gap(scores: np.ndarray, gamma: float) -> np.ndarray:
    """How far scores fall short of ``gamma`` on average: ``mean(max(gamma - x, 0))``.

    Args:
        scores: ``[..., R, T]``.
        gamma: the score counted as good enough (1 for normalized scores).

    Returns:
        ``[...]``; 0 when every score reaches ``gamma``.
    """
    shortfall = np.maximum(gamma - np.asarray(scores, dtype=np.float64), 0.0)
    return shortfall.mean(axis=(-2, -1))


def performance_profile(scores: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """Fraction of runs (over all tasks) scoring above each threshold.

    Args:
        scores: ``[..., R, T]``.
        taus: ``[K]`` thresholds.

    Returns:
        ``[..., K]``: for each ``tau``, the fraction of scores ``> tau``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    return (scores[..., None] > np.asarray(taus, dtype=np.float64)).mean(axis=(-3, -2))


AGGREGATES: dict[str, Statistic] = {
    "iqm": aggregate_iqm,
    "median": aggregate_median,
    "mean": aggregate_mean,
}
"""The aggregates by name (``rlpyt plot --aggregate NAME``)."""


def bootstrap_indices(rng: np.random.Generator, reps: int, n_runs: int, n_tasks: int) -> np.ndarray:
    """Run indices of ``reps`` stratified resamples: ``[reps, n_runs, n_tasks]`` int64.

    ``indices[b, :, t]`` are ``n_runs`` draws with replacement from the runs of task ``t``,
    independent across tasks and resamples.
    """
    return rng.integers(0, n_runs, size=(reps, n_runs, n_tasks))


def resample(scores: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Scores of each resample: ``[..., R, T]`` with ``[reps, R, T]`` -> ``[reps, ..., R, T]``.

    ``out[b, ..., r, t] = scores[..., indices[b, r, t], t]``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    lead = scores.ndim - 2
    shaped = indices.reshape(indices.shape[0], *(1,) * lead, *indices.shape[1:])
    return np.take_along_axis(scores[None], shaped, axis=-2)


@dataclass(frozen=True)
class Estimate:
    """A statistic and its confidence interval; each ``[...]`` as the statistic returns."""

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray


def bootstrap_ci(
    scores: np.ndarray,
    statistic: Statistic,
    reps: int = 2000,
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = 0,
) -> Estimate:
    """The statistic of ``scores`` and its stratified bootstrap percentile CI.

    Args:
        scores: ``[..., n_runs, n_tasks]``; leading axes (e.g. log points) are kept, and all
            share the same resampled runs.
        statistic: reduces ``[..., R, T]`` to ``[...]`` (e.g. :func:`aggregate_iqm`).
        reps: bootstrap resamples.
        confidence: the CI's coverage, e.g. 0.95 for the 2.5th-97.5th percentiles.
        rng: a numpy Generator or a seed (default 0: the same CI every time).

    Returns:
        :class:`Estimate` with the statistic of the data and the CI bounds.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim < 2 or scores.shape[-2] < 1:
        raise ValueError(f"scores must be [..., n_runs, n_tasks] with runs, not {scores.shape}.")
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    n_runs, n_tasks = scores.shape[-2:]
    indices = bootstrap_indices(generator, reps, n_runs, n_tasks)
    values = statistic(resample(scores, indices))  # [reps, ...]
    tail = 50.0 * (1.0 - confidence)
    low, high = np.percentile(values, [tail, 100.0 - tail], axis=0)
    return Estimate(np.asarray(statistic(scores)), low, high)
