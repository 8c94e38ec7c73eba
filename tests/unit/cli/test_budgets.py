"""The CLI plans a run inside its step budget: a log interval longer than --steps is cut below it.

(tests/unit/cli/test_log_interval.py has the rule: 10 to 20 rows in whole iterations.)
"""

import pytest

from rlpyt.cli.compose import build_components
from rlpyt.cli.spec import RunSpec


@pytest.mark.parametrize(
    "spec, interval",
    [
        (RunSpec("ppo", "CartPole-v1", steps=3000), 256),  # the config logs every 4,096
        (RunSpec("ppo", "pong", steps=2000), 2048),  # 100k in the config; one batch of 2,048
        (RunSpec("sac", "Pendulum-v1", steps=1000), 50),
        (RunSpec("ppo", "CartPole-v1", steps=50_000), 4096),  # fits: the config's stays
        (RunSpec("ppo", "CartPole-v1", steps=3000, log_interval_steps=5000), 5000),  # asked for
        (RunSpec("ppo", "CartPole-v1", steps=3000, overrides={"runner.log_interval_steps": 9}), 9),
    ],
)
def test_log_interval_fits_the_step_budget(spec, interval):
    runner = build_components(spec).runner_kwargs
    assert runner["log_interval_steps"] == interval
    assert runner["n_steps"] == spec.steps
