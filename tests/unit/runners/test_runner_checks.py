"""Runner constructors refuse counts that cannot run: the message names keyword, value, range."""

import math

import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlEval
from rlpyt.samplers.serial.sampler import SerialSampler


def build(RunnerCls=MinibatchRl, **runner_kwargs):
    sampler = SerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=16, batch_B=4
    )
    kwargs = {"n_steps": 1024, "log_interval_steps": 128, **runner_kwargs}
    return RunnerCls(algo=PPO(), agent=ClassicFfAgent(), sampler=sampler, **kwargs)


@pytest.mark.parametrize("RunnerCls", [MinibatchRl, MinibatchRlEval])
@pytest.mark.parametrize(
    "keyword, value",
    [
        ("n_steps", 0),  # rlpyt trained one iteration
        ("n_steps", -1000),
        ("n_steps", 0.5),
        ("n_steps", math.inf),
        ("n_steps", math.nan),
        ("n_steps", "1e6"),
        ("log_interval_steps", -1),  # rlpyt logged at every iteration
        ("log_interval_steps", 0),
        ("log_interval_steps", math.nan),
    ],
)
def test_invalid_step_counts_fail_at_construction(RunnerCls, keyword, value):
    error_type = TypeError if isinstance(value, str) else ValueError
    with pytest.raises(error_type) as error:
        build(RunnerCls, **{keyword: value})
    message = str(error.value)
    assert f"{RunnerCls.__name__}: {keyword}={value!r}" in message
    assert "must be a number >= 1" in message


def test_a_negative_trajectory_window_fails_at_construction():
    with pytest.raises(ValueError, match=r"MinibatchRl: log_traj_window=-5 .* integer >= 0"):
        build(log_traj_window=-5)


def test_valid_counts_are_kept_as_whole_numbers():
    runner = build(log_traj_window=0)
    assert (runner.n_steps, runner.log_interval_steps, runner.log_traj_window) == (1024, 128, 0)
    runner = build(n_steps=1e6, log_interval_steps=1)  # one step: log every iteration
    assert (runner.n_steps, runner.log_interval_steps) == (1_000_000, 1)
