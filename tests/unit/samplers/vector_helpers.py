"""A reference vector env for the vector-collector tests: B per-env envs stepped in a loop.

``ListVecEnv`` gives the semantics of ``rlpyt.envs.vector`` with the plainest code (no speed),
over per-env rlpyt envs, so the vector collectors can be checked against the per-env
collectors on the very same envs. ``next_step=True`` imitates a NEXT_STEP autoreset backend;
``subset=False`` one that cannot reset a subset. Importable by name for spawn workers.
"""

from collections import namedtuple

import numpy as np

from rlpyt.envs.base import Env, EnvStep
from rlpyt.envs.gym import make as gym_make
from rlpyt.envs.vector import VecEnv, VecEnvStep, vector_env_maker
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.int_box import IntBox
from rlpyt.utils.buffer import buffer_func


class ListVecEnv(VecEnv):
    def __init__(self, envs, next_step=False, subset=True):
        self.envs = envs
        self.num_envs = len(envs)
        self._action_space = envs[0].action_space
        self._observation_space = envs[0].observation_space
        self._horizon = envs[0].horizon
        self.next_step_reset = next_step
        self.can_reset_subset = subset
        self._pending = np.zeros(self.num_envs, dtype=bool)
        self._obs = None

    def seed(self, seed=None):
        for b, env in enumerate(self.envs):
            env.seed(None if seed is None else seed + b)

    def reset(self, *, observation=None):
        self._obs = _stack([env.reset() for env in self.envs])
        self._pending[:] = False
        return _into(observation, self._obs)

    def reset_envs(self, mask, *, observation=None):
        if not self.can_reset_subset:
            return super().reset_envs(mask, observation=observation)
        for b in np.flatnonzero(mask):
            self._obs[b] = self.envs[b].reset()
        return _into(observation, self._obs)

    def step(self, action, *, observation=None, reward=None, done=None):
        B = self.num_envs
        rewards = np.zeros(B, dtype=np.float32)
        dones = np.zeros(B, dtype=bool)
        infos = [None] * B
        final = None
        stepped = np.ones(B, dtype=bool) if self.next_step_reset else None
        pending = self._pending.copy()
        self._pending[:] = False
        for b, env in enumerate(self.envs):
            if pending[b]:
                self._obs[b] = env.reset()
                stepped[b] = False
                infos[b] = None
                continue
            o, r, d, info = env.step(action[b])
            infos[b] = info
            rewards[b], dones[b] = r, d
            ended = info.traj_done if "traj_done" in info._fields else d
            if ended:
                if final is None:
                    final = buffer_func(self._obs, np.copy)
                final[b] = o
                if self.autoreset and not self.next_step_reset:
                    o = env.reset()
                elif self.autoreset:
                    self._pending[b] = True
            self._obs[b] = o
        template = next(i for i in infos if i is not None)
        infos = [
            template._make(np.zeros_like(v) for v in template) if i is None else i for i in infos
        ]
        env_info = template._make(np.array([i[k] for i in infos]) for k in range(len(template)))
        if reward is not None:
            reward[:] = rewards
            rewards = reward
        if done is not None:
            done[:] = dones
            dones = done
        return VecEnvStep(_into(observation, self._obs), rewards, dones, env_info, final, stepped)


def _stack(values):
    return np.stack([np.asarray(v) for v in values])


def _into(out, value):
    if out is None:
        return buffer_func(value, np.copy)
    out[:] = value
    return out


@vector_env_maker
def list_vec_make(num_envs=1, next_step=False, subset=True, **env_kwargs):
    """``num_envs`` ``rlpyt.envs.gym.make(**env_kwargs)`` envs as one ListVecEnv."""
    return ListVecEnv([gym_make(**env_kwargs) for _ in range(num_envs)], next_step, subset)


class CountEnv(Env):
    """Observation ``[t] * 4`` (float32), reward 1; only a time limit ends an episode."""

    def __init__(self, horizon=5):
        self._action_space = IntBox(0, 2)
        self._observation_space = FloatBox(-1e3, 1e3, shape=(4,))
        self._horizon = horizon
        self._t = 0

    def reset(self):
        self._t = 0
        return np.full(4, self._t, dtype=np.float32)

    def step(self, action):
        self._t += 1
        timeout = self._t >= self._horizon
        return EnvStep(
            np.full(4, self._t, dtype=np.float32), np.float32(1), timeout, CountInfo(timeout)
        )


CountInfo = namedtuple("CountInfo", ["timeout"])


@vector_env_maker
def count_vec_make(num_envs=1, horizon=5):
    """``num_envs`` CountEnvs as one ListVecEnv."""
    return ListVecEnv([CountEnv(horizon) for _ in range(num_envs)])
