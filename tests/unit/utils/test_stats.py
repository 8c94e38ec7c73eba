"""Aggregates and the stratified bootstrap vs hand values and a naive loop with the same RNG."""

import statistics

import numpy as np
import pytest

from rlpyt.utils.stats import (
    AGGREGATES,
    aggregate_iqm,
    aggregate_mean,
    aggregate_median,
    bootstrap_ci,
    bootstrap_indices,
    optimality_gap,
    performance_profile,
    resample,
)


def column(values):
    """One task: ``[n_runs, 1]``."""
    return np.asarray(values, dtype=float)[:, None]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (range(8), (2 + 3 + 4 + 5) / 4),  # n=8: 2 dropped at each end
        ([1, 2, 3, 4, 100], 3.0),  # n=5: floor(1.25) = 1 dropped at each end
        (range(10), (2 + 3 + 4 + 5 + 6 + 7) / 6),  # n=10: floor(2.5) = 2
        ([5, 1, 9], 5.0),  # n=3: nothing dropped, the mean
        ([7], 7.0),
    ],
)
def test_iqm_is_rliables_25_percent_trimmed_mean(values, expected):
    assert aggregate_iqm(column(values)) == pytest.approx(expected)


def test_iqm_pools_runs_of_all_tasks():
    scores = np.array([[0.0, 100.0], [1.0, 7.0], [2.0, 6.0], [50.0, 5.0]])  # [4 runs, 2 tasks]
    assert aggregate_iqm(scores) == pytest.approx((2 + 5 + 6 + 7) / 4)  # sorted: 0 1 2 5 6 7 50 100


def test_mean_and_median_are_of_per_task_means():
    scores = np.array([[1.0, 10.0, 100.0], [3.0, 20.0, 300.0]])  # task means 2, 15, 200
    assert aggregate_mean(scores) == pytest.approx((2 + 15 + 200) / 3)
    assert aggregate_median(scores) == pytest.approx(15.0)


def test_median_of_one_task_is_the_median_of_its_runs():
    assert aggregate_median(column([1.0, 2.0, 10.0])) == 2.0  # rliable's would be the mean
    assert aggregate_median(column([1.0, 2.0, 4.0, 10.0])) == 3.0


def test_optimality_gap_and_performance_profile_by_hand():
    scores = column([0.5, 1.2, 0.8])
    assert optimality_gap(scores, gamma=1.0) == pytest.approx((0.5 + 0.0 + 0.2) / 3)
    assert optimality_gap(scores, gamma=0.1) == 0.0
    profile = performance_profile(column([1, 2, 3, 4]), np.array([0.0, 2.0, 4.0]))
    np.testing.assert_allclose(profile, [1.0, 0.5, 0.0])  # strictly above tau


def test_statistics_keep_leading_axes():
    curves = np.random.default_rng(0).normal(size=(6, 5, 2))  # [points, runs, tasks]
    for name, statistic in AGGREGATES.items():
        per_point = [statistic(curves[p]) for p in range(6)]
        np.testing.assert_allclose(statistic(curves), per_point, err_msg=name)


def naive_bootstrap(scores, statistic, reps, confidence, seed):
    """Resample with Python loops, drawing each resample's indices from the same RNG stream."""
    rng = np.random.default_rng(seed)
    n_runs, n_tasks = scores.shape
    values = []
    for _ in range(reps):
        indices = rng.integers(0, n_runs, size=(n_runs, n_tasks))
        sample = [[scores[indices[r, t], t] for t in range(n_tasks)] for r in range(n_runs)]
        values.append(statistic(sample))
    tail = 50 * (1 - confidence)
    return np.percentile(values, [tail, 100 - tail])


def naive_iqm(sample):
    flat = sorted(x for row in sample for x in row)
    cut = len(flat) // 4
    return statistics.fmean(flat[cut : len(flat) - cut])


def naive_task_means(sample):
    return [statistics.fmean(row[t] for row in sample) for t in range(len(sample[0]))]


def naive_median(sample):
    if len(sample[0]) == 1:
        return statistics.median(row[0] for row in sample)
    return statistics.median(naive_task_means(sample))


NAIVE = {
    "iqm": naive_iqm,
    "median": naive_median,
    "mean": lambda sample: statistics.fmean(naive_task_means(sample)),
}


@pytest.mark.parametrize("name", sorted(AGGREGATES))
@pytest.mark.parametrize("shape", [(5, 1), (7, 3)])
def test_bootstrap_ci_matches_a_naive_loop_with_the_same_rng(name, shape):
    scores = np.random.default_rng(1).gamma(2.0, 50.0, size=shape)
    estimate = bootstrap_ci(scores, AGGREGATES[name], reps=300, confidence=0.9, rng=7)
    low, high = naive_bootstrap(scores, NAIVE[name], 300, 0.9, seed=7)
    assert estimate.value == pytest.approx(NAIVE[name](scores.tolist()))
    assert (estimate.low, estimate.high) == (pytest.approx(low), pytest.approx(high))
    assert estimate.low <= estimate.value <= estimate.high


def test_optimality_gap_ci_matches_the_naive_loop():
    scores = np.random.default_rng(2).uniform(0, 2, size=(6, 2))
    estimate = bootstrap_ci(scores, lambda s: optimality_gap(s, 1.0), reps=200, rng=3)

    def naive_gap(sample):
        return statistics.fmean(max(1.0 - x, 0.0) for row in sample for x in row)

    assert (estimate.low, estimate.high) == tuple(
        pytest.approx(v) for v in naive_bootstrap(scores, naive_gap, 200, 0.95, seed=3)
    )


def test_resampling_is_stratified_by_task():
    scores = np.array([[0.0, 10.0], [1.0, 11.0], [2.0, 12.0]])  # task 0 < 3 <= task 1
    indices = bootstrap_indices(np.random.default_rng(0), 500, 3, 2)
    samples = resample(scores, indices)
    assert samples.shape == (500, 3, 2)
    assert set(np.unique(samples[..., 0])) == {0.0, 1.0, 2.0}
    assert set(np.unique(samples[..., 1])) == {10.0, 11.0, 12.0}


def test_curve_cis_equal_per_point_cis_with_the_same_seed():
    curves = np.random.default_rng(4).normal(size=(5, 4, 1))  # [points, runs, tasks]
    together = bootstrap_ci(curves, aggregate_iqm, reps=100, rng=9)
    for p in range(5):
        alone = bootstrap_ci(curves[p], aggregate_iqm, reps=100, rng=9)
        assert (together.low[p], together.high[p]) == (alone.low, alone.high)


def test_constant_scores_have_a_zero_width_interval():
    estimate = bootstrap_ci(column([3.0] * 4), aggregate_mean, reps=50)
    assert estimate.value == estimate.low == estimate.high == 3.0
