"""A real (short) training run writes a run folder that meets viskit's file contract."""

import csv
import json
import math
import os
import subprocess

import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlEval
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context
from tests.integration.test_viskit import VISKIT_READER, viskit_python

COMMON = [
    "Diagnostics/Iteration",
    "Diagnostics/CumTime (s)",
    "Diagnostics/CumSteps",
    "Diagnostics/CumCompletedTrajs",
    "Diagnostics/CumUpdates",
    "Diagnostics/StepsPerSecond",
    "Diagnostics/UpdatesPerSecond",
    "Diagnostics/ReplayRatio",
    "Diagnostics/CumReplayRatio",
]
EVAL_FIRST = [
    "Diagnostics/StepsInEval",
    "Diagnostics/TrajsInEval",
    "Diagnostics/CumEvalTime",
    "Diagnostics/CumTrainTime",
]
STATS = ("Average", "Std", "Median", "Min", "Max")
CONFIG = dict(seed=3, algo=dict(learning_rate=1e-3), sampler=dict(batch_T=16, batch_B=4))


def train(tmp_path, RunnerCls, use_summary_writer=False, **sampler_kwargs):
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=16,
        batch_B=4,
        **sampler_kwargs,
    )
    runner = RunnerCls(
        algo=PPO(),
        agent=ClassicFfAgent(),
        sampler=sampler,
        n_steps=4 * 64,
        log_interval_steps=128,
        seed=3,
    )
    with logger_context(
        str(tmp_path / "logs"),
        0,
        "ppo",
        CONFIG,
        override_prefix=True,
        use_summary_writer=use_summary_writer,
    ) as d:
        runner.train()
    with open(os.path.join(d, "progress.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    return d, rows


def assert_no_blank_cells(rows):
    for row in rows:
        assert None not in row and all(cell not in ("", None) for cell in row.values())
        for cell in row.values():
            float(cell)  # viskit reads every cell with float()


def test_minibatch_rl_columns_and_files(tmp_path):
    run_dir, rows = train(tmp_path, MinibatchRl)
    header = list(rows[0])
    assert header[:2] == ["Diagnostics/NewCompletedTrajs", "Diagnostics/StepsInTrajWindow"]
    assert header[2:11] == COMMON
    for key in (
        "Return",
        "Length",
        "DiscountedReturn",
        "NonzeroRewards",
        "loss",
        "gradNorm",
        "entropy",
        "perplexity",
    ):
        assert all(key + stat in header for stat in STATS), key
    assert [float(r["Diagnostics/CumSteps"]) for r in rows] == [128.0, 256.0]
    assert_no_blank_cells(rows)
    with open(os.path.join(run_dir, "params.json")) as f:
        params = json.load(f)
    assert params["exp_name"] and params["run_ID"] == 0 and params["name"] == "ppo"
    assert params["algo"]["learning_rate"] == 1e-3
    assert os.path.isfile(os.path.join(run_dir, "variant.json"))
    assert os.path.isfile(os.path.join(run_dir, "debug.log"))


def test_tensorboard_keeps_the_csv_columns_and_steps_by_env_steps(tmp_path):
    pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    _, rows_off = train(tmp_path / "off", MinibatchRl)
    run_dir, rows_on = train(tmp_path / "on", MinibatchRl, use_summary_writer=True)
    assert list(rows_on[0]) == list(rows_off[0])  # ReturnAverage, never Return/Average
    assert "ReturnAverage" in rows_on[0]
    events = EventAccumulator(run_dir)
    events.Reload()
    tags = events.Tags()["scalars"]
    assert "Return/Average" in tags and "ReturnAverage" not in tags
    assert [e.step for e in events.Scalars("Return/Average")] == [128, 256]  # CumSteps, not itr
    iterations = events.Scalars("Diagnostics/Iteration")
    assert [(e.step, e.value) for e in iterations] == [(128, 1.0), (256, 3.0)]


def test_minibatch_rl_eval_logs_a_row_before_training(tmp_path):
    _, rows = train(
        tmp_path, MinibatchRlEval, eval_n_envs=2, eval_max_steps=400, eval_max_trajectories=4
    )
    header = list(rows[0])
    assert header[:4] == EVAL_FIRST and header[4:13] == COMMON
    assert [float(r["Diagnostics/CumSteps"]) for r in rows] == [0.0, 128.0, 256.0]
    assert math.isnan(float(rows[0]["Diagnostics/StepsPerSecond"]))
    assert all(float(r["Diagnostics/TrajsInEval"]) >= 1 for r in rows)
    assert_no_blank_cells(rows)


def test_viskit_reads_a_training_run(tmp_path):
    run_dir, rows = train(tmp_path, MinibatchRl)
    out = tmp_path / "viskit.json"
    result = subprocess.run(
        [str(viskit_python()), "-I", "-c", VISKIT_READER, str(tmp_path / "logs"), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    (found,) = json.loads(out.read_text())
    assert found["flat_params"]["algo.learning_rate"] == 1e-3
    assert found["flat_params"]["sampler.batch_B"] == 4
    assert found["progress"]["Diagnostics/CumSteps"] == [128.0, 256.0]
    assert found["progress"]["ReturnAverage"] == [float(r["ReturnAverage"]) for r in rows]
