"""The command line's log interval: 10 to 20 rows for a short budget, whatever the config wrote.

A config's ``log_interval_steps`` stays where it gives the run at least ten rows; the command
line's ``--log-interval`` and ``--set runner.log_interval_steps`` are used as given.
"""

import csv
import math

import pytest

from rlpyt.cli.compose import build_components
from rlpyt.cli.config import (
    DEFAULT_LOG_INTERVAL,
    MAX_LOG_ROWS,
    MIN_LOG_ROWS,
    default_log_interval,
    log_rows,
    sampler_batch_size,
)
from rlpyt.cli.spec import RunSpec

SET_INTERVAL = "runner.log_interval_steps"


def runner_rows(n_steps, interval, batch):
    """Rows the runner logs, counted iteration by iteration as ``MinibatchRl`` decides them."""
    n_itr = max(math.ceil(n_steps / batch), 1)
    every = max(int(interval) // batch, 1)
    return sum(1 for itr in range(n_itr) if (itr + 1) % every == 0 or itr == n_itr - 1)


@pytest.mark.parametrize("batch", [1, 32, 160, 256, 2048])
@pytest.mark.parametrize("n_steps", [1, 500, 3000, 20_000, 50_000, 1e6, 50e6])
def test_the_default_interval_gives_10_to_20_rows_in_whole_iterations(n_steps, batch):
    interval = default_log_interval(n_steps, batch)
    rows = log_rows(n_steps, interval, batch)
    assert rows == runner_rows(n_steps, interval, batch)
    n_itr = math.ceil(n_steps / batch)
    if interval < DEFAULT_LOG_INTERVAL:
        assert interval % batch == 0
        assert min(MIN_LOG_ROWS, n_itr) <= rows <= MAX_LOG_ROWS
    else:  # a long run logs as often as the runners' default
        assert rows >= MAX_LOG_ROWS


@pytest.mark.parametrize(
    "spec",
    [
        RunSpec("a2c", "breakout", steps=20_000),  # the config has no interval (100k)
        RunSpec("ppo", "CartPole-v1", steps=3000),  # the config's 4,096 is above the budget
        RunSpec("ppo", "pong", steps=20_000),
        RunSpec("dqn", "CartPole-v1", steps=20_000),  # the config's 5,000 gives 4 rows
        RunSpec("dqn", "pong", steps=20_000),  # the config's 1M is written for 50M steps
        RunSpec("sac", "Pendulum-v1", steps=1000),
        RunSpec("r2d1", "CartPole-v1", steps=20_000),
    ],
    ids=lambda spec: f"{spec.algo}-{spec.env}-{spec.steps}",
)
def test_a_short_cli_run_logs_10_to_20_rows(spec):
    components = build_components(spec)
    runner, batch = components.runner_kwargs, sampler_batch_size(components.config["sampler"])
    n_itr = math.ceil(spec.steps / batch)
    rows = runner_rows(spec.steps, runner["log_interval_steps"], batch)
    assert min(MIN_LOG_ROWS, n_itr) <= rows <= MAX_LOG_ROWS, (runner, batch)


@pytest.mark.parametrize(
    "spec, interval",
    [
        (RunSpec("ppo", "CartPole-v1", steps=50_000), 4096),  # the config's: 13 rows
        (RunSpec("ppo", "CartPole-v1"), 4096),  # the config's budget and interval
        (RunSpec("sac", "Pendulum-v1", steps=100_000), 1000),  # the config's: 100 rows
        (RunSpec("a2c", "breakout"), DEFAULT_LOG_INTERVAL),  # 50M steps: the runners' default
        (RunSpec("ppo", "CartPole-v1", steps=3000, log_interval_steps=5000), 5000),
        (
            RunSpec("ppo", "CartPole-v1", steps=20_000, overrides={"runner.log_interval_steps": 9}),
            9,
        ),
        (RunSpec("dqn", "pong", steps=20_000, log_interval_steps=10_000), 10_000),  # 2 rows, asked
    ],
)
def test_a_fitting_config_interval_and_the_command_lines_stay(spec, interval):
    assert build_components(spec).runner_kwargs["log_interval_steps"] == interval


def test_a_tiny_run_logs_the_rows_planned(tmp_path):
    from rlpyt.cli.train import run_training  # noqa: PLC0415

    spec = RunSpec("ppo", "CartPole-v1", steps=3072, seed=0, log_dir=str(tmp_path))
    components = build_components(spec)
    batch = sampler_batch_size(components.config["sampler"])
    planned = log_rows(spec.steps, components.runner_kwargs["log_interval_steps"], batch)
    run_dir, _ = run_training(spec, components=components)
    with open(f"{run_dir}/progress.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == planned >= MIN_LOG_ROWS
