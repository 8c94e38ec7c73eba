"""R2D1 agents: recorded states, step vs sequence call, target, alternation, state dicts."""

import pytest
import torch

from rlpyt.agents.dqn.atari.atari_r2d1_agent import AtariR2d1Agent, AtariR2d1AlternatingAgent
from rlpyt.agents.dqn.classic import ClassicR2d1Agent, ClassicR2d1AlternatingAgent
from rlpyt.agents.dqn.r2d1_agent import AgentInfo, R2d1Agent
from rlpyt.models.dqn.atari_r2d1_model import AtariR2d1Model
from rlpyt.models.dqn.classic_r2d1_model import ClassicR2d1Model
from rlpyt.models.pg.atari_lstm_model import RnnState
from rlpyt.utils.buffer import buffer_from_example, numpify_buffer
from tests.unit.agents.agent_helpers import N_ACTIONS, atari_spaces, classic_spaces, discrete_inputs

H = 8
AGENTS = [
    (ClassicR2d1Agent, classic_spaces, dict(hidden_sizes=[16], lstm_size=H, head_size=16)),
    (AtariR2d1Agent, atari_spaces, dict(fc_size=16, lstm_size=H, head_size=16)),
]


def _agent(AgentCls, spaces, model_kwargs, **kwargs):
    agent = AgentCls(model_kwargs=model_kwargs, **kwargs)
    agent.initialize(spaces())
    agent.sample_mode(0)
    return agent


@pytest.fixture(params=AGENTS, ids=["classic", "atari"])
def case(request):
    AgentCls, spaces, model_kwargs = request.param
    return _agent(AgentCls, spaces, model_kwargs), spaces


def _transposed(state):
    return RnnState(*(x.transpose(0, 1) for x in state))


def test_default_models_and_the_bare_agent_needs_a_model_class():
    assert AtariR2d1Agent.default_model_cls is AtariR2d1Model
    assert AtariR2d1AlternatingAgent.default_model_cls is AtariR2d1Model
    assert ClassicR2d1Agent.default_model_cls is ClassicR2d1Model
    with pytest.raises(ValueError, match="needs a ModelCls"):
        R2d1Agent().initialize(classic_spaces())
    assert R2d1Agent.recurrent and not R2d1Agent.alternating
    assert ClassicR2d1AlternatingAgent.alternating


def test_step_records_q_and_the_state_before_the_step(case):
    agent, spaces = case
    B = 3
    first = agent.step(*discrete_inputs(spaces(), (B,)))
    assert isinstance(first.agent_info, AgentInfo)
    assert first.agent_info.q.shape == (B, N_ACTIONS) and first.action.shape == (B,)
    recorded = first.agent_info.prev_rnn_state
    assert recorded.h.shape == (B, 1, H) and not recorded.h.any() and not recorded.c.any()
    after_first = agent.prev_rnn_state
    second = agent.step(*discrete_inputs(spaces(), (B,)))
    assert torch.equal(second.agent_info.prev_rnn_state.h, after_first.h.transpose(0, 1))
    assert torch.equal(second.agent_info.prev_rnn_state.c, after_first.c.transpose(0, 1))


def test_greedy_steps_equal_the_sequence_call_and_restart_from_a_recorded_state(case):
    agent, spaces = case
    agent.distribution.set_epsilon(0.0)
    T, B = 5, 2
    observation, prev_action, prev_reward = discrete_inputs(spaces(), (T, B))
    steps = [agent.step(observation[t], prev_action[t], prev_reward[t]) for t in range(T)]
    q_steps = torch.stack([s.agent_info.q for s in steps])
    q, last_state = agent(observation, prev_action, prev_reward, None)
    assert q.shape == (T, B, N_ACTIONS) and q.requires_grad
    torch.testing.assert_close(q, q_steps, atol=1e-5, rtol=1e-5)
    assert torch.equal(torch.stack([s.action for s in steps]), q_steps.argmax(-1))
    torch.testing.assert_close(last_state.h, agent.prev_rnn_state.h, atol=1e-5, rtol=1e-5)
    # From the state recorded at step 2, the call reproduces steps 2.. exactly.
    init = _transposed(steps[2].agent_info.prev_rnn_state)
    q_tail, _ = agent(observation[2:], prev_action[2:], prev_reward[2:], init)
    torch.testing.assert_close(q_tail, q_steps[2:], atol=1e-5, rtol=1e-5)


