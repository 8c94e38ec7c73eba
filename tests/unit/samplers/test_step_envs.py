"""The per-env stepping loop's shortcuts: traj_done lookup and agent_info rows for TrajInfos."""

from collections import namedtuple

import numpy as np
import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.envs.gym import make as gym_make
from rlpyt.envs.traj_info import TrajInfo
from rlpyt.samplers.episode import (
    EpisodeStepper,
    agent_info_rows,
    has_traj_done,
    trajectory_ended,
)
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.collections import NamedTupleSchema

AtariLike = namedtuple("AtariLike", ["game_score", "traj_done"])


def test_trajectory_ended_reads_traj_done_only_where_the_record_has_it():
    schema_info = NamedTupleSchema("EnvInfo", ["timeout"])(True)
    assert trajectory_ended(schema_info, False) is False  # no traj_done: done decides
    assert trajectory_ended(schema_info, True) is True
    assert trajectory_ended(None, True) is True
    # A lost life: done, but the game (trajectory) goes on; and the game's end.
    assert trajectory_ended(AtariLike(0.0, False), True) is False
    assert trajectory_ended(AtariLike(0.0, True), True) is True


class RecordingTrajInfo(TrajInfo):
    """Keeps the agent_info rows it is given (a subclass that reads them)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._values = []

    def step(self, observation, action, reward, done, agent_info, env_info):
        super().step(observation, action, reward, done, agent_info, env_info)
        self._values.append(float(agent_info.value))


def test_agent_info_rows_only_for_trajinfos_that_override_step():
    agent_info = (np.zeros(3), np.ones(3))
    assert agent_info_rows([TrajInfo(), TrajInfo()], agent_info) is None
    assert agent_info_rows([RecordingTrajInfo()], agent_info) is agent_info
    assert agent_info_rows([], agent_info) is None


@pytest.mark.parametrize("collector", ["reset", "wait"])
def test_overriding_trajinfo_receives_each_envs_own_agent_info_row(collector):
    from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector, CpuWaitResetCollector

    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=40,
        batch_B=3,
        TrajInfoCls=RecordingTrajInfo,
        CollectorCls=CpuResetCollector if collector == "reset" else CpuWaitResetCollector,
        max_decorrelation_steps=0,
    )
    sampler.initialize(ClassicFfAgent(), seed=1)
    samples, completed = sampler.obtain_samples(0)
    assert completed, "CartPole episodes under a random-ish policy end within 40 steps"
    value = samples.agent.agent_info.value.numpy()  # [T, B]
    done = samples.env.done.numpy()
    for traj in completed:
        n = len(traj._values)
        assert n == traj.Length
        # Each completed trajectory's values are one env column's values, in time order.
        matches = [
            b
            for b in range(3)
            for t_end in np.flatnonzero(done[:, b])
            if t_end + 1 >= n and np.allclose(value[t_end + 1 - n : t_end + 1, b], traj._values)
        ]
        assert matches, f"rows of {traj._values[:3]}... not found in any env's column"
    sampler.shutdown()


def test_has_traj_done_is_asked_of_the_record_type():
    assert not has_traj_done(NamedTupleSchema("EnvInfo", ["timeout"])(True))
    assert not has_traj_done(None)
    assert has_traj_done(AtariLike(0.0, False))


class LivesEnv:
    """Loses a life (done, not traj_done) every 2 steps; the game ends at the 3rd life lost."""

    def __init__(self):
        self.t, self.resets = 0, 0

    def reset(self):
        self.t, self.resets = 0, self.resets + 1
        return np.zeros(1, dtype=np.float32)

    def step(self, action):
        self.t += 1
        life_lost, game_over = self.t % 2 == 0, self.t >= 6
        return np.full(1, self.t, np.float32), 1.0, life_lost, AtariLike(1.0, game_over)


class Stepper(EpisodeStepper):
    def __init__(self, envs):
        self.envs, self.TrajInfoCls, self.agent = envs, TrajInfo, None


def test_the_episode_step_ends_trajectories_on_traj_done_not_on_done():
    envs = [LivesEnv(), LivesEnv()]
    stepper = Stepper(envs)
    observation, traj_infos, completed = np.zeros((2, 1), np.float32), [TrajInfo(), TrajInfo()], []
    done, reward = np.zeros(2, bool), np.zeros(2, np.float32)
    dones = []
    for _ in range(7):
        stepper.step_envs(np.zeros(2, int), observation, reward, done, None, traj_infos, completed)
        dones.append(done.copy())
    assert [d[0] for d in dones] == [False, True, False, True, False, True, False]
    assert [t.Length for t in completed] == [6, 6]  # one game each, lives lost inside it
    assert [env.resets for env in envs] == [1, 1]  # reset at the game's end only
    assert observation[0, 0] == 1.0  # the step after the reset
