"""QPG models: shapes over leading dims, bounds, forward maths against by-hand MLPs."""

import pytest
import torch

from rlpyt.models.qpg.mlp import MuMlpModel, PiMlpModel, QofMuMlpModel, VMlpModel

OBS_SHAPE = (2, 3)  # two data dims: the models flatten them
A = 4
LEADS = [(), (5,), (3, 2)]


def obs(lead):
    return torch.randn(lead + OBS_SHAPE)


def by_hand(mlp, x):
    """The MLP's linear layers applied with explicit ReLUs (no ReLU after the last)."""
    linears = [m for m in mlp.modules() if isinstance(m, torch.nn.Linear)]
    for i, layer in enumerate(linears):
        x = x @ layer.weight.T + layer.bias
        if i < len(linears) - 1:
            x = torch.relu(x)
    return x


@pytest.mark.parametrize("lead", LEADS, ids=str)
def test_mu_is_output_max_times_tanh_of_the_mlp(lead):
    torch.manual_seed(0)
    model = MuMlpModel(OBS_SHAPE, [16, 8], A, output_max=2.5)
    observation = obs(lead) * 50  # large inputs saturate tanh
    mu = model(observation, None, None)
    assert mu.shape == lead + (A,)
    assert mu.abs().max() <= 2.5
    flat = observation.reshape(-1, 6)
    expected = 2.5 * torch.tanh(by_hand(model.mlp, flat)).reshape(lead + (A,))
    torch.testing.assert_close(mu, expected)


@pytest.mark.parametrize("lead", LEADS, ids=str)
def test_pi_splits_one_mlp_into_mean_and_log_std(lead):
    model = PiMlpModel(OBS_SHAPE, [16], A)
    observation = obs(lead)
    mu, log_std = model(observation, None, None)
    assert mu.shape == lead + (A,) and log_std.shape == lead + (A,)
    out = by_hand(model.mlp, observation.reshape(-1, 6)).reshape(lead + (2 * A,))
    torch.testing.assert_close(mu, out[..., :A])
    torch.testing.assert_close(log_std, out[..., A:])


@pytest.mark.parametrize("lead", LEADS, ids=str)
def test_q_concatenates_flat_observation_and_action(lead):
    model = QofMuMlpModel(OBS_SHAPE, [16, 16], A)
    observation, action = obs(lead), torch.randn(lead + (A,))
    q = model(observation, None, None, action)
    assert q.shape == lead
    joint = torch.cat([observation.reshape(-1, 6), action.reshape(-1, A)], dim=1)
    torch.testing.assert_close(q, by_hand(model.mlp, joint).reshape(lead))


@pytest.mark.parametrize("lead", LEADS, ids=str)
def test_v_is_a_scalar_per_observation(lead):
    model = VMlpModel(OBS_SHAPE, [16], action_size=A)
    observation = obs(lead)
    v = model(observation, torch.randn(lead + (A,)), torch.randn(lead))
    assert v.shape == lead
    torch.testing.assert_close(v, by_hand(model.mlp, observation.reshape(-1, 6)).reshape(lead))


def test_prev_action_and_reward_are_ignored_and_gradients_flow():
    model = QofMuMlpModel(OBS_SHAPE, [8], A)
    observation, action = obs((4,)), torch.randn(4, A, requires_grad=True)
    q1 = model(observation, torch.zeros(4, A), torch.zeros(4), action)
    q2 = model(observation, torch.randn(4, A), torch.randn(4), action)
    assert torch.equal(q1, q2)
    q1.sum().backward()
    assert action.grad is not None and action.grad.abs().sum() > 0


def test_too_many_leading_dims_raise():
    model = VMlpModel(OBS_SHAPE, [8])
    with pytest.raises(ValueError, match="leading dims"):
        model(torch.randn(2, 2, 2, *OBS_SHAPE), None, None)
