"""Agents check their action space at initialize.

Without the check, a categorical agent given a MultiDiscrete action space fails inside numpy
(``int()`` of the array ``n``), given a Box with an AttributeError (``n``), and a Gaussian agent
given a Discrete space says only "1-D action space, got shape ()".
"""

import gymnasium.spaces as gym_spaces
import pytest

from rlpyt.agents.pg.atari import AtariFfAgent
from rlpyt.agents.pg.categorical import CategoricalPgAgent, RecurrentCategoricalPgAgent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.agents.pg.gaussian import GaussianPgAgent
from rlpyt.agents.pg.mujoco import MujocoFfAgent, MujocoLstmAgent
from rlpyt.envs.base import EnvSpaces
from rlpyt.envs.gym import make as gym_make
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.gym_wrapper import GymSpaceWrapper
from rlpyt.spaces.int_box import IntBox

OBS = GymSpaceWrapper(gym_spaces.Box(-1, 1, (4,)))
CATEGORICAL = [ClassicFfAgent, ClassicLstmAgent]
GAUSSIAN = [MujocoFfAgent, MujocoLstmAgent]


def spaces(action_space):
    return EnvSpaces(OBS, GymSpaceWrapper(action_space, name="act"))


@pytest.mark.parametrize("AgentCls", CATEGORICAL)
@pytest.mark.parametrize(
    ("action_space", "shown"),
    [
        (gym_spaces.MultiDiscrete([3, 4]), "MultiDiscrete([3 4])"),
        (gym_spaces.Box(-1, 1, (2,)), "Box(-1.0, 1.0, (2,), float32)"),
        (gym_spaces.MultiBinary(3), "MultiBinary(3)"),
    ],
)
def test_categorical_agent_refuses_a_non_discrete_action_space(AgentCls, action_space, shown):
    with pytest.raises(ValueError) as info:
        AgentCls().initialize(spaces(action_space))
    assert str(info.value).startswith(
        f"{AgentCls.__name__}: this agent needs a Discrete action space; the env has {shown}."
    )


def test_categorical_agent_refuses_a_discrete_space_not_starting_at_zero():
    with pytest.raises(
        ValueError,
        match=r"needs a Discrete \(start=0\) action space; the env "
        r"has Discrete\(3, start=1\)",
    ):
        ClassicFfAgent().initialize(spaces(gym_spaces.Discrete(3, start=1)))


@pytest.mark.parametrize("AgentCls", GAUSSIAN)
@pytest.mark.parametrize(
    ("action_space", "shown"),
    [
        (gym_spaces.Discrete(2), "Discrete(2)"),
        (gym_spaces.MultiDiscrete([3, 4]), "MultiDiscrete([3 4])"),
    ],
)
def test_gaussian_agent_refuses_a_discrete_action_space(AgentCls, action_space, shown):
    with pytest.raises(ValueError) as info:
        AgentCls().initialize(spaces(action_space))
    assert str(info.value) == (
        f"{AgentCls.__name__}: this agent needs a continuous (Box) action space; the env has "
        f"{shown}. Use a categorical agent for discrete actions."
    )


def test_rlpyt_spaces_are_checked_and_named_too():
    obs = FloatBox(-1, 1, shape=(4,))
    with pytest.raises(
        ValueError,
        match=r"GaussianPgAgent: this agent needs a continuous \(Box\) "
        r"action space; the env has IntBox\(low=0, high=2",
    ):
        GaussianPgAgent(ModelCls=object).initialize(EnvSpaces(obs, IntBox(0, 2)))
    with pytest.raises(
        ValueError,
        match=r"CategoricalPgAgent: this agent needs a Discrete action "
        r"space; the env has FloatBox",
    ):
        CategoricalPgAgent(ModelCls=object).initialize(EnvSpaces(obs, FloatBox(-1, 1, (2,))))
    with pytest.raises(
        ValueError,
        match=r"RecurrentCategoricalPgAgent: this agent needs a "
        r"Discrete action space; the env has IntBox\(low=0, high=3, shape=\(2,\)",
    ):
        RecurrentCategoricalPgAgent(ModelCls=object).initialize(
            EnvSpaces(obs, IntBox(0, 3, shape=(2,)))
        )


def test_matching_spaces_still_initialize():
    ClassicFfAgent().initialize(spaces(gym_spaces.Discrete(3)))
    MujocoFfAgent().initialize(spaces(gym_spaces.Box(-2, 2, (3,))))
    AtariFfAgent().initialize(
        EnvSpaces(IntBox(0, 256, shape=(4, 84, 84), dtype="uint8"), IntBox(0, 6))
    )


@pytest.mark.parametrize("SamplerCls", [SerialSampler, CpuSampler])
def test_a_sampler_reports_the_space_mismatch_before_any_worker_starts(SamplerCls):
    sampler = SamplerCls(EnvCls=gym_make, env_kwargs=dict(id="Pendulum-v1"), batch_T=4, batch_B=2)
    try:
        with pytest.raises(
            ValueError,
            match=r"ClassicFfAgent: this agent needs a Discrete action "
            r"space; the env has Box\(-2.0, 2.0, \(1,\), float32\)",
        ):
            sampler.initialize(ClassicFfAgent(), affinity=dict(workers_cpus=[0]), seed=0)
        assert getattr(sampler, "workers", None) is None
    finally:
        sampler.shutdown()
