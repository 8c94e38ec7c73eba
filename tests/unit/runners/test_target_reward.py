"""target_reward: the runner stops after the first row whose trailing return reaches it."""

import csv
import math
import os

import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.runners.progress import TrainingProgressBar, target_reached
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context

BATCH_T, BATCH_B, LOG_STEPS = 32, 4, 256  # 128 steps per itr, a row every 2 itrs
N_STEPS = 10 * LOG_STEPS


def make_runner(target_reward):
    sampler = SerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=BATCH_T, batch_B=BATCH_B
    )
    return MinibatchRl(
        algo=PPO(minibatches=1, epochs=1),
        agent=ClassicFfAgent(),
        sampler=sampler,
        n_steps=N_STEPS,
        log_interval_steps=LOG_STEPS,
        seed=2,
        target_reward=target_reward,
    )


def test_training_stops_after_the_first_row_at_the_target(tmp_path):
    # Random CartPole episodes last ~22 steps: the first row with returns is >= 5, none is
    # >= 1e6, so the same run stops after its first such row or runs all 10 rows.
    runner = make_runner(target_reward=5.0)
    with logger_context(str(tmp_path), 0, "target", {}, override_prefix=True) as run_dir:
        rows = list(runner.iter_train())
    first_at_target = next(i for i, row in enumerate(rows) if not math.isnan(row["ReturnAverage"]))
    assert len(rows) == first_at_target + 1 < N_STEPS // LOG_STEPS
    assert runner.target_reached_itr == runner.current_itr == 2 * len(rows) - 1
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        assert len(list(csv.DictReader(f))) == len(rows)
    with open(os.path.join(run_dir, "debug.log")) as f:
        log = f.read()
    assert "Target reward reached: ReturnAverage" in log
    assert "Training complete: target reward reached" in log

    never = make_runner(target_reward=1e6)
    with logger_context(str(tmp_path), 1, "target", {}, override_prefix=True):
        assert len(list(never.iter_train())) == N_STEPS // LOG_STEPS
    assert never.target_reached_itr is None


@pytest.mark.parametrize(
    "row, target, reached",
    [
        ({"ReturnAverage": 10.0}, 10.0, True),
        ({"ReturnAverage": 9.99}, 10.0, False),
        ({"ReturnAverage": float("nan")}, -1e9, False),  # no trajectory finished yet
        ({}, 0.0, False),
        ({"ReturnAverage": 500.0}, None, False),
    ],
)
def test_target_reached(row, target, reached):
    assert target_reached(row, target) is reached


def test_a_bad_target_reward_fails_at_construction():
    with pytest.raises((TypeError, ValueError), match="target_reward"):
        make_runner(target_reward="high")


def test_progress_bar_draws_only_when_enabled(capsys):
    off = TrainingProgressBar(1000, enabled=False)
    off.advance(10)
    off.show_row({"ReturnAverage": 3.0})
    off.close()
    assert not off.drawing and capsys.readouterr().err == ""
    assert not TrainingProgressBar(1000).drawing  # the default: only on a terminal (not here)
    bar = TrainingProgressBar(1000, done_steps=100, enabled=True)
    assert bar.drawing
    bar.advance(400)
    bar.show_row({"ReturnAverage": 42.0})
    bar._bar.refresh()
    drawn = capsys.readouterr().err
    assert "500/1.00k" in drawn and "step/s" in drawn and "return 42" in drawn
    bar.close()
    bar.close()  # idempotent
    assert not bar.drawing
