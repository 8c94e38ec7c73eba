"""Smoke tests of ``examples/``: each example trains for a tiny step budget and writes its logs.

The Atari examples run in-process through their own ``build_and_train`` with ``n_steps`` small;
their evaluation settings (rlpyt's: 10 envs, up to 10k steps, before every row) are cut down by
wrapping the sampler class the example module uses, since two full evaluations of Pong would
take most of a minute. The SAC MuJoCo example (2) runs the same way, with SAC's learning start
lowered so that a few updates happen; the CartPole PPO example with a shorter log interval;
each example's command line is checked with ``--help``.
"""

import csv
import functools
import importlib.util
import math
import sys
from pathlib import Path

import pytest

from tests import warm_python

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def load_example(name):
    """Import ``examples/<name>.py`` (its ``__main__`` block does not run)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_small_evaluation(SamplerCls):  # noqa: N803
    """``SamplerCls`` whose evaluation is 2 envs and at most 100 steps, whatever is passed."""

    def build(**kwargs):
        kwargs.update(eval_n_envs=2, eval_max_steps=100, eval_max_trajectories=2)
        return SamplerCls(**kwargs)

    return build


def the_run_dir(root, log_dir):
    """The one ``run_0`` folder under ``root/data/local/<date>/<time>/<log_dir>/``."""
    (run_dir,) = (root / "data" / "local").glob(f"*/*/{log_dir}/run_0")
    return run_dir


def read_progress(run_dir):
    with open(run_dir / "progress.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(
    ("example", "sampler_name", "log_dir"),
    [("example_1", "SerialSampler", "example_1"), ("example_5", "GpuSampler", "example_5")],
)
def test_atari_dqn_example_trains_and_logs(example, sampler_name, log_dir, tmp_path, monkeypatch):
    module = load_example(example)
    monkeypatch.setattr(module, sampler_name, with_small_evaluation(getattr(module, sampler_name)))
    monkeypatch.chdir(tmp_path)
    module.build_and_train(game="pong", run_ID=0, cuda_idx=None, n_steps=64)
    run_dir = the_run_dir(tmp_path, log_dir)
    rows = read_progress(run_dir)
    # A row at the start and one after the first 1000 steps (the runner's log interval).
    assert [int(float(row["Diagnostics/CumSteps"])) for row in rows][0] == 0
    assert int(float(rows[-1]["Diagnostics/CumSteps"])) >= 64
    assert float(rows[-1]["Diagnostics/CumEvalTime"]) > 0  # (No Pong game ends in 100 steps.)
    if example == "example_1":  # snapshot_mode="last"
        assert (run_dir / "params.pkl").is_file()


@pytest.mark.skipif(importlib.util.find_spec("mujoco") is None, reason="needs the mujoco extra")
def test_sac_mujoco_example_trains_and_logs(tmp_path, monkeypatch):
    module = load_example("example_2")
    monkeypatch.setattr(module, "SerialSampler", with_small_evaluation(module.SerialSampler))
    # Learning from step 64 (SAC's default is 10k) with the defaults otherwise: one update of
    # 256 per step; the runner rounds n_steps up to whole log intervals, so shorten that too.
    monkeypatch.setattr(module, "SAC", functools.partial(module.SAC, min_steps_learn=64))
    real_runner = module.MinibatchRlEval
    monkeypatch.setattr(
        module,
        "MinibatchRlEval",
        lambda **kwargs: real_runner(**{**kwargs, "log_interval_steps": 64}),
    )
    monkeypatch.chdir(tmp_path)
    module.build_and_train(env_id="HalfCheetah-v5", run_ID=0, cuda_idx=None, n_steps=128)
    run_dir = the_run_dir(tmp_path, "example_2")
    rows = read_progress(run_dir)
    assert [int(float(row["Diagnostics/CumSteps"])) for row in rows] == [0, 64, 128]
    assert float(rows[-1]["Diagnostics/CumUpdates"]) > 0
    assert math.isfinite(float(rows[-1]["q1LossAverage"]))  # Trained
    assert float(rows[-1]["Diagnostics/CumEvalTime"]) > 0
    assert (run_dir / "params.pkl").is_file()  # snapshot_mode="last"


def test_cartpole_ppo_example_trains_and_logs(tmp_path, monkeypatch):
    module = load_example("example_cartpole_ppo")
    # The runner rounds n_steps up to whole log intervals (10,240 steps here): shorten both.
    monkeypatch.setitem(module.CONFIG, "runner", dict(n_steps=512, log_interval_steps=256))
    monkeypatch.chdir(tmp_path)
    module.build_and_train(run_ID=0, n_steps=512, seed=1)
    rows = read_progress(the_run_dir(tmp_path, "example_cartpole_ppo"))
    assert [int(float(row["Diagnostics/CumSteps"])) for row in rows] == [256, 512]
    assert math.isfinite(float(rows[-1]["lossAverage"]))  # Trained


@pytest.mark.parametrize(
    "example", ["example_1", "example_2", "example_3", "example_5", "example_cartpole_ppo"]
)
def test_example_command_line_parses(example):
    result = warm_python.run(
        [sys.executable, str(EXAMPLES / f"{example}.py"), "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "--n_steps" in result.stdout and "--run_ID" in result.stdout
