"""The one PG agent skeleton: rlpyt's agent classes, their default models, keywords and modes."""

import inspect

import pytest

from rlpyt.agents.base import BaseAgent
from rlpyt.agents.pg.atari import AlternatingAtariLstmAgent, AtariFfAgent, AtariLstmAgent
from rlpyt.agents.pg.base import PgAgent, RecurrentPgAgent
from rlpyt.agents.pg.categorical import (
    AlternatingRecurrentCategoricalPgAgent,
    CategoricalPgAgent,
    RecurrentCategoricalPgAgent,
)
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.agents.pg.gaussian import (
    AlternatingRecurrentGaussianPgAgent,
    GaussianPgAgent,
    RecurrentGaussianPgAgent,
)
from rlpyt.agents.pg.mujoco import AlternatingMujocoLstmAgent, MujocoFfAgent, MujocoLstmAgent
from rlpyt.models.pg.atari_ff_model import AtariFfModel
from rlpyt.models.pg.atari_lstm_model import AtariLstmModel
from rlpyt.models.pg.classic_model import ClassicFfModel, ClassicLstmModel
from rlpyt.models.pg.mujoco_ff_model import MujocoFfModel
from rlpyt.models.pg.mujoco_lstm_model import MujocoLstmModel
from tests.unit.agents.agent_helpers import atari_spaces, classic_spaces, mujoco_spaces

# (agent class, rlpyt's default model class, env spaces, base class, recurrent, alternating)
ENV_FAMILY_AGENTS = [
    (AtariFfAgent, AtariFfModel, atari_spaces, CategoricalPgAgent, False, False),
    (AtariLstmAgent, AtariLstmModel, atari_spaces, RecurrentCategoricalPgAgent, True, False),
    (
        AlternatingAtariLstmAgent,
        AtariLstmModel,
        atari_spaces,
        AlternatingRecurrentCategoricalPgAgent,
        True,
        True,
    ),
    (MujocoFfAgent, MujocoFfModel, mujoco_spaces, GaussianPgAgent, False, False),
    (MujocoLstmAgent, MujocoLstmModel, mujoco_spaces, RecurrentGaussianPgAgent, True, False),
    (
        AlternatingMujocoLstmAgent,
        MujocoLstmModel,
        mujoco_spaces,
        AlternatingRecurrentGaussianPgAgent,
        True,
        True,
    ),
    (ClassicFfAgent, ClassicFfModel, classic_spaces, CategoricalPgAgent, False, False),
    (ClassicLstmAgent, ClassicLstmModel, classic_spaces, RecurrentCategoricalPgAgent, True, False),
]
# rlpyt's distribution-level agents have no default model: the script passes ModelCls.
DISTRIBUTION_AGENTS = [
    CategoricalPgAgent,
    RecurrentCategoricalPgAgent,
    AlternatingRecurrentCategoricalPgAgent,
    GaussianPgAgent,
    RecurrentGaussianPgAgent,
    AlternatingRecurrentGaussianPgAgent,
]
ALL_AGENTS = [row[0] for row in ENV_FAMILY_AGENTS] + DISTRIBUTION_AGENTS
BASE_KEYWORDS = ["ModelCls", "model_kwargs", "initial_model_state_dict"]


