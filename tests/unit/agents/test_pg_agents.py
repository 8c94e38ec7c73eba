import numpy as np
import pytest
import torch

from rlpyt.agents.base import AgentStep
from rlpyt.agents.pg.atari import AtariFfAgent
from rlpyt.agents.pg.base import AgentInfo
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.agents.pg.mujoco import MujocoFfAgent
from rlpyt.distributions.categorical import Categorical, DistInfo
from rlpyt.distributions.gaussian import DistInfoStd, Gaussian
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

LEADS = [(), (4,), (3, 2)]

DISCRETE = [
    (ClassicFfAgent, classic_spaces, {}),
    (AtariFfAgent, atari_spaces, {"fc_sizes": 16}),
]


def _init(AgentCls, spaces, model_kwargs):
    agent = AgentCls(model_kwargs=model_kwargs)
    agent.initialize(spaces())
    agent.sample_mode(0)
    return agent


@pytest.mark.parametrize("AgentCls, spaces, model_kwargs", DISCRETE)
@pytest.mark.parametrize("lead", LEADS)
def test_categorical_step_shapes_and_dtypes(AgentCls, spaces, model_kwargs, lead):
    agent = _init(AgentCls, spaces, model_kwargs)
    assert isinstance(agent.distribution, Categorical) and agent.distribution.dim == N_ACTIONS
    step = agent.step(*discrete_inputs(spaces(), lead))
    assert isinstance(step, AgentStep) and isinstance(step.agent_info, AgentInfo)
    assert step.action.shape == lead and step.action.dtype == torch.long
    assert step.agent_info.dist_info.prob.shape == lead + (N_ACTIONS,)
    assert step.agent_info.value.shape == lead
    for tensor in (step.action, step.agent_info.dist_info.prob, step.agent_info.value):
        assert tensor.device.type == "cpu" and not tensor.requires_grad
    assert ((step.action >= 0) & (step.action < N_ACTIONS)).all()


@pytest.mark.parametrize("AgentCls, spaces, model_kwargs", DISCRETE)
def test_categorical_call_is_differentiable_and_value_matches(AgentCls, spaces, model_kwargs):
    agent = _init(AgentCls, spaces, model_kwargs)
    inputs = discrete_inputs(spaces(), (3, 2))
    dist_info, value = agent(*inputs)
    assert isinstance(dist_info, DistInfo) and dist_info.prob.requires_grad
    assert value.requires_grad and value.shape == (3, 2)
    assert torch.allclose(agent.value(*inputs), value.detach())
    assert torch.allclose(agent.step(*inputs).agent_info.value, value.detach())


class _RecordingModel(torch.nn.Module):
    """Returns a fixed policy and records what the agent passed in."""

    def __init__(self, observation_shape, action_size):
        super().__init__()
        self.logits = torch.nn.Parameter(torch.zeros(action_size))
        self.seen = []

    def forward(self, observation, prev_action, prev_reward):
        self.seen.append(prev_action)
        lead = observation.shape[: observation.dim() - 1]
        pi = torch.softmax(self.logits, -1).expand(*lead, -1)
        return pi, torch.zeros(lead)


def test_categorical_agent_one_hots_prev_action_for_the_model():
    agent = ClassicFfAgent(ModelCls=_RecordingModel)
    agent.initialize(classic_spaces())
    prev_action = torch.tensor([2, 0, 1], dtype=torch.int32)
    agent.step(torch.zeros(3, 5), prev_action, torch.zeros(3))
    agent(torch.zeros(3, 5), prev_action, torch.zeros(3))
    for seen in agent.model.seen:
        assert seen.dtype == torch.float32
        assert torch.equal(seen, torch.eye(N_ACTIONS)[prev_action.long()])


class _IgnoringRecordingModel(_RecordingModel):
    uses_prev_action = False


def test_categorical_agent_skips_the_one_hot_for_models_that_ignore_prev_action():
    agent = ClassicFfAgent(ModelCls=_IgnoringRecordingModel)
    agent.initialize(classic_spaces())
    prev_action = torch.tensor([2, 0, 1], dtype=torch.int32)
    agent.step(torch.zeros(3, 5), prev_action, torch.zeros(3))
    assert [torch.equal(seen, prev_action) for seen in agent.model.seen] == [True]


def test_categorical_sampling_follows_the_policy():
    agent = ClassicFfAgent(ModelCls=_RecordingModel)
    agent.initialize(classic_spaces())
    with torch.no_grad():
        agent.model.logits.copy_(torch.log(torch.tensor([0.7, 0.2, 0.1])))
    step = agent.step(
        torch.zeros(20000, 5), torch.zeros(20000, dtype=torch.long), torch.zeros(20000)
    )
    freq = torch.bincount(step.action, minlength=3).float() / 20000
    assert torch.allclose(freq, torch.tensor([0.7, 0.2, 0.1]), atol=0.02)


