"""A recurrent agent learns CartPole with the velocities hidden; a feed-forward agent, trained
the same way, cannot (it sees only position and angle, so it cannot tell where things move)."""

import gymnasium as gym
import numpy as np
import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import GymEnvWrapper
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.parallel.cpu.collectors import CpuWaitResetCollector
from rlpyt.samplers.serial.sampler import SerialSampler
from tests.learning.conftest import column, train_and_read

pytestmark = pytest.mark.learning


class HideVelocity(gym.ObservationWrapper):
    """CartPole observation without the two velocities: ``[x, theta]``."""

    def __init__(self, env):
        super().__init__(env)
        high = env.observation_space.high[[0, 2]]
        self.observation_space = gym.spaces.Box(-high, high, dtype=np.float32)

    def observation(self, observation):
        return observation[[0, 2]]


def make_cartpole_without_velocity():
    return GymEnvWrapper(HideVelocity(gym.make("CartPole-v1")))


def train(agent, tmp_path, target_reward):
    sampler = SerialSampler(
        EnvCls=make_cartpole_without_velocity,
        env_kwargs={},
        batch_T=16,
        batch_B=32,
        max_decorrelation_steps=0,
        CollectorCls=CpuWaitResetCollector,
    )
    algo = PPO(
        discount=0.99,
        gae_lambda=0.95,
        learning_rate=1e-3,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.0,
        clip_grad_norm=0.5,
        minibatches=4,
        epochs=10,
        ratio_clip=0.2,
        normalize_advantage=True,
        linear_lr_schedule=True,
    )
    runner = MinibatchRl(
        algo=algo,
        agent=agent,
        sampler=sampler,
        # 400 batches of 512. With the learning rate decaying to 0 over them, the recurrent
        # agent first logged >= 150 after 20k, 110k and 90k steps with seeds 1, 2, 3 (its best
        # rows 385, 212, 299); the feed-forward one stayed at 41-55 for the whole budget. With a
        # constant rate and half the steps it peaked at 156 (seed 1) and 147 (seed 2): which
        # side of 200 it ended on depended on the CPU's float kernels.
        n_steps=204_800,
        log_interval_steps=10_000,
        seed=1,
        log_traj_window=20,
        target_reward=target_reward,  # stops at the first row reaching it
    )
    return column(train_and_read(runner, tmp_path), "ReturnAverage")


def test_recurrent_agent_learns_what_feed_forward_cannot(tmp_path):
    recurrent = train(ClassicLstmAgent(), tmp_path / "lstm", target_reward=150)
    feed_forward = train(ClassicFfAgent(), tmp_path / "ff", target_reward=100)  # would fail
    assert max(recurrent) >= 150, recurrent
    assert max(feed_forward) < 100, feed_forward
