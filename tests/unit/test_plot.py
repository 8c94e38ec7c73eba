"""rlpyt.plot: run discovery, grouping into curves, PNG output, command line."""

import sys
import warnings

import numpy as np
import pytest

from rlpyt import plot
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context

LEARNING_RATES = (0.001, 0.0003)


def returns(lr, run_ID, itr):
    return lr * 1000 * itr + run_ID


@pytest.fixture
def sweep(tmp_path, capsys):
    """Two settings x two seeds, written by the real logger; run 1 logs one row fewer."""
    logger.reset()
    root = tmp_path / "sweep"
    (root / "experiments_tree.txt").parent.mkdir(parents=True)
    (root / "experiments_tree.txt").write_text("fake launcher marker\n")
    for lr in LEARNING_RATES:
        for run_ID in (0, 1):
            config = {"algo": {"learning_rate": lr, "discount": 0.99}, "seed": 10 + run_ID}
            with logger_context(str(root / f"lr_{lr}"), run_ID, "sweep", config):
                for itr in range(5 - run_ID):
                    logger.record_tabular("Diagnostics/Iteration", itr)
                    logger.record_tabular("Diagnostics/CumSteps", 100 * (itr + 1))
                    logger.record_tabular("ReturnAverage", returns(lr, run_ID, itr))
                    logger.dump_tabular()
    capsys.readouterr()
    yield root
    logger.reset()


def test_finds_every_run_with_flat_params(sweep):
    runs = plot.load_runs([str(sweep)])
    assert len(runs) == 4
    assert {run.params["algo.learning_rate"] for run in runs} == set(LEARNING_RATES)
    assert all(run.params["exp_name"].endswith(("run_0", "run_1")) for run in runs)
    assert plot.distinct_keys(runs) == ["algo.learning_rate"]  # not seed, run_ID, exp_name


def test_two_settings_two_seeds_make_two_mean_curves(sweep):
    curves = plot.make_curves(plot.load_runs([str(sweep)]), "Diagnostics/CumSteps", "ReturnAverage")
    assert [c.label for c in curves] == ["algo.learning_rate=0.0003", "algo.learning_rate=0.001"]
    for curve in curves:
        lr = curve.setting["algo.learning_rate"]
        assert curve.n_runs == 2
        np.testing.assert_allclose(curve.x, [100, 200, 300, 400, 500])
        expected_mean = [np.mean([returns(lr, r, itr) for r in (0, 1)]) for itr in range(4)]
        expected_mean.append(returns(lr, 0, 4))  # only run 0 reached the last row
        np.testing.assert_allclose(curve.mean, expected_mean)
        np.testing.assert_allclose(curve.std, [0.5] * 4 + [0.0])


def test_group_and_split_keys(sweep):
    runs = plot.load_runs([str(sweep)])
    by_seed = plot.make_curves(runs, "Diagnostics/CumSteps", "ReturnAverage", group=["seed"])
    assert [c.label for c in by_seed] == ["seed=10", "seed=11"]
    split = plot.make_curves(
        runs, "Diagnostics/CumSteps", "ReturnAverage", split="algo.learning_rate"
    )
    assert [(c.panel, c.label, c.n_runs) for c in split] == [
        (0.0003, "ReturnAverage", 2),
        (0.001, "ReturnAverage", 2),
    ]


def test_plot_runs_writes_png(sweep, tmp_path):
    out = plot.plot_runs([str(sweep)], out=str(tmp_path / "figs" / "curves.png"), title="t")
    assert out == str(tmp_path / "figs" / "curves.png")
    assert open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_command_line_prints_png_path(sweep, tmp_path, capsys):
    out = tmp_path / "split.png"
    argv = [str(sweep), "--y", "ReturnAverage", "--split", "algo.learning_rate", "--out", str(out)]
    assert plot.main(argv) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert out.stat().st_size > 1000


