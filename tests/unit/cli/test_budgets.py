"""The CLI plans a run inside its step budget: a log interval longer than --steps is cut to it."""

import pytest

from rlpyt.cli.compose import build_components
from rlpyt.cli.spec import RunSpec


@pytest.mark.parametrize(
    "spec, interval",
    [
        (RunSpec("ppo", "CartPole-v1", steps=3000), 3000),  # the config logs every 4,096
        (RunSpec("ppo", "pong", steps=2000), 2000),  # the config logs every 100k
        (RunSpec("sac", "Pendulum-v1", steps=1000), 1000),
        (RunSpec("ppo", "CartPole-v1", steps=50_000), 4096),  # fits: the config's stays
        (RunSpec("ppo", "CartPole-v1", steps=3000, log_interval_steps=5000), 5000),  # asked for
        (RunSpec("ppo", "CartPole-v1", steps=3000, overrides={"runner.log_interval_steps": 9}), 9),
    ],
)
def test_log_interval_fits_the_step_budget(spec, interval):
    runner = build_components(spec).runner_kwargs
    assert runner["log_interval_steps"] == interval
    assert runner["n_steps"] == spec.steps