@pytest.mark.parametrize("lead", LEADS)
def test_gaussian_step_shapes_and_dtypes(lead):
    agent = _init(MujocoFfAgent, mujoco_spaces, {"hidden_sizes": [8]})
    assert isinstance(agent.distribution, Gaussian) and agent.distribution.dim == ACTION_SIZE
    step = agent.step(*continuous_inputs(mujoco_spaces(), lead))
    assert step.action.shape == lead + (ACTION_SIZE,) and step.action.dtype == torch.float32
    dist_info = step.agent_info.dist_info
    assert isinstance(dist_info, DistInfoStd)
    assert dist_info.mean.shape == dist_info.log_std.shape == lead + (ACTION_SIZE,)
    assert step.agent_info.value.shape == lead
    assert not step.action.requires_grad


def test_gaussian_call_value_and_grads():
    agent = _init(MujocoFfAgent, mujoco_spaces, {})
    inputs = continuous_inputs(mujoco_spaces(), (3, 2))
    dist_info, value = agent(*inputs)
    assert dist_info.log_std.requires_grad and value.shape == (3, 2)
    assert torch.allclose(agent.value(*inputs), value.detach())


def test_gaussian_actions_are_recorded_unclipped():
    agent = _init(MujocoFfAgent, mujoco_spaces, {"init_log_std": 2.0})  # std e^2 >> bound 2
    step = agent.step(*continuous_inputs(mujoco_spaces(), (200,)))
    assert step.action.abs().max() > 2.0


@pytest.mark.parametrize(
    "spaces, match",
    [
        (mujoco_spaces(low=0.0, high=1.0), "symmetric"),
        (mujoco_spaces(low=-1.0, high=1.0, shape=(2, 2)), "1-D"),
    ],
)
def test_gaussian_agent_rejects_unsupported_action_spaces(spaces, match):
    with pytest.raises(ValueError, match=match):
        MujocoFfAgent().initialize(spaces)


def test_gaussian_agent_accepts_per_dim_symmetric_bounds():
    from rlpyt.envs.base import EnvSpaces
    from rlpyt.spaces.float_box import FloatBox

    spaces = EnvSpaces(
        observation=FloatBox(-1, 1, shape=(5,)),
        action=FloatBox(np.array([-1.0, -3.0]), np.array([1.0, 3.0])),
    )
    MujocoFfAgent().initialize(spaces)


def test_update_obs_rms_reaches_the_model():
    agent = _init(MujocoFfAgent, mujoco_spaces, {"normalize_observation": True})
    observation = torch.randn(4, 3, 5) * 2 + 1
    agent.update_obs_rms(observation)
    rms = agent.model.obs_rms
    assert rms.count.item() == 12
    assert torch.allclose(rms.mean, observation.reshape(12, 5).mean(0), atol=1e-6)


def test_update_obs_rms_names_a_model_without_it():
    agent = _init(MujocoFfAgent, mujoco_spaces, {"normalize_observation": True})
    agent.model = torch.nn.Linear(5, 2)  # a model without observation statistics
    with pytest.raises(AttributeError, match="Linear has no update_obs_rms"):
        agent.update_obs_rms(torch.zeros(4, 5))


@pytest.mark.parametrize(
    "AgentCls, spaces, model_kwargs, inputs",
    [
        (ClassicFfAgent, classic_spaces, {}, discrete_inputs),
        (AtariFfAgent, atari_spaces, {"fc_sizes": 16}, discrete_inputs),
        (MujocoFfAgent, mujoco_spaces, {"normalize_observation": True}, continuous_inputs),
    ],
)
def test_state_dict_round_trip_into_a_fresh_agent(AgentCls, spaces, model_kwargs, inputs):
    agent = _init(AgentCls, spaces, model_kwargs)
    if hasattr(agent.model, "obs_rms"):
        agent.update_obs_rms(torch.randn(10, 5) * 3)  # buffers travel too
    torch.manual_seed(99)
    fresh = _init(AgentCls, spaces, model_kwargs)
    batch = inputs(spaces(), (4,))
    assert not torch.equal(agent.value(*batch), fresh.value(*batch))
    fresh.load_state_dict(agent.state_dict())
    out, out_fresh = agent(*batch), fresh(*batch)
    for a, b in zip([*out[0], out[1]], [*out_fresh[0], out_fresh[1]], strict=True):
        assert torch.equal(a, b)


def test_example_step_builds_a_samples_buffer():
    """What samplers do: one step without leading dims, then a [T, B] buffer from it."""
    agent = _init(MujocoFfAgent, mujoco_spaces, {})
    example = agent.step(*continuous_inputs(mujoco_spaces(), ()))
    buffer = buffer_from_example(numpify_buffer(example), (5, 3))
    assert buffer.action.shape == (5, 3, ACTION_SIZE)
    assert buffer.agent_info.dist_info.log_std.shape == (5, 3, ACTION_SIZE)
    assert buffer.agent_info.value.shape == (5, 3)
    step = agent.step(*continuous_inputs(mujoco_spaces(), (3,)))
    buffer[0] = numpify_buffer(step)
    assert np.allclose(buffer.agent_info.value[0], step.agent_info.value.numpy())
