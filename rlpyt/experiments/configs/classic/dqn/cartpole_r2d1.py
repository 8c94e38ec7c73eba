"""Config for R2D1 on CartPole-v1 with the velocities hidden (a memory task), and its env.

Read by ``experiments/scripts/classic/dqn/train/cartpole_r2d1.py`` (``R2D1`` with
``ClassicR2d1Agent``) and by the learning test ``tests/learning/test_r2d1_memory.py``: these
are the real settings. Sub-dicts are splatted into the
constructors; ``env`` and ``eval_env`` go to :func:`make_cartpole_without_velocity`,
``model`` is the agent's ``model_kwargs``.

The env (:func:`make_cartpole_without_velocity`) is CartPole-v1 observing only the cart
position and the pole angle: a policy must infer both velocities from the history, so a
feed-forward Q-network cannot balance the pole for long, and R2D1's LSTM can.

Key "r2d1": ``ClassicR2d1Model`` (MLP 64 -> LSTM 64 -> head 64); sequences of 20 training steps
after a warm-up of 10, a state stored every 10 steps, 32 sequences per update, 3-step
returns at discount 0.99; 8 updates per sampler batch of 20 steps x 8 envs
(``replay_ratio`` 48 counts the warm-up steps too: ``round(48 * 160 / ((20 + 10) * 32)) =
8``); Adam lr 1e-3 (eps 1e-3), gradient norm 10, target
copied every 100 updates, learning from 2,000 steps, epsilon 1 -> 0.01 by 10k steps; R2D1's
prioritized replay and input priorities with rlpyt's defaults; 100k env steps, evaluation of
10 episodes every 5k steps.
"""

from typing import Any

import gymnasium
import numpy as np

from rlpyt.envs.gym import GymEnvWrapper

configs: dict[str, dict[str, Any]] = dict()


class HideVelocity(gymnasium.ObservationWrapper):
    """CartPole observation without the two velocities: ``[x, theta]`` (float32)."""

    def __init__(self, env: gymnasium.Env):
        super().__init__(env)
        space = env.observation_space
        if not isinstance(space, gymnasium.spaces.Box):
            raise TypeError(f"HideVelocity needs a Box observation space, got {space}.")
        high = np.asarray(space.high)[[0, 2]]
        self.observation_space = gymnasium.spaces.Box(-high, high, dtype=np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        """Keep entries 0 (cart position) and 2 (pole angle)."""
        return observation[[0, 2]]


def make_cartpole_without_velocity(id: str = "CartPole-v1", **kwargs: Any) -> GymEnvWrapper:  # noqa: A002
    """``gymnasium.make(id, **kwargs)`` observing ``[x, theta]`` only, wrapped for rlpyt."""
    return GymEnvWrapper(HideVelocity(gymnasium.make(id, **kwargs)))


config: dict[str, Any] = dict(
    agent=dict(eps_final=0.01),
    algo=dict(
        discount=0.99,
        batch_T=20,
        batch_B=32,
        warmup_T=10,
        store_rnn_state_interval=10,
        n_step_return=3,
        replay_size=50_000,
        replay_ratio=48,
        min_steps_learn=2000,
        eps_steps=10_000,
        target_update_interval=100,
        learning_rate=1e-3,
        clip_grad_norm=10.0,
    ),
    env=dict(id="CartPole-v1"),
    eval_env=dict(id="CartPole-v1"),
    model=dict(hidden_sizes=[64], lstm_size=64, head_size=64),
    optim=dict(),
    runner=dict(n_steps=100_000, log_interval_steps=5000),
    # 10 evaluation episodes: 5 envs x at most 2 full 500-step episodes each.
    sampler=dict(
        batch_T=20,
        batch_B=8,
        max_decorrelation_steps=0,
        eval_n_envs=5,
        eval_max_steps=5000,
        eval_max_trajectories=10,
    ),
)
configs["r2d1"] = config
