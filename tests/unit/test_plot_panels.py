"""``rlpyt plot`` over mixed runs: one panel per algorithm and env, bounded figure size.

The run folders are written directly, in the shapes ``rlpyt train``/``rlpyt sweep`` write
(``algorithm`` and ``environment`` at the top of variant.json and params.json), the shape a
train script writes (no such keys; params.json's ``resolved`` section names the algorithm
class) and the shape of an older run (params.json only).
"""

from __future__ import annotations

import json
import struct
import warnings

import pytest
from click.testing import CliRunner

from rlpyt import plot

pytest.importorskip("matplotlib")

ALGO_CONFIGS = {
    "ppo": {"discount": 0.98, "learning_rate": 3e-4, "ratio_clip": 0.2, "epochs": 20},
    "dqn": {"discount": 0.99, "learning_rate": 0.0023, "replay_size": 100_000},
    "a2c": {"discount": 0.99, "learning_rate": 0.001, "value_loss_coeff": 0.5},
}
ALGO_CLASSES = {"ppo": "PPO", "dqn": "DQN", "a2c": "A2C", "sac": "SAC"}


def write_run(folder, variant, extra=None, variant_file=True, rows=4):
    """A run folder: progress.csv of ``rows`` rows, params.json (variant + extra), variant.json."""
    folder.mkdir(parents=True)
    if variant_file:
        (folder / "variant.json").write_text(json.dumps(variant))
    (folder / "params.json").write_text(json.dumps({**variant, **(extra or {})}))
    lines = [f"{256 * (i + 1)},{10.0 * i + len(str(folder))}" for i in range(rows)]
    (folder / "progress.csv").write_text("Diagnostics/CumSteps,ReturnAverage\n" + "\n".join(lines))


def cli_variant(algo, env, exp_name, **algo_changes):
    """variant.json of an ``rlpyt train``/``rlpyt sweep`` run."""
    return {
        "algorithm": algo,
        "environment": env,
        "agent": {"eps_final": 0.04} if algo == "dqn" else {},
        "algo": {**ALGO_CONFIGS.get(algo, ALGO_CONFIGS["ppo"]), **algo_changes},
        "env": {"id": env},
        "model": {"hidden_sizes": [256, 256] if algo == "dqn" else [64, 64]},
        "runner": {"n_steps": 4096, "log_interval_steps": 256},
        "sampler": {"batch_T": 32 if algo == "dqn" else 128, "batch_B": 8},
        "name": env,
        "run_ID": 0,
        "exp_name": exp_name,
        "command_line": f"rlpyt train {algo} --env {env}",
        "package_versions": {"rlpyt": "0.2.0"},
    }


def cli_extra(algo, env):
    """What params.json adds: the "cli" and "resolved" sections."""
    resolved = {"algo": {"class": f"rlpyt.algos.x.{ALGO_CLASSES[algo]}", "kwargs": {}}}
    return {"cli": {"algo": algo, "env": env}, "resolved": resolved}


