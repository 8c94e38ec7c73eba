"""Exact budgets: a run trains n_steps rounded up to whole sampler batches (said once, as a
logged line), logs a row at its last iteration whatever the log interval, and warns when
learning would never start.
"""

import csv
import os
import warnings

import pytest

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlEval
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context

T, B = 16, 4  # 64 steps per iteration


def run(tmp_path, n_steps, algo=None, agent=None, RunnerCls=MinibatchRl, **sampler_kwargs):  # noqa: N803
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=T,
        batch_B=B,
        max_decorrelation_steps=0,
        **sampler_kwargs,
    )
    runner = RunnerCls(
        algo or PPO(minibatches=1, epochs=1),
        agent or ClassicFfAgent(),
        sampler,
        n_steps=n_steps,
        log_interval_steps=128,
        seed=2,
    )
    with (
        warnings.catch_warnings(record=True) as caught,
        logger_context(str(tmp_path), 0, "budget", {}, override_prefix=True) as run_dir,
    ):
        warnings.simplefilter("always")
        runner.train()
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(run_dir, "debug.log"), encoding="utf-8") as f:
        logged = [line.split("  | ", 1)[-1] for line in f.read().splitlines()]
    messages = [f"warning: {w.message}" for w in caught] + [f"log: {line}" for line in logged]
    return messages, [int(r["Diagnostics/CumSteps"]) for r in rows]


def test_the_run_trains_whole_batches_and_logs_its_last_iteration(tmp_path):
    messages, cum_steps = run(tmp_path, n_steps=300)
    assert cum_steps == [128, 256, 320]  # 300 -> 5 batches; rlpyt ran 6 (whole log intervals)
    rounded = [m for m in messages if "whole number of sampler batches" in m]
    assert rounded == [  # one logged line, no warning
        "log: budget_0 MinibatchRl: n_steps=300 is not a whole number of sampler batches "
        "(64 env steps each): training 320 steps (5 iterations)."
    ]


def test_a_whole_number_of_batches_is_not_rounded_and_eval_runs_at_the_end(tmp_path):
    messages, cum_steps = run(
        tmp_path, 192, RunnerCls=MinibatchRlEval, eval_n_envs=1, eval_max_steps=100
    )
    assert cum_steps == [0, 128, 192]  # the pre-training row, a log interval, the last itr
    assert not [m for m in messages if "sampler batches" in m]


def test_learning_that_never_starts_is_said_at_start(tmp_path):
    algo = DQN(min_steps_learn=50_000, batch_size=32, replay_size=1000)
    messages, cum_steps = run(tmp_path, 256, algo=algo, agent=ClassicDqnAgent())
    assert cum_steps == [128, 256]
    (never,) = [m for m in messages if "learning starts" in m]
    assert "min_steps_learn=50,000" in never and "learns never" in never
    assert "last iteration is 3" in never


@pytest.mark.parametrize(("min_steps", "warned"), [(192, True), (128, False)])
def test_learning_only_in_the_last_iteration_is_said_too(tmp_path, min_steps, warned):
    algo = DQN(min_steps_learn=min_steps, batch_size=32, replay_size=1000)
    messages, _ = run(tmp_path, 256, algo=algo, agent=ClassicDqnAgent())
    found = [m for m in messages if "learning starts" in m]
    assert bool(found) == warned
    if warned:
        assert "only in its last iteration" in found[0]
