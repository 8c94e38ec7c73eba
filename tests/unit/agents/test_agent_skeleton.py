"""The one agent skeleton: BaseAgent builds, saves, loads and updates every declared model.

DQN-family and QPG agents only declare their models (``model_names``, ``target_sources``,
``state_dict_keys``); these tests prove the base does the rest for any agent that declares
them, and that the declarations keep rlpyt's attribute names and state-dict keys.
"""

import pytest
import torch

from rlpyt.agents.base import check_discrete_action_space
from rlpyt.agents.dqn.classic import ClassicCatDqnAgent, ClassicDqnAgent, ClassicR2d1Agent
from rlpyt.agents.pg import categorical
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.agents.qpg.sac_v_agent import SacAgent as SacVAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from tests.unit.agents.agent_helpers import (
    classic_spaces,
    continuous_inputs,
    discrete_inputs,
    mujoco_spaces,
)

SMALL_QPG = dict(model_kwargs=dict(hidden_sizes=[8]), q_model_kwargs=dict(hidden_sizes=[8]))


class TargetedFfAgent(ClassicFfAgent):
    """A policy-gradient agent that only declares a target copy (no code of its own)."""

    model_names = ("model", "slow_model")
    target_sources = {"slow_model": "model"}
    state_dict_keys = {"slow_model": "slow"}


def perturb(module, scale=0.5):
    with torch.no_grad():
        for p in module.parameters():
            p.add_(scale * torch.randn_like(p))


def test_check_discrete_action_space_lives_in_the_base_and_keeps_its_old_path():
    assert categorical.check_discrete_action_space is check_discrete_action_space
    with pytest.raises(ValueError, match="MyAgent: this agent needs a Discrete action space"):
        check_discrete_action_space(mujoco_spaces().action, "MyAgent")


def test_a_declared_target_is_built_saved_loaded_and_polyak_updated_by_the_base():
    agent = TargetedFfAgent(model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(classic_spaces())
    assert type(agent.slow_model) is type(agent.model) and agent.slow_model is not agent.model
    assert not agent.slow_model.training  # targets only evaluate
    assert list(agent.state_dict()) == ["model", "slow"]
    perturb(agent.model)
    source = {k: v.clone() for k, v in agent.model.state_dict().items()}
    before = {k: v.clone() for k, v in agent.slow_model.state_dict().items()}
    agent.update_target(tau=0.3)
    for key, value in agent.slow_model.state_dict().items():
        torch.testing.assert_close(value, 0.3 * source[key] + 0.7 * before[key])
    assert [p for p in agent.parameters()] == list(agent.model.parameters())
    agent.train_mode(1)
    assert agent.model.training and not agent.slow_model.training
    fresh = TargetedFfAgent(model_kwargs=dict(hidden_sizes=[8]))
    fresh.initialize(classic_spaces())
    fresh.load_state_dict(agent.state_dict())
    for key, value in fresh.slow_model.state_dict().items():
        assert torch.equal(value, agent.slow_model.state_dict()[key])


def test_agents_without_targets_treat_update_target_as_a_no_op():
    agent = ClassicFfAgent(model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(classic_spaces())
    before = {k: v.clone() for k, v in agent.model.state_dict().items()}
    agent.update_target(0.5)
    assert all(torch.equal(v, before[k]) for k, v in agent.model.state_dict().items())


@pytest.mark.parametrize("AgentCls", [ClassicDqnAgent, ClassicCatDqnAgent, ClassicR2d1Agent])
def test_dqn_family_keeps_rlpyts_names_and_refuses_unknown_entries(AgentCls):
    agent = AgentCls(model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(classic_spaces())
    assert list(agent.state_dict()) == ["model", "target"]
    assert isinstance(agent.target_model, type(agent.model))
    assert not agent.target_model.training
    with pytest.raises(ValueError, match=r"unknown entries \['q_model'\]"):
        agent.load_state_dict(dict(agent.state_dict(), q_model={}))


def test_dqn_initial_state_dict_restores_the_model_and_its_own_target():
    source = ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[8]))
    source.initialize(classic_spaces())
    perturb(source.model)  # model and target differ now
    agent = ClassicDqnAgent(
        model_kwargs=dict(hidden_sizes=[8]), initial_model_state_dict=source.state_dict()
    )
    agent.initialize(classic_spaces())
    inputs = discrete_inputs(classic_spaces(), (4,))
    torch.testing.assert_close(agent.target(*inputs), source.target(*inputs))
    torch.testing.assert_close(agent(*inputs), source(*inputs))
    assert not torch.allclose(agent(*inputs), agent.target(*inputs))


@pytest.mark.parametrize(
    ("AgentCls", "names"),
    [(Td3Agent, ("q_model", "q2_model")), (SacAgent, ("q1_model", "q2_model"))],
)
def test_twin_q_is_the_two_named_q_models_on_the_same_inputs(AgentCls, names):
    agent = AgentCls(**SMALL_QPG)
    agent.initialize(mujoco_spaces())
    perturb(getattr(agent, names[1]))  # the two Qs differ
    observation, prev_action, prev_reward = continuous_inputs(mujoco_spaces(), (5,))
    action = torch.rand(5, 2)
    q1, q2 = agent.q(observation, prev_action, prev_reward, action)
    want1 = getattr(agent, names[0])(observation, prev_action, prev_reward, action)
    want2 = getattr(agent, names[1])(observation, prev_action, prev_reward, action)
    assert torch.equal(q1, want1) and torch.equal(q2, want2) and not torch.equal(q1, q2)


@pytest.mark.parametrize(
    ("AgentCls", "keys"),
    [
        (DdpgAgent, ["model", "q_model", "target_model", "target_q_model"]),
        (SacVAgent, ["model", "q1_model", "q2_model", "v_model", "target_v_model"]),
    ],
)
def test_qpg_state_dict_keys_are_rlpyts_attribute_names(AgentCls, keys):
    kwargs = dict(SMALL_QPG)
    if AgentCls is SacVAgent:
        kwargs["v_model_kwargs"] = dict(hidden_sizes=[8])
    agent = AgentCls(**kwargs)
    agent.initialize(mujoco_spaces())
    assert list(agent.state_dict()) == keys
    assert all(isinstance(getattr(agent, key), torch.nn.Module) for key in keys)


def test_sync_copies_only_the_model_into_shared_memory():
    agent = ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(classic_spaces(), share_memory=True)
    agent.separate_optim_model()  # the trained model is apart from the shared one now
    perturb(agent.model)
    agent.sync_shared_memory()
    for key, value in agent.shared_model.state_dict().items():
        assert torch.equal(value, agent.model.state_dict()[key])
