"""Env records (Dict observations, info records, Atari EnvInfo, buffers) cross into spawn."""

import multiprocessing as mp

import gymnasium
import gymnasium.spaces as gs
import numpy as np

from rlpyt.envs.atari.atari_env import EnvInfo as AtariEnvInfo
from rlpyt.envs.gym import GymEnvWrapper
from rlpyt.utils.buffer import buffer_from_example


class DictInfoEnv(gymnasium.Env):
    observation_space = gs.Dict(
        {"pos": gs.Box(-1, 1, (2,)), "inner": gs.Dict({"k": gs.Discrete(3)})}
    )
    action_space = gs.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action):
        info = {"score": 2.5, "stats": {"hits": 3}}
        return self.observation_space.sample(), 1.0, False, False, info


def describe(record):
    """Field names, typenames and values, recursively, as plain Python data."""
    if hasattr(record, "_fields"):
        typename = getattr(record, "_typename", type(record).__name__)
        return (typename, {f: describe(v) for f, v in zip(record._fields, record, strict=True)})
    return np.asarray(record).tolist()


def child(records, queue):
    queue.put([describe(r) for r in records])


def test_records_pickle_into_spawned_child():
    env = GymEnvWrapper(DictInfoEnv())
    observation = env.reset()
    step = env.step(1)
    obs_buffer = buffer_from_example(observation, (2, 3), fill=0)  # NaN != NaN
    obs_buffer[1, 2] = step.observation
    atari_info = AtariEnvInfo(np.float32(7.0), False, True)
    records = [observation, step.env_info, obs_buffer, atari_info]

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    process = ctx.Process(target=child, args=(records, queue))
    process.start()
    try:
        seen = queue.get(timeout=60)
    finally:
        process.join(timeout=60)
    assert process.exitcode == 0
    assert seen == [describe(r) for r in records]
    assert seen[1][1]["stats"][1] == {"hits": 3} and seen[1][1]["timeout"] is False
    assert seen[3][0] == "EnvInfo"
