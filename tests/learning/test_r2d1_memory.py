"""R2D1 learns CartPole-v1 with the velocities hidden; a feed-forward DQN, same budget, cannot.

The env observes only the cart position and the pole angle
(``rlpyt.experiments.configs.classic.dqn.cartpole_r2d1.make_cartpole_without_velocity``), so a
policy must infer both velocities from the history. R2D1 settings: that module's "r2d1" config
(``ClassicR2d1Agent``: MLP 64 -> LSTM 64 -> head), trained for BUDGET env steps with 10
evaluation episodes every 4,960 steps; a seed passes at its first evaluation averaging >= TARGET
(five times the feed-forward DQN's best), and 2 of 3 seeds must pass (tried until 2 have).

Where the seeds were when this was written (evaluation return at env steps): seed 0 319.5 at
29,760; seed 1 266.3 at 64,480 (323.0 at 69,440); seed 2 reaches 478 at 104,160. Learning
is slow and noisy (seed 0 then wanders between 190 and 340), which is why the bar is a
separation from the feed-forward network and not "solved" (475).

The feed-forward DQN (``ClassicDqnAgent``, MLP 64-64, double, 3-step returns) trains on the
same env, sampler and evaluation schedule for the same budget; its best evaluation must stay
below TARGET (it peaked at 47.5 over 104,160 steps, seed 0).
"""

import copy

import pytest

from rlpyt.agents.dqn.classic import ClassicDqnAgent, ClassicR2d1Agent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.experiments.configs.classic.dqn.cartpole_r2d1 import (
    configs,
    make_cartpole_without_velocity,
)
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger

pytestmark = pytest.mark.learning

TARGET = 250.0
BUDGET = 69_440  # 434 sampler batches of 160 env steps: 14 evaluations after the first
SEEDS = (0, 1, 2)
NEEDED = 2


def evaluations(algo, agent, seed, stop_at=None):
    """Evaluation returns of one run (stops at the first >= ``stop_at``)."""
    config = copy.deepcopy(configs["r2d1"])
    sampler = SerialSampler(
        EnvCls=make_cartpole_without_velocity,
        env_kwargs=config["env"],
        eval_env_kwargs=config["eval_env"],
        **config["sampler"],
    )
    config["runner"]["n_steps"] = BUDGET
    runner = MinibatchRlEval(algo=algo, agent=agent, sampler=sampler, seed=seed, **config["runner"])
    returns = []
    for row in runner.iter_train():
        returns.append((int(row["Diagnostics/CumSteps"]), row["ReturnAverage"]))
        if stop_at is not None and row["ReturnAverage"] >= stop_at:
            break
    return returns


def r2d1_run(seed):
    config = copy.deepcopy(configs["r2d1"])
    algo = R2D1(optim_kwargs=config["optim"], **config["algo"])
    agent = ClassicR2d1Agent(model_kwargs=config["model"], **config["agent"])
    return evaluations(algo, agent, seed, stop_at=TARGET)


@pytest.fixture
def quiet():
    logger.disable()
    yield
    logger.enable()


# Up to three runs of BUDGET steps: budgeted in steps, not seconds; the timeout only guards
# against a hang, and under `make test`'s two xdist workers it shares the cores.
@pytest.mark.timeout(900)
def test_r2d1_learns_cartpole_without_velocities(quiet):
    results = {}
    for seed in SEEDS:
        results[seed] = r2d1_run(seed)
        if sum(max(r for _, r in runs) >= TARGET for runs in results.values()) >= NEEDED:
            break
    solved = [seed for seed, runs in results.items() if max(r for _, r in runs) >= TARGET]
    assert len(solved) >= NEEDED, results


def test_feed_forward_dqn_does_not_within_the_same_budget(quiet):
    r2d1 = configs["r2d1"]["algo"]
    algo = DQN(
        discount=r2d1["discount"],
        batch_size=256,
        n_step_return=r2d1["n_step_return"],
        replay_size=r2d1["replay_size"],
        replay_ratio=8,
        min_steps_learn=r2d1["min_steps_learn"],
        eps_steps=r2d1["eps_steps"],
        target_update_interval=r2d1["target_update_interval"],
        learning_rate=r2d1["learning_rate"],
        clip_grad_norm=r2d1["clip_grad_norm"],
        double_dqn=True,
    )
    agent = ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[64, 64]), eps_final=0.01)
    returns = evaluations(algo, agent, seed=0)
    assert returns[-1][0] == BUDGET
    assert max(r for _, r in returns) < TARGET, returns
