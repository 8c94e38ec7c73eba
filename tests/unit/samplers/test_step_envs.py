"""The per-env stepping loop's shortcuts: traj_done lookup and agent_info rows for TrajInfos."""

from collections import namedtuple

import numpy as np
import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.envs.gym import make as gym_make
from rlpyt.envs.traj_info import TrajInfo
from rlpyt.samplers.episode import agent_info_rows, trajectory_ended
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
