"""``rlpyt compare`` on a sweep folder laid out as the demo's, with progress.csv files written here.

The printed IQM, median, mean and optimality gap with their CIs must equal a naive bootstrap
(Python loops, the same seed) of final and AUC scores computed by hand from the same files.
"""

import json
import re
import statistics

import numpy as np
import pytest
from click.testing import CliRunner

from rlpyt.cli.main import rlpyt
from rlpyt.compare import compare_runs

LEARNING_RATES = (0.0003, 0.001)
SEEDS = 5
STEPS = [4096 * (i + 1) for i in range(6)]
REPS = 400
GAMMA = 475.0  # CartPole-v1's reward_threshold: the default gamma


def write_run(run_dir, params, returns):
    run_dir.mkdir(parents=True)
    (run_dir / "variant.json").write_text(json.dumps(params))
    lines = ["Diagnostics/Iteration,Diagnostics/CumSteps,ReturnAverage"]
    lines += [
        f"{i},{step},{value!r}" for i, (step, value) in enumerate(zip(STEPS, returns, strict=False))
    ]
    (run_dir / "progress.csv").write_text("\n".join(lines) + "\n")


@pytest.fixture
def sweep(tmp_path):
    """``cartpole_ppo_demo/lr_<lr>/run_<seed>``: returns ``{lr: [[returns of a run]]}``."""
    rng = np.random.default_rng(123)
    root = tmp_path / "cartpole_ppo_demo"
    returns = {}
    for lr in LEARNING_RATES:
        returns[lr] = []
        for seed in range(SEEDS):
            curve = np.round(np.cumsum(rng.uniform(0, 1000 * lr, size=len(STEPS))), 3).tolist()
            curve[0] = float("nan") if seed == 1 else curve[0]  # no episode ended yet
            params = {"algo": {"learning_rate": lr}, "env": {"id": "CartPole-v1"}}
            params.update(run_ID=seed, exp_name=f"lr_{lr:g}/run_{seed}")
            write_run(root / f"lr_{lr:g}" / f"run_{seed}", params, curve)
            returns[lr].append(curve)
    return root, returns


def hand_scores(curve):
    """Final (last row) and AUC (trapezoids over the non-nan rows / steps covered)."""
    points = [(x, y) for x, y in zip(STEPS, curve, strict=True) if not np.isnan(y)]
    area = sum(
        (y0 + y1) / 2 * (x1 - x0) for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False)
    )
    return points[-1][1], area / (points[-1][0] - points[0][0])


def naive_ci(scores, statistic, seed=0):
    """Loop bootstrap over one task's runs, the same RNG stream as rlpyt.utils.stats."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(REPS):
        indices = rng.integers(0, len(scores), size=(len(scores), 1))
        values.append(statistic([scores[i] for i in indices[:, 0]]))
    low, high = np.percentile(values, [2.5, 97.5])
    return f"{statistic(scores):.4g} [{low:.4g}, {high:.4g}]"


def naive_iqm(values):
    ordered = sorted(values)
    cut = len(ordered) // 4
    return statistics.fmean(ordered[cut : len(ordered) - cut])


NAIVE = {
    "IQM": naive_iqm,
    "median": statistics.median,  # one task: the median of the run scores
    "mean": statistics.fmean,
    "optimality gap": lambda values: statistics.fmean(max(GAMMA - v, 0.0) for v in values),
}


def test_compare_prints_estimates_matching_a_naive_bootstrap(sweep):
    root, returns = sweep
    result = CliRunner().invoke(rlpyt, ["compare", str(root), "--reps", str(REPS)])
    assert result.exit_code == 0, result.output
    assert "gamma = 475 (CartPole-v1's reward_threshold)" in result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if line.startswith("setting"))
    columns = [header.index(name) for name in ("IQM", "median", "mean", "optimality gap")]
    for lr in LEARNING_RATES:
        scores = [hand_scores(curve) for curve in returns[lr]]
        start = next(
            i for i, line in enumerate(lines) if line.startswith(f"algo.learning_rate={lr}")
        )
        for offset, kind in enumerate(("final", "AUC")):
            line = lines[start + offset]
            assert re.search(rf"\s{kind}\s", line)
            cells = [line[a:b].strip() for a, b in zip(columns, [*columns[1:], None], strict=False)]
            kind_scores = [pair[offset] for pair in scores]
            expected = [naive_ci(kind_scores, NAIVE[name]) for name in NAIVE]
            assert cells == expected, (lr, kind)
        assert lines[start].split()[1] == str(SEEDS)
    assert (root / "profiles_ReturnAverage.png").stat().st_size > 10_000


def test_tasks_are_strata_and_need_equal_runs(sweep, tmp_path):
    root, _ = sweep
    params = {"algo": {"learning_rate": 0.001}, "env": {"id": "Acrobot-v1"}}
    for seed in range(SEEDS):
        write_run(root / "acrobot" / f"run_{seed}", {**params, "run_ID": seed}, [-100.0] * 6)
    comparison = compare_runs(str(root), task="env.id", gamma=0.0, reps=200)
    by_lr = {entry.setting["algo.learning_rate"]: entry for entry in comparison.settings}
    assert by_lr[0.001].tasks == ["Acrobot-v1", "CartPole-v1"]
    assert by_lr[0.001].scores["final"].shape == (SEEDS, 2)
    assert by_lr[0.0003].scores["final"].shape == (SEEDS, 1)
    write_run(root / "acrobot" / "run_9", {**params, "run_ID": 9}, [-100.0] * 6)
    with pytest.raises(ValueError, match="same number of runs"):
        compare_runs(str(root), task="env.id", reps=200)


def test_compare_without_runs_or_with_a_wrong_column_fails_with_the_reason(sweep, tmp_path):
    root, _ = sweep
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(rlpyt, ["compare", str(tmp_path / "empty")])
    assert result.exit_code != 0 and "No run folder" in result.output
    result = CliRunner().invoke(rlpyt, ["compare", str(root), "--key", "Nope"])
    assert result.exit_code != 0 and "no column ['Nope']" in result.output
