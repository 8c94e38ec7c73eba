"""Env-kind model keywords by composition, and each agent keyword declared once.

A concrete agent is its family plus ``default_model_cls`` and ``env_model_kwargs_fn`` (one
function per env kind, ``rlpyt.agents.model_keywords``); rlpyt's mixin names set that same
attribute, so a user's ``class MyAgent(AtariMixin, CategoricalPgAgent)`` still works. Every
agent class declares only the keywords it adds or changes.
"""

import inspect

import pytest

from rlpyt.agents.base import BaseAgent
from rlpyt.agents.dqn.atari.atari_catdqn_agent import AtariCatDqnAgent
from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.agents.dqn.atari.atari_r2d1_agent import AtariR2d1Agent, AtariR2d1AlternatingAgent
from rlpyt.agents.dqn.atari.mixin import AtariMixin as DqnAtariMixin
from rlpyt.agents.dqn.classic import (
    ClassicCatDqnAgent,
    ClassicDqnAgent,
    ClassicDqnMixin,
    ClassicR2d1Agent,
    ClassicR2d1AlternatingAgent,
)
from rlpyt.agents.dqn.dqn_agent import DqnAgent
from rlpyt.agents.model_keywords import (
    EnvModelKwargsFn,
    atari_model_kwargs,
    classic_dqn_model_kwargs,
    classic_model_kwargs,
    mujoco_model_kwargs,
)
from rlpyt.agents.pg.atari import AlternatingAtariLstmAgent, AtariFfAgent, AtariLstmAgent
from rlpyt.agents.pg.atari import AtariMixin as PgAtariMixin
from rlpyt.agents.pg.categorical import CategoricalPgAgent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent, ClassicMixin
from rlpyt.agents.pg.gaussian import GaussianPgAgent
from rlpyt.agents.pg.mujoco import (
    AlternatingMujocoLstmAgent,
    MujocoFfAgent,
    MujocoLstmAgent,
    MujocoMixin,
)
from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.agents.qpg.sac_v_agent import SacAgent as SacVAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.models.dqn.atari_dqn_model import AtariDqnModel
from rlpyt.models.dqn.classic_dqn_model import ClassicDqnModel
from rlpyt.models.pg.atari_ff_model import AtariFfModel
from rlpyt.models.pg.mujoco_ff_model import MujocoFfModel
from tests.unit.agents.agent_helpers import (
    IMAGE_SHAPE,
    N_ACTIONS,
    OBS_SHAPE,
    atari_spaces,
    classic_spaces,
    mujoco_spaces,
)
from tests.unit.agents.test_declared_signatures import RECORDED, load

ENV_KIND: dict[EnvModelKwargsFn, list[type[BaseAgent]]] = {
    atari_model_kwargs: [
        AtariFfAgent,
        AtariLstmAgent,
        AlternatingAtariLstmAgent,
        AtariDqnAgent,
        AtariCatDqnAgent,
        AtariR2d1Agent,
        AtariR2d1AlternatingAgent,
    ],
    classic_model_kwargs: [ClassicFfAgent, ClassicLstmAgent],
    classic_dqn_model_kwargs: [
        ClassicDqnAgent,
        ClassicCatDqnAgent,
        ClassicR2d1Agent,
        ClassicR2d1AlternatingAgent,
    ],
    mujoco_model_kwargs: [
        MujocoFfAgent,
        MujocoLstmAgent,
        AlternatingMujocoLstmAgent,
        DdpgAgent,
        Td3Agent,
        SacAgent,
        SacVAgent,
    ],
}
AGENTS = [cls for path in RECORDED if issubclass(cls := load(path), BaseAgent)]


@pytest.mark.parametrize(
    ("function", "AgentCls"),
    [(function, cls) for function, classes in ENV_KIND.items() for cls in classes],
    ids=lambda x: x.__name__,
)
def test_each_concrete_agent_names_its_env_kinds_function(function, AgentCls):  # noqa: N803
    assert AgentCls.env_model_kwargs_fn is function
    assert all(
        not base.__name__.endswith(("AtariMixin", "ClassicMixin", "DqnMixin", "MujocoMixin"))
        for base in AgentCls.__mro__
    )


def test_the_functions_give_each_env_kinds_keywords():
    assert atari_model_kwargs(atari_spaces()) == dict(
        image_shape=IMAGE_SHAPE, output_size=N_ACTIONS
    )
    assert classic_model_kwargs(classic_spaces()) == dict(
        observation_shape=OBS_SHAPE, action_size=N_ACTIONS
    )
    assert classic_dqn_model_kwargs(classic_spaces()) == dict(
        observation_shape=OBS_SHAPE, output_size=N_ACTIONS
    )
    assert mujoco_model_kwargs(mujoco_spaces()) == dict(observation_shape=OBS_SHAPE, action_size=2)
    with pytest.raises(ValueError, match="1-D action space"):
        mujoco_model_kwargs(mujoco_spaces(shape=(2, 2)))


