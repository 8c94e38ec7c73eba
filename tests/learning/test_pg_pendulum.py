"""PPO with the Gaussian MujocoFfAgent learns Pendulum-v1 (time-limit bootstrapping matters here:
every episode ends by truncation at 200 steps)."""

import pytest

from rlpyt.agents.pg.mujoco import MujocoFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from tests.learning.conftest import column, train_and_read

pytestmark = pytest.mark.learning


def test_ppo_pendulum_reaches_minus_300(tmp_path):
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="Pendulum-v1"),
        batch_T=256,
        batch_B=8,
        max_decorrelation_steps=0,
    )
    algo = PPO(
        discount=0.9,
        gae_lambda=0.95,
        learning_rate=3e-3,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.0,
        clip_grad_norm=0.5,
        minibatches=8,
        epochs=10,
        ratio_clip=0.2,
        normalize_advantage=True,
    )
    agent = MujocoFfAgent(model_kwargs=dict(normalize_observation=True))
    runner = MinibatchRl(
        algo=algo,
        agent=agent,
        sampler=sampler,
        n_steps=300_000,
        log_interval_steps=10_240,
        seed=1,
        log_traj_window=20,
        target_reward=-300,  # stops at the first row reaching it: same pass/fail
    )
    rows = train_and_read(runner, tmp_path)
    returns = column(rows, "ReturnAverage")
    assert max(returns) >= -300, returns
