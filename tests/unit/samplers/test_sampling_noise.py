"""Split-independent action noise: SamplingNoise and the distributions' noise arguments."""

import numpy as np
import pytest
import torch

from rlpyt.distributions.categorical import Categorical, DistInfo
from rlpyt.distributions.gaussian import DistInfoStd, Gaussian
from rlpyt.samplers.noise import SamplingNoise, install_sampling_noise


class ModeAgent:
    """Just what SamplingNoise reads from an agent: its mode tag and distribution."""

    def __init__(self, distribution, mode="sample"):
        self.distribution = distribution
        self.mode = mode


def test_categorical_inverse_cdf_matches_the_probabilities():
    prob = torch.tensor([[0.1, 0.0, 0.6, 0.3]]).expand(200_000, 4)
    noise = torch.rand(200_000)
    actions = Categorical(dim=4).sample(DistInfo(prob=prob), noise=noise)
    freq = torch.bincount(actions, minlength=4).float() / len(actions)
    assert torch.allclose(freq, prob[0], atol=0.005)
    assert freq[1] == 0  # zero probability: never drawn


def test_categorical_inverse_cdf_by_hand():
    prob = torch.tensor([[0.25, 0.25, 0.5]] * 5)
    noise = torch.tensor([0.0, 0.2499, 0.25, 0.49, 0.9999999])
    actions = Categorical(dim=3).sample(DistInfo(prob=prob), noise=noise)
    assert actions.tolist() == [0, 0, 1, 1, 2]


def test_gaussian_noise_is_scaled_and_shifted():
    mean, log_std = torch.tensor([[1.0, -2.0]]), torch.log(torch.tensor([[0.5, 2.0]]))
    noise = torch.tensor([[1.0, -1.0]])
    sample = Gaussian(dim=2).sample(DistInfoStd(mean=mean, log_std=log_std), noise=noise)
    assert torch.allclose(sample, torch.tensor([[1.5, -4.0]]))


@pytest.mark.parametrize("kind", ["categorical", "gaussian"])
def test_split_draws_equal_one_batched_draw(kind):
    """Two agents over envs 0-2 and 3-7 sample what one agent over all 8 envs samples."""
    if kind == "categorical":
        distribution = Categorical(dim=3)
        dist_info = DistInfo(prob=torch.softmax(torch.randn(8, 3), dim=-1))
    else:
        distribution = Gaussian(dim=2)
        dist_info = DistInfoStd(mean=torch.randn(8, 2), log_std=torch.randn(8, 2))
    whole = SamplingNoise(distribution, ModeAgent(distribution), 7, 8, list(range(8)))
    first = SamplingNoise(distribution, ModeAgent(distribution), 7, 8, [0, 1, 2])
    second = SamplingNoise(distribution, ModeAgent(distribution), 7, 8, [3, 4, 5, 6, 7])
    for _ in range(3):  # several steps: the generators stay in step
        expected = whole.sample(dist_info)
        actual = torch.cat([first.sample(dist_info[:3]), second.sample(dist_info[3:])])
        assert torch.equal(expected, actual)


def test_shared_noise_replaces_agent_noise_only_in_sample_mode():
    distribution = Categorical(dim=2)
    agent = ModeAgent(distribution)
    noise = SamplingNoise(distribution, agent, 0, 4, [0, 1, 2, 3])
    dist_info = DistInfo(prob=torch.full((4, 2), 0.5))
    ones = torch.full((4,), 0.99)  # the agent's own noise: all action 1
    state = noise.state_dict()
    shared = noise.sample(dist_info, noise=ones)
    expected = np.random.default_rng([0, 0x6E6F697365]).random(4, dtype=np.float32) >= 0.5
    assert shared.tolist() == expected.astype(int).tolist()
    agent.mode = "eval"
    assert noise.sample(dist_info, noise=ones).tolist() == [1, 1, 1, 1]
    assert noise.state_dict() != state  # advanced once, in sample mode only
    noise.load_state_dict(state)
    agent.mode = "sample"
    assert torch.equal(noise.sample(dist_info), shared)


def test_other_attributes_forward_and_mismatched_rows_fall_back():
    distribution = Categorical(dim=2)
    agent = ModeAgent(distribution)
    assert install_sampling_noise(agent, 0, 4, [0, 1]) is agent.distribution
    assert agent.distribution.dim == 2 and agent.distribution.distribution is distribution
    one_env = DistInfo(prob=torch.tensor([[0.0, 1.0]]))  # 1 row, but this agent has 2
    assert agent.distribution.sample(one_env).tolist() == [1]
    assert install_sampling_noise(ModeAgent(object()), 0, 4, [0]) is None