@pytest.fixture
def mixed(tmp_path):
    """What the CLI writes for train ppo/dqn on CartPole, a2c on Acrobot, a 2-lr ppo sweep, plus
    a train-script SAC run, an older rlpyt Atari run and a run naming neither."""
    runs = tmp_path / "runs"
    for algo, env in (("ppo", "CartPole-v1"), ("dqn", "CartPole-v1"), ("a2c", "Acrobot-v1")):
        name = f"{algo}_{env}"
        write_run(
            runs / name / "run_0", cli_variant(algo, env, f"{name}/run_0"), cli_extra(algo, env)
        )
    sweep = runs / "local" / "20261129" / "042934" / "ppo_CartPole-v1"
    for lr in (3e-4, 1e-3):
        exp_name = f"learning_rate_{lr}/run_0"
        variant = cli_variant("ppo", "CartPole-v1", exp_name, learning_rate=lr)
        write_run(sweep / f"learning_rate_{lr}" / "run_0", variant, cli_extra("ppo", "CartPole-v1"))
    script = {
        "algo": {"discount": 0.99, "learning_rate": 3e-4},
        "env": {"id": "Pendulum-v1"},
        "name": "Pendulum-v1",
        "run_ID": 0,
        "exp_name": "sac_pendulum/run_0",
    }
    resolved = {"resolved": {"algo": {"class": "rlpyt.algos.qpg.sac.SAC", "kwargs": {}}}}
    write_run(runs / "data" / "sac_pendulum" / "run_0", script, resolved)
    own = {"resolved": {"algo": {"class": "my_lab.algos.MySAC", "kwargs": {}}}}
    write_run(runs / "data" / "my_sac" / "run_0", dict(script, exp_name="my_sac/run_0"), own)
    old = {"algo": {"discount": 0.99}, "env": {"game": "pong"}, "name": "pong", "run_ID": 0}
    write_run(runs / "data" / "old" / "run_0", old, variant_file=False)
    write_run(runs / "data" / "bare" / "run_0", {"seed": 3, "run_ID": 0})
    return runs


class SavedFigures:
    """Records every matplotlib Figure saved while it is installed."""

    def __init__(self, monkeypatch):
        from matplotlib.figure import Figure

        self.figures = []
        save = Figure.savefig

        def savefig(figure, *args, **kwargs):
            self.figures.append(figure)
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # "constrained_layout not applied" is a warning
                return save(figure, *args, **kwargs)

        monkeypatch.setattr(Figure, "savefig", savefig)

    def panels(self):
        """``[(title, legend texts or None)]`` of the last figure's visible panels."""
        axes = [ax for ax in self.figures[-1].axes if ax.get_visible()]
        legends = [ax.get_legend() for ax in axes]
        return [
            (ax.get_title(), None if legend is None else [t.get_text() for t in legend.get_texts()])
            for ax, legend in zip(axes, legends, strict=True)
        ]


def png_size(path):
    """``(width, height)`` in pixels, from the PNG header."""
    with open(path, "rb") as f:
        return struct.unpack(">II", f.read(24)[16:24])


def test_mixed_runs_get_one_panel_per_algorithm_and_env(mixed, tmp_path, monkeypatch):
    saved = SavedFigures(monkeypatch)
    lines = []
    out = plot.plot_runs([str(mixed)], out=str(tmp_path / "all.png"), echo=lines.append)
    assert saved.panels() == [
        ("a2c on Acrobot-v1", None),
        ("dqn on CartPole-v1", None),
        ("MySAC on Pendulum-v1", None),
        ("ppo on CartPole-v1", ["algo.learning_rate=0.0003", "algo.learning_rate=0.001"]),
        ("sac on Pendulum-v1", None),
        ("pong", None),
        ("algorithm and env not recorded", None),
    ]
    assert png_size(out) == (3 * 550, 3 * 400)  # 3 x 3 panels of 550 x 400 px
    assert lines == [
        "9 runs in 7 panels (one per algorithm and env); a2c on Acrobot-v1: 1 curve; "
        "dqn on CartPole-v1: 1 curve; MySAC on Pendulum-v1: 1 curve; "
        "ppo on CartPole-v1: 2 curves by algo.learning_rate; sac on Pendulum-v1: 1 curve; "
        "pong: 1 curve; algorithm and env not recorded: 1 curve"
    ]
    curves = plot.make_curves(plot.load_runs([str(mixed)]), "Diagnostics/CumSteps", "ReturnAverage")
    # the train run and the sweep's 3e-4 run are one curve
    assert [curve.n_runs for curve in curves] == [1, 1, 1, 2, 1, 1, 1, 1]