def test_target_is_a_copy_without_gradients_until_updated(case):
    agent, spaces = case
    T, B = 3, 2
    inputs = discrete_inputs(spaces(), (T, B))
    q, state = agent(*inputs, None)
    q_target, target_state = agent.target(*inputs, None)
    torch.testing.assert_close(q_target, q.detach())
    assert not q_target.requires_grad and target_state.h.shape == (1, B, H)
    with torch.no_grad():
        for p in agent.model.parameters():
            p.add_(0.1)
    assert not torch.allclose(agent.target(*inputs, None)[0], agent(*inputs, None)[0])
    agent.update_target()
    torch.testing.assert_close(agent.target(*inputs, None)[0], agent(*inputs, None)[0].detach())


def test_parameters_are_the_online_model_and_state_dict_round_trips(case):
    agent, spaces = case
    assert list(agent.parameters()) == list(agent.model.parameters())
    state = agent.state_dict()
    assert set(state) == {"model", "target"}
    with torch.no_grad():
        for p in agent.model.parameters():
            p.mul_(2)
    agent.load_state_dict(state)
    for key, value in state["model"].items():
        assert torch.equal(agent.model.state_dict()[key], value)


def test_reset_one_zeros_only_that_env(case):
    agent, spaces = case
    agent.step(*discrete_inputs(spaces(), (3,)))
    before = agent.prev_rnn_state.h.clone()
    agent.reset_one(1)
    assert not agent.prev_rnn_state.h[:, 1].any()
    assert torch.equal(agent.prev_rnn_state.h[:, [0, 2]], before[:, [0, 2]])
    agent.reset()
    assert agent.prev_rnn_state is None


def test_alternating_agent_keeps_one_state_per_group():
    model_kwargs = dict(hidden_sizes=[16], lstm_size=H, head_size=16)
    alt = _agent(ClassicR2d1AlternatingAgent, classic_spaces, model_kwargs)
    single = ClassicR2d1Agent(model_kwargs=model_kwargs)
    single.initialize(classic_spaces())
    single.load_state_dict(alt.state_dict())
    single.sample_mode(0)
    single.distribution.set_epsilon(0.0)
    alt.distribution.set_epsilon(0.0)
    groups = [discrete_inputs(classic_spaces(), (4, 2)) for _ in range(2)]
    for t in range(4):
        for g in range(2):
            assert alt.get_alt() == g
            step = alt.step(*(x[t] for x in groups[g]))
            if g == 0:  # group 0 alone through a plain agent gives the same q
                torch.testing.assert_close(
                    step.agent_info.q, single.step(*(x[t] for x in groups[0])).agent_info.q
                )


def test_example_step_without_leading_dims_builds_a_samples_buffer():
    agent = _agent(*AGENTS[0])
    observation, prev_action, prev_reward = discrete_inputs(classic_spaces(), ())
    step = agent.step(observation, prev_action, prev_reward)
    assert step.agent_info.prev_rnn_state.h.shape == (1, 1, H)
    example = numpify_buffer(step.agent_info)
    example = type(example)(q=example.q, prev_rnn_state=example.prev_rnn_state[0])
    buf = buffer_from_example(example, (4, 2))
    assert buf.q.shape == (4, 2, N_ACTIONS) and buf.prev_rnn_state.h.shape == (4, 2, 1, H)


def test_epsilon_schedule_is_dqns():
    agent = _agent(*AGENTS[0], eps_final=0.05)
    agent.set_epsilon_itr_min_max(2, 12)
    agent.sample_mode(7)
    assert agent.distribution.epsilon == pytest.approx(1 - 0.5 * 0.95)
    agent.eval_mode(3)
    assert agent.distribution.epsilon == pytest.approx(0.001)
