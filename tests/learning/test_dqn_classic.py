"""DQN and CategoricalDQN learn CartPole-v1 to an evaluation return of 475 within 50k steps.

Settings: ``rlpyt.experiments.configs.classic.dqn.cartpole_dqn`` (RL-Zoo's tuned CartPole DQN in
rlpyt's terms). Each seed trains up to the config's 50,000 env steps, evaluating 10 episodes
every 4,864 steps, and stops at the first evaluation averaging >= 475; at least 2 of seeds 0-2
must get there (seeds are tried until 2 have, so a good run costs 2 seeds). Steps to 475 when
this was written: DQN 38,912 / 34,048 / 29,184 (seeds 0 / 1 / 2), CategoricalDQN 34,048 / 9,728
/ 24,320; seed 0, the slowest for both, is tried last.
"""

import copy

import pytest

from rlpyt.agents.dqn.classic import ClassicCatDqnAgent, ClassicDqnAgent
from rlpyt.algos.dqn.cat_dqn import CategoricalDQN
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.gym import make as gym_make
from rlpyt.experiments.configs.classic.dqn.cartpole_dqn import configs
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger

pytestmark = pytest.mark.learning

TARGET = 475.0
SEEDS = (1, 2, 0)  # the same 2 of 3; seed 0 learns slowest (see above)
NEEDED = 2


def steps_to_target(key, seed):
    """Env steps at the first evaluation averaging >= TARGET (None within the budget)."""
    config = copy.deepcopy(configs[key])
    AlgoCls, AgentCls = (
        (CategoricalDQN, ClassicCatDqnAgent) if key == "catdqn" else (DQN, ClassicDqnAgent)
    )
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=config["env"],
        eval_env_kwargs=config["eval_env"],
        **config["sampler"],
    )
    runner = MinibatchRlEval(
        algo=AlgoCls(optim_kwargs=config["optim"], **config["algo"]),
        agent=AgentCls(model_kwargs=config["model"], **config["agent"]),
        sampler=sampler,
        seed=seed,
        **config["runner"],
    )
    returns = []
    for row in runner.iter_train():
        returns.append(row["ReturnAverage"])
        if row["ReturnAverage"] >= TARGET:
            return int(row["Diagnostics/CumSteps"]), returns
    return None, returns


@pytest.mark.parametrize("key", ["dqn", "catdqn"])
def test_cartpole_reaches_475(key):
    logger.disable()
    try:
        results = {}
        for seed in SEEDS:
            results[seed] = steps_to_target(key, seed)
            if sum(steps is not None for steps, _ in results.values()) >= NEEDED:
                break
    finally:
        logger.enable()
    solved = [seed for seed, (steps, _) in results.items() if steps is not None]
    assert len(solved) >= NEEDED, results
