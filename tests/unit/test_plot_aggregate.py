"""``rlpyt plot --aggregate``: curves of IQM/median/mean over seeds with bootstrap bands."""

import numpy as np
import pytest
from click.testing import CliRunner

from rlpyt.plot import Run, make_curves
from rlpyt.utils import stats

N_POINTS = 6


def make_run(path, lr, returns):
    steps = 100.0 * np.arange(1, N_POINTS + 1)
    progress = {"Diagnostics/CumSteps": steps, "ReturnAverage": np.asarray(returns, float)}
    return Run(path, {"algo.learning_rate": lr, "run_ID": path}, progress)


@pytest.fixture
def runs():
    rng = np.random.default_rng(5)
    made = []
    for lr in (0.001, 0.01):
        for seed in range(5):
            returns = np.cumsum(rng.uniform(0, 1000 * lr, size=N_POINTS))
            if seed == 2 and lr == 0.001:
                returns[0] = np.nan  # this log point lacks a value: left out of the curve
            made.append(make_run(f"lr_{lr}/run_{seed}", lr, returns))
    return made


@pytest.mark.parametrize("name", ["iqm", "median", "mean"])
def test_aggregate_curves_are_the_statistic_and_ci_at_each_point(runs, name):
    curves = make_curves(runs, "Diagnostics/CumSteps", "ReturnAverage", aggregate=name)
    assert [curve.label for curve in curves] == [
        "algo.learning_rate=0.001",
        "algo.learning_rate=0.01",
    ]
    for curve, members in zip(curves, (runs[:5], runs[5:]), strict=True):
        ys = np.array([run.progress["ReturnAverage"] for run in members])
        points = slice(1, None) if np.isnan(ys).any() else slice(None)
        np.testing.assert_array_equal(curve.x, 100.0 * np.arange(1, N_POINTS + 1)[points])
        for i, column in enumerate(ys[:, points].T):
            scores = column[:, None]  # [runs, 1 task]
            alone = stats.bootstrap_ci(scores, stats.AGGREGATES[name], 2000, 0.95, rng=0)
            assert curve.mean[i] == pytest.approx(float(alone.value))
            assert (curve.low[i], curve.high[i]) == (alone.low, alone.high)
            assert curve.low[i] <= curve.mean[i] <= curve.high[i]
        assert curve.aggregate == name and curve.n_runs == 5


def test_iqm_curve_by_hand():
    flat = [
        make_run(f"run_{i}", 0.1, [float(v)] * N_POINTS) for i, v in enumerate([0, 1, 2, 3, 100])
    ]
    (curve,) = make_curves(flat, "Diagnostics/CumSteps", "ReturnAverage", aggregate="iqm")
    np.testing.assert_allclose(curve.mean, 2.0)  # 0 and 100 trimmed: mean of 1, 2, 3


def test_unknown_aggregate_is_refused(runs):
    with pytest.raises(ValueError, match="Unknown aggregate 'max'"):
        make_curves(runs, "Diagnostics/CumSteps", "ReturnAverage", aggregate="max")


def test_cli_plot_aggregate_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    from rlpyt.cli.main import rlpyt

    for seed in range(3):
        run_dir = tmp_path / "sweep" / f"run_{seed}"
        run_dir.mkdir(parents=True)
        (run_dir / "variant.json").write_text(f'{{"run_ID": {seed}}}')
        rows = "\n".join(f"{100 * i},{i * seed}" for i in range(1, 5))
        (run_dir / "progress.csv").write_text(f"Diagnostics/CumSteps,ReturnAverage\n{rows}\n")
    out = tmp_path / "iqm.png"
    result = CliRunner().invoke(
        rlpyt, ["plot", str(tmp_path / "sweep"), "--aggregate", "iqm", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 5_000