@pytest.mark.parametrize(
    "AgentCls, ModelCls, spaces",
    [row[:3] for row in ENV_FAMILY_AGENTS],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_default_model_is_rlpyts_and_model_cls_overrides_it(AgentCls, ModelCls, spaces):  # noqa: N803
    agent = AgentCls()
    assert AgentCls.default_model_cls is ModelCls and agent.ModelCls is ModelCls
    agent.initialize(spaces())
    assert type(agent.model) is ModelCls

    class OtherModel(ModelCls):
        pass

    agent = AgentCls(ModelCls=OtherModel)
    assert agent.ModelCls is OtherModel
    agent.initialize(spaces())
    assert type(agent.model) is OtherModel


@pytest.mark.parametrize("AgentCls", DISTRIBUTION_AGENTS, ids=lambda c: c.__name__)
def test_distribution_agents_have_no_default_model(AgentCls):  # noqa: N803
    agent = AgentCls()
    assert AgentCls.default_model_cls is None and agent.ModelCls is None
    with pytest.raises(ValueError, match="ModelCls"):
        agent.initialize(
            classic_spaces() if "Categorical" in AgentCls.__name__ else mujoco_spaces()
        )


@pytest.mark.parametrize("AgentCls", ALL_AGENTS, ids=lambda c: c.__name__)
def test_constructor_shows_rlpyts_keywords(AgentCls):  # noqa: N803
    params = inspect.signature(AgentCls).parameters
    assert list(params) == BASE_KEYWORDS
    assert all(p.default is None for p in params.values())
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params.values())
    with pytest.raises(TypeError):
        AgentCls(ModelClass=None)


@pytest.mark.parametrize(
    "AgentCls, base, recurrent, alternating",
    [(row[0], *row[3:]) for row in ENV_FAMILY_AGENTS],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_env_family_agents_keep_rlpyts_class_tree(AgentCls, base, recurrent, alternating):  # noqa: N803
    assert issubclass(AgentCls, base) and issubclass(AgentCls, BaseAgent)
    assert issubclass(AgentCls, RecurrentPgAgent if recurrent else PgAgent)
    assert (AgentCls.recurrent, AgentCls.alternating) == (recurrent, alternating)


@pytest.mark.parametrize("AgentCls", [ClassicFfAgent, ClassicLstmAgent], ids=lambda c: c.__name__)
def test_mode_follows_the_mode_switches(AgentCls):  # noqa: N803
    agent = AgentCls()
    assert agent.mode is None
    agent.initialize(classic_spaces())
    assert agent.mode is None
    for switch, mode in [
        (agent.sample_mode, "sample"),
        (agent.train_mode, "train"),
        (agent.eval_mode, "eval"),
        (agent.sample_mode, "sample"),
    ]:
        switch(3)
        assert agent.mode == mode
        assert agent.model.training == (mode == "train")
    with pytest.raises(AttributeError):
        agent.mode = "train"


def test_alternating_agent_mode_follows_the_mode_switches():
    agent = AlternatingAtariLstmAgent()
    agent.initialize(atari_spaces())
    for switch, mode in [(agent.eval_mode, "eval"), (agent.sample_mode, "sample")]:
        switch(0)
        assert agent.mode == mode


def test_recurrent_state_is_per_instance():
    first, second = AlternatingAtariLstmAgent(), AlternatingAtariLstmAgent()
    first.prev_rnn_state = "state of the first agent"
    assert second.prev_rnn_state is None
    assert first._prev_rnn_state_pair is not second._prev_rnn_state_pair


def test_rlpyt_import_paths_of_moved_and_kept_names():
    from rlpyt.agents import base, recurrent
    from rlpyt.agents.pg.categorical import RecurrentCategoricalPgAgentBase
    from rlpyt.agents.pg.classic import ClassicMixin
    from rlpyt.agents.pg.gaussian import RecurrentGaussianPgAgentBase
    from rlpyt.agents.pg.mujoco import MujocoMixin

    for name in ["RecurrentAgentMixin", "AlternatingRecurrentAgentMixin", "recorded_rnn_state"]:
        assert getattr(base, name) is getattr(recurrent, name)
    # rlpyt's recipe for a recurrent agent: an env mixin, a state mixin and the *Base class.
    for EnvMixin, Base, ModelCls, spaces in [  # noqa: N806
        (ClassicMixin, RecurrentCategoricalPgAgentBase, ClassicLstmModel, classic_spaces),
        (MujocoMixin, RecurrentGaussianPgAgentBase, MujocoLstmModel, mujoco_spaces),
    ]:
        Agent = type("Agent", (EnvMixin, base.RecurrentAgentMixin, Base), {})  # noqa: N806
        agent = Agent(ModelCls=ModelCls)
        agent.initialize(spaces())
        assert agent.recurrent and isinstance(agent, RecurrentPgAgent)
