"""``rlpyt compare`` on a sweep folder laid out as the demo's, with progress.csv files written here.

The printed IQM, median, mean and optimality gap with their CIs must equal a naive bootstrap
(Python loops, the same seed) of final and AUC scores computed by hand from the same files.
"""

import csv
import importlib.util
import json
import re
import statistics
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rlpyt.cli.main import rlpyt
from rlpyt.compare import compare_runs
from rlpyt.experiments.configs.classic.pg.cartpole_ppo import configs
from rlpyt.utils.launching.variant import update_config
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import EXPERIMENT_MARKER, logger_context

LEARNING_RATES = (0.0003, 0.001)
SEEDS = 5
STEPS = [4096 * (i + 1) for i in range(6)]
REPS = 400
GAMMA = 475.0  # CartPole-v1's reward_threshold: the default gamma
SCRIPTS = Path(__file__).resolve().parents[2] / "experiments" / "scripts"


def load_script(relative_path):
    """Import a script by path (its ``__main__`` block does not run)."""
    path = SCRIPTS / relative_path
    spec = importlib.util.spec_from_file_location("compare_demo_" + path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def hand_scores(curve, steps=STEPS):
    """Final (last row) and AUC (trapezoids over the non-nan rows / steps covered)."""
    points = [(x, y) for x, y in zip(steps, curve, strict=True) if not np.isnan(y)]
    area = sum(
        (y0 + y1) / 2 * (x1 - x0) for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False)
    )
    return points[-1][1], area / (points[-1][0] - points[0][0])


def naive_ci(scores, statistic, seed=0, reps=REPS):
    """Loop bootstrap over one task's runs, the same RNG stream as rlpyt.utils.stats."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(reps):
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


def assert_table_matches_naive_bootstrap(output, scores_by_lr, n_runs, reps=REPS):
    """Each setting's final and AUC rows print the naive bootstrap of its hand scores."""
    lines = output.splitlines()
    header = next(line for line in lines if line.startswith("setting"))
    columns = [header.index(name) for name in ("IQM", "median", "mean", "optimality gap")]
    for lr, scores in scores_by_lr.items():
        start = next(
            i for i, line in enumerate(lines) if line.startswith(f"algo.learning_rate={lr}")
        )
        for offset, kind in enumerate(("final", "AUC")):
            line = lines[start + offset]
            assert re.search(rf"\s{kind}\s", line)
            cells = [line[a:b].strip() for a, b in zip(columns, [*columns[1:], None], strict=False)]
            kind_scores = [pair[offset] for pair in scores]
            expected = [naive_ci(kind_scores, NAIVE[name], reps=reps) for name in NAIVE]
            assert cells == expected, (lr, kind)
        assert lines[start].split()[1] == str(n_runs)


def test_compare_prints_estimates_matching_a_naive_bootstrap(sweep):
    root, returns = sweep
    result = CliRunner().invoke(rlpyt, ["compare", str(root), "--reps", str(REPS)])
    assert result.exit_code == 0, result.output
    assert "gamma = 475 (CartPole-v1's reward_threshold)" in result.output
    scores = {lr: [hand_scores(curve) for curve in returns[lr]] for lr in LEARNING_RATES}
    assert_table_matches_naive_bootstrap(result.output, scores, SEEDS)
    assert (root / "profiles_ReturnAverage.png").stat().st_size > 10_000


def test_compare_on_the_demo_sweep_matches_a_naive_bootstrap(tmp_path):
    """The demo sweep (2 learning rates x 2 seeds), shrunk and trained in this process."""
    launch = load_script("classic/pg/launch/launch_cartpole_ppo_demo.py")
    train = load_script("classic/pg/train/cartpole_ppo.py")
    exp_dir = tmp_path / launch.EXPERIMENT_TITLE
    exp_dir.mkdir()
    (exp_dir / EXPERIMENT_MARKER).write_text("sweep root\n")  # as run_experiments writes
    variants, log_dirs = launch.make_sweep(n_steps=768, log_interval_steps=256)
    logger.reset()
    for variant, log_dir in zip(variants, log_dirs, strict=True):
        for run_ID in range(launch.RUNS_PER_SETTING):
            config = update_config(configs[launch.CONFIG_KEY], variant)
            config["sampler"].update(batch_B=4)
            config["algo"].update(epochs=2)
            with logger_context(str(exp_dir / log_dir), run_ID, "CartPole-v1", config):
                train.build_runner(config).train()
    logger.reset()
    result = CliRunner().invoke(rlpyt, ["compare", str(exp_dir), "--reps", "300"])
    assert result.exit_code == 0, result.output
    scores = {}
    for lr, log_dir in zip(launch.LEARNING_RATES, log_dirs, strict=True):
        scores[lr] = []
        for run_ID in range(launch.RUNS_PER_SETTING):
            with open(exp_dir / log_dir / f"run_{run_ID}" / "progress.csv", newline="") as f:
                rows = list(csv.DictReader(f))
            steps = [float(row["Diagnostics/CumSteps"]) for row in rows]
            returns = [float(row["ReturnAverage"]) for row in rows]
            scores[lr].append(hand_scores(returns, steps))
    assert_table_matches_naive_bootstrap(result.output, scores, launch.RUNS_PER_SETTING, reps=300)


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
    assert "'ReturnAverage'" in result.output  # the columns there are
