"""TrajInfoBatch against per-env TrajInfo objects stepped by a naive loop."""

import numpy as np

from rlpyt.envs.atari.atari_env import AtariTrajInfo, EnvInfo
from rlpyt.envs.traj_info import TrajInfo, TrajInfoFactory
from rlpyt.samplers.vector import TrajInfoBatch


class CountingTrajInfo(TrajInfo):
    """Overrides step (so TrajInfoBatch must step objects) and terminate."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.Actions = 0

    def step(self, observation, action, reward, done, agent_info, env_info):
        super().step(observation, action, reward, done, agent_info, env_info)
        self.Actions += int(action)

    def terminate(self, observation):
        self.Last = float(observation[0])
        return self


def naive_and_batch(TrajInfoCls, n_steps=40, B=5, seed=0):  # noqa: N803
    rng = np.random.default_rng(seed)
    batch = TrajInfoBatch(TrajInfoCls, B)
    objects = [TrajInfoCls() for _ in range(B)]
    got, want = [], []
    for _ in range(n_steps):
        reward = rng.choice([0.0, 1.0, -0.5, 0.3], size=B).astype(np.float32)
        action = rng.integers(0, 3, size=B)
        obs = rng.standard_normal((B, 2)).astype(np.float32)
        rows = rng.random(B) < 0.8
        done = rng.random(B) < 0.15
        batch.step(obs, action, reward, done, None, None, rows)
        for b in np.flatnonzero(rows):
            objects[b].step(obs[b], action[b], reward[b], bool(done[b]), None, None)
        ended = np.flatnonzero(done & rows).tolist()
        got.extend(batch.finish(ended, obs))
        for b in ended:
            want.append(objects[b].terminate(obs[b]))
            objects[b] = TrajInfoCls()
    return got, want, batch, objects


def test_sums_equal_the_per_env_traj_infos_with_a_discount():
    got, want, batch, objects = naive_and_batch(TrajInfoFactory(TrajInfo, discount=0.9))
    assert batch.vectorized and len(want) > 5
    assert [dict(t) for t in got] == [dict(t) for t in want]
    assert all(type(t) is TrajInfo for t in got)
    assert [dict(batch[b]) for b in range(len(objects))] == [dict(o) for o in objects]


def test_traj_info_classes_that_override_step_are_stepped_per_env():
    got, want, batch, _ = naive_and_batch(CountingTrajInfo)
    assert not batch.vectorized and len(want) > 5
    assert [dict(t) for t in got] == [dict(t) for t in want]
    assert any(t["Actions"] > 0 for t in got)


def test_setitem_and_reset_rows_start_envs_afresh():
    batch = TrajInfoBatch(TrajInfo, 3)
    batch.step(None, np.zeros(3), np.ones(3, np.float32), np.zeros(3, bool), None, None, None)
    batch[1] = TrajInfo()
    batch.reset_rows(np.array([True, False, False]))
    assert [batch[b]["Length"] for b in range(3)] == [0, 0, 1]


def test_atari_traj_info_game_score_is_summed_in_batch():
    rng = np.random.default_rng(1)
    B = 4
    batch = TrajInfoBatch(AtariTrajInfo, B)
    objects = [AtariTrajInfo() for _ in range(B)]
    got, want = [], []
    for _ in range(30):
        score = rng.choice([0.0, 1.0, -1.0, 7.0], size=B).astype(np.float32)
        reward = np.sign(score)
        done = rng.random(B) < 0.2
        rows = rng.random(B) < 0.9
        info = EnvInfo(game_score=score, traj_done=done, timeout=np.zeros(B, bool))
        batch.step(None, np.zeros(B), reward, done, None, info, rows)
        for b in np.flatnonzero(rows):
            row = EnvInfo(score[b], done[b], False)
            objects[b].step(None, 0, reward[b], bool(done[b]), None, row)
        ended = np.flatnonzero(done & rows).tolist()
        got.extend(batch.finish(ended, np.zeros((B, 1))))
        for b in ended:
            want.append(objects[b])
            objects[b] = AtariTrajInfo()
    assert batch.vectorized and len(want) > 3
    assert [dict(t) for t in got] == [dict(t) for t in want]
    assert any(t["GameScore"] != t["Return"] for t in got)
