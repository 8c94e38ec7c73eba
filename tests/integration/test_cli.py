"""The ``rlpyt`` command line driven as a user drives it: in a subprocess, reading its folders."""

import csv
import json
import os
import re
import subprocess
import sys

import pytest

from rlpyt.cli.registry import ALGORITHMS, SAMPLERS
from tests import warm_python

TARGET = 50.0  # CartPole-v1: a random policy averages ~22; the tuned PPO passes 50 near 8k steps
BUDGET = 60_000  # env steps the run may take; stopping early means using far fewer


def rlpyt(*args, cwd, timeout=600):
    """Run ``python -m rlpyt ARGS``; returns the CompletedProcess (stdout and stderr merged)."""
    return warm_python.run(
        [sys.executable, "-m", "rlpyt", *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
        check=False,
    )


def read_rows(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


def test_help_lists_every_algorithm_sampler_and_command(tmp_path):
    top = rlpyt("--help", cwd=tmp_path)
    assert top.returncode == 0
    for command in ("train", "sweep", "plot"):
        assert re.search(rf"^\s+{command}\s", top.stdout, re.M), top.stdout
    train = rlpyt("train", "--help", cwd=tmp_path)
    assert train.returncode == 0
    for name, entry in ALGORITHMS.items():
        assert re.search(rf"^\s+{name}\s+{re.escape(entry.summary[:20])}", train.stdout, re.M)
    assert "[" + "|".join(SAMPLERS) + "]" in train.stdout.replace("\n", "")
    words = " ".join(train.stdout.split())
    assert "[default: serial]" in words and "--target-reward FLOAT" in words
    version = rlpyt("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("rlpyt, version ")


def test_train_ppo_stops_at_the_target_reward_then_resumes(tmp_path):
    run_dir = tmp_path / "runs" / "run_0"
    args = ["--env", "CartPole-v1", "--seed", "0", "--log-interval", 2048]
    result = rlpyt(
        "train", "ppo", *args, "--steps", BUDGET, "--target-reward", TARGET,
        "--log-dir", tmp_path / "runs", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    rows = read_rows(run_dir)
    returns = [float(row["ReturnAverage"]) for row in rows]
    steps = [int(float(row["Diagnostics/CumSteps"])) for row in rows]
    assert returns[-1] >= TARGET and all(r < TARGET for r in returns[:-1]), returns
    assert steps[-1] < BUDGET / 2, "stopped early, far inside the step budget"
    assert "Target reward reached" in result.stdout and f"Run folder: {run_dir}" in result.stdout
    params = json.loads((run_dir / "params.json").read_text())
    assert params["cli"]["algo"] == "ppo" and params["cli"]["target_reward"] == TARGET
    assert "rlpyt train ppo" in params["command_line"]
    assert params["package_versions"]["rlpyt"]
    assert ("git_commit" in params) == ("git_dirty" in params)

    # Resuming continues the same run: the next row follows the last, and the trailing
    # return is still above the target, so it stops again after one more log interval.
    resumed = rlpyt("train", "--resume", run_dir, "--steps", BUDGET, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stdout[-3000:]
    rows_after = read_rows(run_dir)
    assert len(rows_after) == len(rows) + 1
    assert int(float(rows_after[-1]["Diagnostics/CumSteps"])) == steps[-1] + 2048
    assert "Resumed from the snapshot of iteration" in resumed.stdout


def test_sweep_over_a_grid_then_plot_it_to_a_png(tmp_path):
    result = rlpyt(
        "sweep", "ppo", "--env", "CartPole-v1", "--grid", "algo.learning_rate=1e-3,3e-4",
        "--seeds", 1, "--steps", 512, "--log-interval", 256, "--set", "algo.epochs=1",
        "--root-log-dir", tmp_path / "data", "--cores", 2, "--title", "lr_sweep", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    exp_dir = re.search(r"^Sweep folder: (.+)$", result.stdout, re.M).group(1)
    for setting in ("learning_rate_0.001", "learning_rate_0.0003"):
        assert len(read_rows(os.path.join(exp_dir, setting, "run_0"))) == 2
    png = tmp_path / "fig.png"
    plotted = rlpyt("plot", exp_dir, "--out", png, cwd=tmp_path)
    assert plotted.returncode == 0, plotted.stdout[-3000:]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_sweep_through_submitit_runs_each_setting_as_a_job(tmp_path):
    pytest.importorskip("submitit")
    result = rlpyt(
        "sweep", "ppo", "--env", "CartPole-v1", "--grid", "algo.learning_rate=1e-3",
        "--seeds", 2, "--steps", 256, "--log-interval", 256, "--set", "algo.epochs=1",
        "--root-log-dir", tmp_path / "data", "--title", "slurm_like", "--launcher", "submitit",
        "--cluster", "local", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    exp_dir = re.search(r"^Sweep folder: (.+)$", result.stdout, re.M).group(1)
    for run in ("run_0", "run_1"):  # 256 steps: one row each
        rows = read_rows(os.path.join(exp_dir, "learning_rate_0.001", run))
        assert [r["Diagnostics/CumSteps"] for r in rows] == ["256"]


def _run_folder_without_snapshot(tmp_path):
    run_dir = tmp_path / "old" / "run_0"
    run_dir.mkdir(parents=True)
    cli = {"algo": "ppo", "env": "CartPole-v1", "log_dir": str(run_dir.parent)}
    (run_dir / "params.json").write_text(json.dumps({"cli": cli}))
    (run_dir / "progress.csv").write_text("")
    return run_dir


@pytest.mark.parametrize(
    "args, problem, fix",
    [
        (["train", "ppp", "--env", "CartPole-v1"], "unknown algorithm 'ppp'", "Did you mean 'ppo'"),
        (["train", "ppo", "--env", "CartPol-v1"], "Unknown env id 'CartPol-v1'", "'CartPole-v1'"),
        (
            ["train", "ppo", "--env", "CartPole-v1", "--set", "algo.learnin_rate=1e-3"],
            "Unknown config key 'algo.learnin_rate'",
            "Did you mean 'algo.learning_rate'",
        ),
        (["train", "ppo", "--set", "learning_rate=1"], "not of the form", "section.key=value"),
        (["train", "--resume", "NO_SNAPSHOT"], "No snapshot in", "Start it again"),
        (["train", "--resume", "."], "is not a run folder", "Pass the run folder"),
        (["plot", "."], "No run folder", "progress.csv"),
    ],
)
def test_bad_input_exits_non_zero_naming_problem_and_fix(tmp_path, args, problem, fix):
    if "NO_SNAPSHOT" in args:
        args = [
            str(_run_folder_without_snapshot(tmp_path)) if a == "NO_SNAPSHOT" else a for a in args
        ]
    result = rlpyt(*args, cwd=tmp_path)
    output = " ".join(result.stdout.split())  # click wraps long messages
    assert result.returncode != 0
    assert problem in output and fix in output, output
    assert "Traceback" not in result.stdout
    assert not (tmp_path / "runs").exists(), "nothing may start before the input is checked"


def _run_folder_with_truncated_snapshot(tmp_path):
    run_dir = _run_folder_without_snapshot(tmp_path)
    (run_dir / "params.pkl").write_bytes(b"\x80\x04\x95")  # the first bytes of a pickle
    return run_dir


def _run_folder_with_progress(tmp_path):
    run_dir = tmp_path / "done" / "run_0"
    run_dir.mkdir(parents=True)
    (run_dir / "params.json").write_text(json.dumps({"algo": {"learning_rate": 1e-3}}))
    (run_dir / "progress.csv").write_text("Diagnostics/CumSteps,ReturnAverage\n10,1.0\n20,2.0\n")
    return run_dir


@pytest.mark.parametrize(
    "args, message",
    [
        (["--set", "model.hidden_sizes=abc"], "--set model.hidden_sizes=abc: expected an int"),
        (["--set", "algo.learning_rate=abc"], "--set algo.learning_rate=abc: expected a number"),
        (["--set", "optim.betas=7"], "--set optim.betas=7: expected a list of 2 values"),
        (["--set", "model.hidden_sizes=[-1]"], "The run cannot be built (building the"),
        (["--resume", "TRUNCATED"], "Cannot resume"),
    ],
)
def test_bad_values_are_usage_errors_before_anything_is_written(tmp_path, args, message):
    """rc 2 (click's usage error), one message, no traceback, no run folder."""
    if "TRUNCATED" in args:
        args = ["--resume", str(_run_folder_with_truncated_snapshot(tmp_path))]
    else:
        args = ["ppo", "--env", "CartPole-v1", *args]
    result = rlpyt("train", *args, cwd=tmp_path)
    output = " ".join(result.stdout.split())
    assert result.returncode == 2, output
    assert message in output and "Traceback" not in output, output
    assert not (tmp_path / "runs").exists()


def test_plot_of_an_unknown_column_names_the_commands_own_options(tmp_path):
    result = rlpyt("plot", _run_folder_with_progress(tmp_path), "--key", "NoSuchCol", cwd=tmp_path)
    output = " ".join(result.stdout.split())
    assert result.returncode != 0 and "has no column ['NoSuchCol']" in output, output
    assert "--y" not in output and "Traceback" not in output, output


def test_steps_is_the_budget_rounded_to_whole_batches(tmp_path):
    """``--steps 3000`` with 256-step batches trains 12 batches (3,072), said once, not 4,096."""
    result = rlpyt(
        "train", "ppo", "--env", "CartPole-v1", "--steps", 3000, "--seed", 0,
        "--set", "algo.epochs=1", "--log-dir", tmp_path / "runs", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    steps = [
        int(float(row["Diagnostics/CumSteps"])) for row in read_rows(tmp_path / "runs" / "run_0")
    ]
    assert steps[-1] == 3072 and max(steps) == 3072, steps
    (notice,) = [line for line in result.stdout.splitlines() if "whole number of" in line]
    assert notice.split("  | ", 1)[1].startswith("CartPole-v1_0 MinibatchRl: n_steps=3,000 is")
    assert "UserWarning" not in result.stdout and "get_n_itr()" not in result.stdout