def test_split_puts_algorithms_side_by_side_and_filter_selects(mixed, tmp_path, monkeypatch):
    saved = SavedFigures(monkeypatch)
    cartpole = ["--filter", "environment=CartPole-v1"]
    plot.main([str(mixed), "--split", "env.id", *cartpole, "--out", str(tmp_path / "s.png")])
    assert saved.panels() == [
        (
            "env.id=CartPole-v1",
            ["algorithm=dqn", "algorithm=ppo, algo.learning_rate=0.0003", "algorithm=ppo, "
             "algo.learning_rate=0.001"],
        )
    ]  # fmt: skip
    filters = ["algorithm=PPO", "algo.learning_rate=1e-3", "algo.learning_rate=3e-4"]
    runs = plot.filter_runs(plot.load_runs([str(mixed)]), filters)
    assert sorted(run.params["exp_name"] for run in runs) == [
        "learning_rate_0.0003/run_0",
        "learning_rate_0.001/run_0",
        "ppo_CartPole-v1/run_0",
    ]


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        (["algorithm"], r"'algorithm' is not KEY=VALUE; e.g. algorithm=ppo"),
        (["algo.lr=1"], r"no run records that key.*algo\.learning_rate"),
        (
            ["algorithm=td3"],
            r"No run matches.*'algorithm': \['MySAC', 'a2c', 'dqn', 'ppo', 'sac'\]\}",
        ),
    ],
)
def test_bad_filters_say_what_exists(mixed, filters, message):
    with pytest.raises(ValueError, match=message):
        plot.filter_runs(plot.load_runs([str(mixed)]), filters)


def test_many_groups_stay_readable_and_say_what_is_left_out(tmp_path, monkeypatch):
    """13 (algorithm, env) pairs, one of them a 14-setting sweep: 9 panels of <= 10 curves."""
    root = tmp_path / "many"
    for i in range(14):
        variant = cli_variant("a2c", "CartPole-v1", f"lr_{i}/run_0", learning_rate=(i + 1) / 10_000)
        write_run(root / "a2c" / f"lr_{i}" / "run_0", variant)
    for i in range(12):
        write_run(root / "dqn" / f"env_{i}" / "run_0", cli_variant("dqn", f"Env{i:02d}-v0", "r"))
    saved = SavedFigures(monkeypatch)
    lines = []
    out = plot.plot_runs([str(root)], out=str(tmp_path / "many.png"), echo=lines.append)
    panels = saved.panels()
    assert [title for title, _ in panels] == ["a2c on CartPole-v1"] + [
        f"dqn on Env{i:02d}-v0" for i in range(8)
    ]
    assert panels[0][1] == [f"algo.learning_rate={(i + 1) / 10_000}" for i in range(10)]
    assert png_size(out) == (3 * 550, 3 * 400)
    summary, left_panels, left_curves = lines
    assert summary.startswith("26 runs in 13 panels (one per algorithm and env); ")
    assert left_panels.startswith(
        "Left out 4 panels (the first 9 by algorithm, then env are drawn): dqn on Env08-v0, "
        "dqn on Env09-v0, dqn on Env10-v0, dqn on Env11-v0. Choose the runs with --filter"
    )
    assert left_curves.startswith("Left out 4 curves of a2c on CartPole-v1 (the first 10")
    assert "--split KEY" in left_curves
    with pytest.warns(UserWarning, match="Left out 4 panels"):  # no echo: warnings
        with pytest.warns(UserWarning, match="Left out 4 curves"):
            plot.plot_runs([str(root)], out=str(tmp_path / "again.png"))