def test_unknown_column_and_empty_folder_are_clear_errors(sweep, tmp_path):
    with pytest.raises(ValueError, match="no column \\['Nope'\\]"):
        plot.plot_runs([str(sweep)], y="Nope", out=str(tmp_path / "x.png"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="No run folder"):
        plot.plot_runs([str(tmp_path / "empty")], out=str(tmp_path / "x.png"))


def test_a_run_without_the_column_yet_is_left_out_with_a_warning(sweep, tmp_path, capsys):
    """A young run of a sweep (no episode ended yet) has no ReturnAverage: the rest plot."""
    logger.reset()
    with logger_context(str(sweep / "young"), 0, "sweep", {"algo": {"learning_rate": 0.01}}):
        logger.record_tabular("Diagnostics/CumSteps", 100)
        logger.dump_tabular()
    capsys.readouterr()
    runs = plot.load_runs([str(sweep)])
    assert len(runs) == 5
    left_out = r"1 of 5 runs have no column \['ReturnAverage'\] yet .*young"
    with pytest.warns(UserWarning, match=left_out):
        curves = plot.make_curves(runs, "Diagnostics/CumSteps", "ReturnAverage")
    assert [c.label for c in curves] == ["algo.learning_rate=0.0003", "algo.learning_rate=0.001"]
    assert [c.n_runs for c in curves] == [2, 2]
    with pytest.warns(UserWarning, match="young"):
        assert plot.main([str(sweep), "--out", str(tmp_path / "p.png")]) == 0
    assert (tmp_path / "p.png").stat().st_size > 0


def test_missing_matplotlib_names_the_extra(sweep, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r'pip install "rlpyt\[plot\]"'):
        plot.plot_runs([str(sweep)], out=str(tmp_path / "x.png"))


def test_blank_and_text_cells_read_as_nan(tmp_path):
    path = tmp_path / "progress.csv"
    path.write_text("a,b\n1,\nx,2\n")
    progress = plot.read_progress(str(path))
    np.testing.assert_array_equal(progress["a"], [1.0, np.nan])
    np.testing.assert_array_equal(progress["b"], [np.nan, 2.0])


def test_runs_that_differ_in_many_keys_get_a_legend_that_fits(tmp_path, capsys):
    """Mixed runs (other algorithms, envs, samplers) once made one-line legends wider than the
    figure ("constrained_layout not applied"); their settings now wrap and sit beside the panel.
    """
    logger.reset()
    for i in range(6):
        config = {
            "algo": {"learning_rate": 10.0**-i, "discount": 0.9 + i / 100, "name": f"algo{i}"},
            "env": {"id": f"SomeLongEnvironmentName-v{i}"},
            "sampler": {"batch_T": 5 + i, "batch_B": 8 * (i + 1)},
        }
        with logger_context(str(tmp_path / "mixed" / f"run{i}"), 0, "mixed", config):
            for itr in range(3):
                logger.record_tabular("Diagnostics/CumSteps", 100 * (itr + 1))
                logger.record_tabular("ReturnAverage", float(i * itr))
                logger.dump_tabular()
    capsys.readouterr()
    logger.reset()
    runs = plot.load_runs([str(tmp_path / "mixed")])
    curves = plot.make_curves(
        runs, "Diagnostics/CumSteps", "ReturnAverage", plot.distinct_keys(runs), plot.SPLIT_NONE
    )  # every run in one panel, a curve per setting of every key that differs
    assert len(curves) == 6 and all(len(curve.label) > plot.LEGEND_WIDTH for curve in curves)
    figure = plot._figure(curves, "Diagnostics/CumSteps", "ReturnAverage", "mixed")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied" is a UserWarning
        figure.savefig(tmp_path / "mixed.png", dpi=100)
    texts = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert [text.replace("\n", ", ") for text in texts] == [curve.label for curve in curves]
    assert max(len(line) for text in texts for line in text.split("\n")) <= plot.LEGEND_WIDTH
    panel = figure.axes[0].get_window_extent()
    legend = figure.axes[0].get_legend().get_window_extent()
    assert legend.x0 >= panel.x1  # beside the panel, not over the curves
    assert legend.x1 <= figure.bbox.x1 and legend.y0 >= figure.bbox.y0  # inside the figure
    assert panel.height >= 0.5 * legend.height  # the row grew with the legend
