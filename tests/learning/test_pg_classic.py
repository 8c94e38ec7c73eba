"""A2C and PPO learn CartPole-v1 to an average training return of 475 within a step budget."""

import pytest
import torch

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.envs.gym_vector import make_vec
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from tests.learning.conftest import column, train_and_read

pytestmark = pytest.mark.learning


def cartpole_sampler(batch_T, batch_B=8):
    return SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=batch_T,
        batch_B=batch_B,
        max_decorrelation_steps=0,
    )


def rl_zoo_ppo(minibatches=1):
    """RL-zoo's CartPole PPO hyperparameters (20 epochs, gamma .98, lambda .8)."""
    return PPO(
        discount=0.98,
        gae_lambda=0.8,
        learning_rate=1e-3,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.0,
        clip_grad_norm=0.5,
        minibatches=minibatches,
        epochs=20,
        ratio_clip=0.2,
        normalize_advantage=True,
    )


def test_ppo_cartpole_reaches_475(tmp_path):
    # RL-zoo's settings: 8 envs x 32 steps.
    runner = MinibatchRl(
        algo=rl_zoo_ppo(),
        agent=ClassicFfAgent(),
        sampler=cartpole_sampler(32),
        n_steps=100_000,
        log_interval_steps=5_120,
        seed=1,
        target_reward=475,  # stops at the first row reaching it: same pass/fail
    )
    rows = train_and_read(runner, tmp_path)
    returns = column(rows, "ReturnAverage")
    assert max(returns) >= 475, returns


def test_a2c_cartpole_reaches_475(tmp_path):
    # RL-zoo's CartPole A2C: 8 envs x 5 steps, RMSprop, no entropy bonus.
    algo = A2C(
        discount=0.99,
        learning_rate=7e-4,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.0,
        OptimCls=torch.optim.RMSprop,
        optim_kwargs=dict(alpha=0.99, eps=1e-5),
        clip_grad_norm=0.5,
    )
    runner = MinibatchRl(
        algo=algo,
        agent=ClassicFfAgent(),
        sampler=cartpole_sampler(5),
        n_steps=300_000,
        log_interval_steps=10_000,
        seed=1,
        target_reward=475,  # stops at the first row reaching it: same pass/fail
    )
    rows = train_and_read(runner, tmp_path)
    returns = column(rows, "ReturnAverage")
    assert max(returns) >= 475, returns


def test_ppo_cartpole_reaches_475_on_the_native_vectorized_backend(tmp_path):
    # The same PPO as above on gymnasium's numpy CartPoleVectorEnv (one vector env, 16 envs;
    # an env that ends waits one step while the backend resets it).
    algo = rl_zoo_ppo(minibatches=2)
    sampler = SerialSampler(
        EnvCls=make_vec,
        env_kwargs=dict(id="CartPole-v1", vectorization_mode="vector_entry_point"),
        batch_T=32,
        batch_B=16,
        max_decorrelation_steps=0,
    )
    runner = MinibatchRl(
        algo=algo,
        agent=ClassicFfAgent(),
        sampler=sampler,
        n_steps=110_000,
        log_interval_steps=5_120,
        seed=1,
        target_reward=475,  # stops at the first row reaching it: same pass/fail
    )
    rows = train_and_read(runner, tmp_path)
    returns = column(rows, "ReturnAverage")
    assert max(returns) >= 475, returns
