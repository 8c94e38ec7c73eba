import pytest
import torch

from rlpyt.agents.base import AgentInputsRnn
from rlpyt.agents.pg.atari import AlternatingAtariLstmAgent, AtariLstmAgent
from rlpyt.agents.pg.base import AgentInfoRnn
from rlpyt.agents.pg.classic import ClassicLstmAgent
from rlpyt.agents.pg.mujoco import AlternatingMujocoLstmAgent, MujocoLstmAgent
from rlpyt.utils.buffer import buffer_from_example, numpify_buffer
from tests.unit.agents.agent_helpers import (
    ACTION_SIZE,
    N_ACTIONS,
    atari_spaces,
    classic_spaces,
    continuous_inputs,
    discrete_inputs,
    mujoco_spaces,
)

H = 8  # lstm size used below
RECURRENT = [
    # Actor and critic LSTMs of H // 2 each: the recorded state is H wide.
    (ClassicLstmAgent, classic_spaces, {"lstm_size": H // 2}, discrete_inputs),
    (AtariLstmAgent, atari_spaces, {"fc_sizes": 16, "lstm_size": H}, discrete_inputs),
    (MujocoLstmAgent, mujoco_spaces, {"hidden_sizes": [16], "lstm_size": H}, continuous_inputs),
]
IDS = ["classic", "atari", "mujoco"]


def _init(AgentCls, spaces, model_kwargs):
    agent = AgentCls(model_kwargs=model_kwargs)
    agent.initialize(spaces())
    agent.sample_mode(0)
    return agent


def _state_equal(a, b):
    return torch.equal(a.h, b.h) and torch.equal(a.c, b.c)


@pytest.fixture(params=RECURRENT, ids=IDS)
def recurrent(request):
    AgentCls, spaces, model_kwargs, inputs = request.param
    agent = _init(AgentCls, spaces, model_kwargs)
    return agent, lambda lead: inputs(spaces(), lead)


def test_step_records_the_previous_state_transposed(recurrent):
    agent, inputs = recurrent
    assert agent.recurrent and agent.prev_rnn_state is None
    B = 3
    first = agent.step(*inputs((B,)))
    assert isinstance(first.agent_info, AgentInfoRnn)
    recorded = first.agent_info.prev_rnn_state
    assert (
        recorded.h.shape == (B, 1, H) and torch.all(recorded.h == 0) and torch.all(recorded.c == 0)
    )
    state_after_first = agent.prev_rnn_state
    assert state_after_first.h.shape == (1, B, H) and not torch.all(state_after_first.h == 0)
    second = agent.step(*inputs((B,)))
    assert torch.equal(second.agent_info.prev_rnn_state.h, state_after_first.h.transpose(0, 1))
    assert torch.equal(second.agent_info.prev_rnn_state.c, state_after_first.c.transpose(0, 1))
    assert not _state_equal(agent.prev_rnn_state, state_after_first)
    assert first.agent_info.value.shape == (B,)


def test_steps_match_the_training_call_over_the_sequence(recurrent):
    agent, inputs = recurrent
    T, B = 4, 2
    observation, prev_action, prev_reward = inputs((T, B))
    values = [agent.step(observation[t], prev_action[t], prev_reward[t]) for t in range(T)]
    dist_info, value, next_state = agent(
        *AgentInputsRnn(observation, prev_action, prev_reward, None)
    )
    assert torch.allclose(torch.stack([s.agent_info.value for s in values]), value, atol=1e-5)
    assert value.requires_grad and next_state.h.shape == (1, B, H)
    assert torch.allclose(next_state.h, agent.prev_rnn_state.h, atol=1e-5)
    # Restarting the call from a recorded state reproduces the later steps.
    init = values[2].agent_info.prev_rnn_state
    init = type(init)(*(x.transpose(0, 1) for x in init))
    _, value_from_2, _ = agent(observation[2:], prev_action[2:], prev_reward[2:], init)
    assert torch.allclose(value_from_2, value[2:], atol=1e-5)


def test_value_does_not_advance_the_state(recurrent):
    agent, inputs = recurrent
    agent.step(*inputs((2,)))
    state = agent.prev_rnn_state
    value = agent.value(*inputs((2,)))
    assert agent.prev_rnn_state is state and value.shape == (2,) and not value.requires_grad


def test_reset_and_reset_one(recurrent):
    agent, inputs = recurrent
    agent.step(*inputs((3,)))
    before = agent.prev_rnn_state.h.clone()
    agent.reset_one(1)
    after = agent.prev_rnn_state
    assert torch.all(after.h[:, 1] == 0) and torch.all(after.c[:, 1] == 0)
    assert torch.equal(after.h[:, [0, 2]], before[:, [0, 2]])
    agent.reset()
    assert agent.prev_rnn_state is None
    agent.reset_one(0)  # nothing to zero: fine


def test_eval_and_train_modes_restore_the_sampling_state():
    agent = _init(*RECURRENT[0][:3])
    agent.step(*discrete_inputs(classic_spaces(), (2,)))
    sampling = agent.prev_rnn_state
    agent.eval_mode(1)
    assert agent.prev_rnn_state is None and agent.sampling_rnn_state is sampling
    agent.step(*discrete_inputs(classic_spaces(), (2,)))  # evaluation has its own state
    agent.train_mode(1)
    assert agent.prev_rnn_state is None
    agent.sample_mode(1)
    assert agent.prev_rnn_state is sampling
    agent.train_mode(2)
    agent.sampling_rnn_state = None  # e.g. restoring a snapshot taken at the start
    agent.sample_mode(2)
    assert agent.prev_rnn_state is None


def test_example_step_without_leading_dims_builds_a_buffer():
    agent = _init(*RECURRENT[0][:3])
    step = agent.step(*discrete_inputs(classic_spaces(), ()))
    assert step.action.shape == () and step.agent_info.prev_rnn_state.h.shape == (1, 1, H)
    example = numpify_buffer(step)
    example = example._replace(
        agent_info=example.agent_info._replace(prev_rnn_state=example.agent_info.prev_rnn_state[0])
    )
    buffer = buffer_from_example(example, (5, 3))
    assert buffer.agent_info.prev_rnn_state.h.shape == (5, 3, 1, H)
    assert buffer.agent_info.dist_info.prob.shape == (5, 3, N_ACTIONS)


ALTERNATING = [
    (AlternatingAtariLstmAgent, atari_spaces, {"fc_sizes": 16, "lstm_size": H}, discrete_inputs),
    (
        AlternatingMujocoLstmAgent,
        mujoco_spaces,
        {"hidden_sizes": [16], "lstm_size": H},
        continuous_inputs,
    ),
]


@pytest.fixture(params=ALTERNATING, ids=["atari", "mujoco"])
def alternating(request):
    AgentCls, spaces, model_kwargs, inputs = request.param
    agent = _init(AgentCls, spaces, model_kwargs)
    return agent, lambda lead: inputs(spaces(), lead)


def test_alternating_keeps_one_state_per_group(alternating):
    agent, inputs = alternating
    assert agent.alternating and agent.recurrent and agent.get_alt() == 0
    group0, group1 = inputs((2,)), inputs((2,))
    agent.step(*group0)
    assert agent.get_alt() == 1 and agent.prev_rnn_state is None  # group 1 not started yet
    agent.step(*group1)
    assert agent.get_alt() == 0
    state0 = agent.prev_rnn_state
    third = agent.step(*group0)
    assert torch.equal(third.agent_info.prev_rnn_state.h, state0.h.transpose(0, 1))
    # Group 0 continues exactly as a plain recurrent agent over group 0's inputs alone.
    _, value, _ = agent(*(torch.stack([a, a]) for a in group0), None)
    assert torch.allclose(third.agent_info.value, value[1], atol=1e-5)


def test_alternating_reset_one_toggle_and_modes(alternating):
    agent, inputs = alternating
    agent.step(*inputs((2,)))
    agent.step(*inputs((2,)))
    state1 = agent._prev_rnn_state_pair[1]
    before1 = state1.h.clone()
    agent.reset_one(0)  # current group is 0
    assert torch.all(agent.prev_rnn_state.h[:, 0] == 0)
    assert torch.equal(state1.h, before1)
    agent.toggle_alt()
    assert agent.get_alt() == 1 and agent.prev_rnn_state is state1
    pair = list(agent._prev_rnn_state_pair)
    agent.eval_mode(0)
    assert agent.get_alt() == 0 and agent.prev_rnn_state is None
    agent.step(*inputs((2,)))
    agent.sample_mode(0)
    assert agent.get_alt() == 1 and agent._prev_rnn_state_pair == pair
    agent.reset()
    assert agent._prev_rnn_state_pair == [None, None] and agent.get_alt() == 0


def test_recurrent_gaussian_shapes():
    agent = _init(*RECURRENT[2][:3])
    step = agent.step(*continuous_inputs(mujoco_spaces(), (3,)))
    assert step.action.shape == (3, ACTION_SIZE)
    assert step.agent_info.dist_info.log_std.shape == (3, ACTION_SIZE)
    assert step.agent_info.prev_rnn_state.c.shape == (3, 1, H)
