"""The seams at run time: every concrete component is an instance of its Protocol.

``tests/typing_seams.py`` checks the same pairs statically (mypy compares signatures too).
"""

import pytest

from rlpyt.agents.dqn.atari.atari_catdqn_agent import AtariCatDqnAgent
from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.agents.dqn.classic import ClassicCatDqnAgent, ClassicDqnAgent
from rlpyt.agents.pg.atari import AlternatingAtariLstmAgent, AtariFfAgent, AtariLstmAgent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.agents.pg.mujoco import AlternatingMujocoLstmAgent, MujocoFfAgent, MujocoLstmAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.protocols import Agent, Algorithm, Runner, Sampler
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlEval
from rlpyt.samplers.serial.sampler import SerialSampler

AGENTS = [
    AtariFfAgent,
    AtariLstmAgent,
    AlternatingAtariLstmAgent,
    MujocoFfAgent,
    MujocoLstmAgent,
    AlternatingMujocoLstmAgent,
    ClassicFfAgent,
    ClassicLstmAgent,
    AtariDqnAgent,
    AtariCatDqnAgent,
    ClassicDqnAgent,
    ClassicCatDqnAgent,
]


@pytest.mark.parametrize("AgentCls", AGENTS, ids=lambda cls: cls.__name__)
def test_agents_are_agents(AgentCls):
    assert isinstance(AgentCls(), Agent)


@pytest.mark.parametrize("AlgoCls", [A2C, PPO], ids=lambda cls: cls.__name__)
def test_algorithms_are_algorithms(AlgoCls):
    assert isinstance(AlgoCls(), Algorithm)


@pytest.mark.parametrize("RunnerCls", [MinibatchRl, MinibatchRlEval])
def test_runners_are_runners(RunnerCls):
    sampler = SerialSampler(gym_make, dict(id="CartPole-v1"), batch_T=2, batch_B=1)
    runner = RunnerCls(algo=A2C(), agent=ClassicFfAgent(), sampler=sampler, n_steps=10)
    assert isinstance(sampler, Sampler)
    assert isinstance(runner, Runner)


def test_an_object_missing_a_seam_method_is_not_an_agent():
    class NotAnAgent:
        recurrent = alternating = False

    assert not isinstance(NotAnAgent(), Agent)
