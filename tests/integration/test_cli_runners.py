"""Every runner and env backend from the command line, replayed as a user types it (subprocesses).

``--runner async`` (and a config written for it, chosen by ``--config`` alone), ``--runner
sync --ranks 2``, ``--vector gymnasium`` and a config written for gymnasium's vector envs each
train a few hundred steps into a run folder whose params.json names the runner that ran; the
vector-env runs then play (``rlpyt play`` steps one env of the same backend).
"""

import csv
import json
import os
import subprocess
import sys

import pytest

from tests import warm_python

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rlpyt(*args, cwd):
    """``python -m rlpyt ARGS`` in ``cwd``; stdout and stderr merged."""
    return warm_python.run(
        [sys.executable, "-m", "rlpyt", *map(str, args)],
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=REPO),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=280,
        check=False,
    )


def trained(tmp_path, *args):
    """Train into ``tmp_path/runs``; returns (progress rows, params.json)."""
    result = rlpyt("train", *args, "--seed", 1, "--log-dir", tmp_path / "runs", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    run_dir = tmp_path / "runs" / "run_0"
    with open(run_dir / "progress.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return rows, json.loads((run_dir / "params.json").read_text())


def runner_class(params):
    return params["resolved"]["runner"]["class"].rsplit(".", 1)[-1]


SMALL_DQN = ["--set", "algo.min_steps_learn=64", "--set", "sampler.batch_B=2"]
SMALL_DQN += ["--set", "sampler.batch_T=16", "--eval-episodes", "1"]


@pytest.mark.parametrize(
    "args, runner",
    [
        (["dqn", "--env", "CartPole-v1", "--runner", "async", *SMALL_DQN], "AsyncRlEval"),
        (["dqn", "--config", "classic.dqn.cartpole_dqn_async:async", *SMALL_DQN], "AsyncRlEval"),
        (["ppo", "--env", "CartPole-v1", "--runner", "sync", "--ranks", 2], "SyncRl"),
    ],
)
def test_async_and_sync_runners_train_from_the_cli(tmp_path, args, runner):
    rows, params = trained(tmp_path, *args, "--steps", 512, "--log-interval", 256)
    assert runner_class(params) == runner
    assert int(float(rows[-1]["Diagnostics/CumSteps"])) >= 512
    assert params["cli"]["runner"] in ("async", "sync", None)


@pytest.mark.parametrize(
    "args",
    [
        ["ppo", "--env", "CartPole-v1", "--vector", "gymnasium", "--set", "sampler.batch_B=4"],
        ["ppo", "--config", "classic.pg.cartpole_ppo_vec:0", "--set", "sampler.batch_B=4"],
    ],
)
def test_vector_envs_train_from_the_cli(tmp_path, args):
    rows, params = trained(tmp_path, *args, "--set", "sampler.batch_T=32", "--steps", 256)
    assert params["resolved"]["sampler"]["kwargs"]["EnvCls"].endswith("make_vec")
    # two 128-step batches, a row after each (the CLI logs every iteration of so short a run)
    assert [row["Diagnostics/CumSteps"] for row in rows] == ["128", "256"]
    played = rlpyt("play", tmp_path / "runs" / "run_0", "--seed", 0, cwd=tmp_path)
    assert played.returncode == 0 and "Episode 1: return" in played.stdout, played.stdout[-3000:]


def test_a_runner_option_the_runner_lacks_is_a_usage_error(tmp_path):
    result = rlpyt("train", "ppo", "--env", "CartPole-v1", "--runner", "async", cwd=tmp_path)
    assert result.returncode == 2 and "--runner async runs replay algorithms only" in result.stdout
    assert not (tmp_path / "runs").exists()