def test_long_legends_beside_many_panels_fit_the_size_cap(tmp_path, monkeypatch):
    """9 panels of 10 curves differing in 6 keys: legends beside, entries cut to fit."""
    root = tmp_path / "wide"
    for panel in range(9):
        for i in range(10):
            variant = cli_variant("ppo", f"Env{panel}-v0", "r", learning_rate=10.0 ** -(i + 1))
            variant["sampler"] = {"batch_T": 100 + i, "batch_B": 200 + i, "max_steps": 300 + i}
            variant["model"] = {"hidden_sizes": [64 + i] * 3, "nonlinearity": f"act{i}"}
            write_run(root / f"env{panel}" / f"s{i}" / "run_0", variant)
    saved = SavedFigures(monkeypatch)
    out = plot.plot_runs([str(root)], out=str(tmp_path / "wide.png"))
    panels = saved.panels()
    assert len(panels) == 9 and all(len(legend) == 10 for _, legend in panels)
    assert all(text.endswith(" …") and "\n" not in text for _, legend in panels for text in legend)
    width, height = png_size(out)
    assert (width, height) == (2 * 910, 5 * 400)  # 2 columns with legends beside, 5 rows
    figure = saved.figures[-1]
    for ax in figure.axes[:9]:
        legend = ax.get_legend().get_window_extent()
        assert legend.x0 >= ax.get_window_extent().x1  # beside the panel, not over the curves
        assert legend.x1 <= figure.bbox.x1 and legend.y0 >= figure.bbox.y0  # inside the figure


def test_cli_plot_prints_the_grouping_and_filters(mixed, tmp_path):
    from rlpyt.cli.main import rlpyt

    out = tmp_path / "cli.png"
    args = ["plot", str(mixed), "--out", str(out), "--filter", "algorithm=dqn"]
    result = CliRunner().invoke(rlpyt, args)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(out)
    assert result.stderr.strip() == (
        "1 run in 1 panel (one per algorithm and env); dqn on CartPole-v1: 1 curve"
    )
    bad = CliRunner().invoke(rlpyt, ["plot", str(mixed), "--filter", "nope=1"])
    assert bad.exit_code == 1 and "no run records that key" in bad.output


def test_rlpyt_train_records_algorithm_and_environment(tmp_path, monkeypatch):
    from rlpyt.cli.main import rlpyt
    from rlpyt.utils.logging import logger

    monkeypatch.chdir(tmp_path)
    args = ["train", "a2c", "--env", "CartPole-v1", "--steps", "256", "--log-dir", "runs"]
    result = CliRunner().invoke(rlpyt, [*args, "--log-interval", "256", "--seed", "0"])
    logger.reset()
    assert result.exit_code == 0, result.output
    for name in ("params.json", "variant.json"):
        params = json.loads((tmp_path / "runs" / "run_0" / name).read_text())
        assert list(params)[:2] == ["algorithm", "environment"]
        assert (params["algorithm"], params["environment"]) == ("a2c", "CartPole-v1")
    (curve,) = plot.make_curves(
        plot.load_runs([str(tmp_path / "runs")]), "Diagnostics/CumSteps", "Diagnostics/Iteration"
    )
    assert curve.panel_title == "a2c on CartPole-v1"


def test_compare_tasks_by_env_id_over_cli_runs_keep_one_setting_per_learning_rate(tmp_path):
    """``environment`` and ``name`` follow ``env.id``: names of the task, not settings."""
    from rlpyt.compare import compare_runs

    for env in ("CartPole-v1", "Acrobot-v1"):
        for lr in (3e-4, 1e-3):
            for seed in range(2):
                variant = cli_variant("ppo", env, f"{env}/{lr}/run_{seed}", learning_rate=lr)
                write_run(tmp_path / "runs" / env / str(lr) / f"run_{seed}", variant)
    comparison = compare_runs(str(tmp_path / "runs"), task="env.id", gamma=0.0, reps=50)
    assert [(entry.label, entry.tasks) for entry in comparison.settings] == [
        ("algo.learning_rate=0.0003", ["Acrobot-v1", "CartPole-v1"]),
        ("algo.learning_rate=0.001", ["Acrobot-v1", "CartPole-v1"]),
    ]


def test_script_runs_are_named_as_the_command_line_names_their_algorithm():
    """Every algorithm `rlpyt train` offers: its class path gives its command-line name."""
    from rlpyt.cli.registry import ALGORITHMS

    for name, entry in ALGORITHMS.items():
        assert plot.algorithm_name(entry.algo_cls.replace(":", ".")) == name
    assert plot.algorithm_name("my_lab.algos.PPO") == "PPO"