def test_an_agent_without_a_function_gets_no_env_keywords():
    assert CategoricalPgAgent().make_env_to_model_kwargs(classic_spaces()) == {}


@pytest.mark.parametrize(
    ("mixin", "family", "ModelCls", "spaces", "keywords"),
    [
        (PgAtariMixin, CategoricalPgAgent, AtariFfModel, atari_spaces, {"image_shape"}),
        (DqnAtariMixin, DqnAgent, AtariDqnModel, atari_spaces, {"image_shape"}),
        (ClassicMixin, CategoricalPgAgent, None, classic_spaces, {"action_size"}),
        (ClassicDqnMixin, DqnAgent, ClassicDqnModel, classic_spaces, {"output_size"}),
        (MujocoMixin, GaussianPgAgent, MujocoFfModel, mujoco_spaces, {"action_size"}),
    ],
    ids=lambda x: getattr(x, "__name__", None),
)
def test_rlpyts_mixins_still_combine_with_a_family(mixin, family, ModelCls, spaces, keywords):  # noqa: N803
    class MyAgent(mixin, family):
        pass

    assert inspect.signature(MyAgent) == inspect.signature(family)
    env_kwargs = MyAgent().make_env_to_model_kwargs(spaces())
    assert keywords <= set(env_kwargs)
    if ModelCls is not None:
        agent = MyAgent(ModelCls=ModelCls)
        agent.initialize(spaces())
        assert isinstance(agent.model, ModelCls)
        assert agent.env_model_kwargs == env_kwargs


def _parent_field(cls, name):
    for base in cls.__mro__[1:]:
        fields = vars(base).get("__hyperparams__", {})
        if name in fields:
            return fields[name]
    return None


@pytest.mark.parametrize("AgentCls", AGENTS, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_each_keyword_is_declared_once_and_redeclared_only_to_change_it(AgentCls):  # noqa: N803
    for name, field in vars(AgentCls).get("__own_hyperparams__", {}).items():
        parent = _parent_field(AgentCls, name)
        if parent is None:
            assert field.doc and field.type is not None, name  # a new keyword, described
            continue
        changed = (
            field.default is not parent.default or field.valid is not parent.valid or field.after
        )
        assert changed, f"{AgentCls.__name__}.{name} restates its parent's declaration"


@pytest.mark.parametrize("AgentCls", AGENTS, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_the_docstring_table_lists_every_keyword(AgentCls):  # noqa: N803
    doc = inspect.getdoc(AgentCls)
    for name in inspect.signature(AgentCls).parameters:
        assert f"\n    {name} (" in doc, name


def test_epsilon_iterations_are_stored_in_the_shared_array():
    agent = DqnAgent(eps_itr_min=3, eps_itr_max=7)
    assert tuple(agent._eps_itr_bounds) == (3, 7)
    agent.set_epsilon_itr_min_max(4, 9)
    assert (agent.eps_itr_min, agent.eps_itr_max) == (4, 9)
    assert "eps_itr_min" not in vars(agent)  # one value: the shared one


@pytest.mark.parametrize(
    ("AgentCls", "kwargs", "message"),
    [
        (AtariCatDqnAgent, dict(n_atoms=1), "n_atoms=1"),
        (DqnAgent, dict(eps_final_min=0.5), "eps_final_min=0.5"),
        (DqnAgent, dict(eps_init=1.5), "eps_init=1.5"),
        (DqnAgent, dict(eps_itr_min=5, eps_itr_max=3), "eps_itr_max=3"),
        (Td3Agent, dict(target_noise_clip=0), "target_noise_clip=0"),
        (SacAgent, dict(action_squash=0), "action_squash=0"),
        (DdpgAgent, dict(action_std=-1), "action_std=-1"),
    ],
)
def test_out_of_range_keywords_fail_at_construction_by_name(AgentCls, kwargs, message):  # noqa: N803
    with pytest.raises(ValueError, match=message):
        AgentCls(**kwargs)


def test_qpg_model_kwargs_none_give_the_default_network():
    for AgentCls, sizes in [
        (DdpgAgent, [400, 300]),
        (Td3Agent, [400, 300]),
        (SacAgent, [256, 256]),
    ]:  # noqa: N806
        agent = AgentCls()
        assert agent.model_kwargs == agent.q_model_kwargs == {"hidden_sizes": sizes}
    assert SacVAgent().v_model_kwargs == {"hidden_sizes": [256, 256]}
    given = {"hidden_sizes": [8]}
    agent = SacAgent(model_kwargs=given)
    assert agent.model_kwargs == given and agent.model_kwargs is not given
