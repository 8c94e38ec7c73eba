"""The tanh-squashed Gaussian (SAC's policy): its log density against independent references.

``y = s * tanh(x)`` with ``x ~ N(mean, std^2)`` per dim. References: torch.distributions'
TransformedDistribution, the derivative of the CDF ``P(Y <= y) = Phi((atanh(y / s) - mean) /
std)`` by finite differences, and the integral of the density over ``(-s, s)``.
"""

import math

import numpy as np
import pytest
import torch
from torch.distributions import (
    AffineTransform,
    Independent,
    Normal,
    TanhTransform,
    TransformedDistribution,
)

from rlpyt.distributions.gaussian import DistInfoStd, Gaussian


def squashed(mean, log_std, squash):
    base = Independent(Normal(mean, log_std.exp()), 1)
    return TransformedDistribution(
        base, [TanhTransform(), AffineTransform(0.0, squash)], validate_args=False
    )


@pytest.mark.parametrize("squash", [1.0, 2.0, 0.5])
def test_log_likelihood_matches_torch_transformed_distribution(squash):
    torch.manual_seed(0)
    mean = torch.randn(6, 3, dtype=torch.float64)
    log_std = 0.5 * torch.randn(6, 3, dtype=torch.float64)
    x = mean + log_std.exp() * torch.randn(6, 3, dtype=torch.float64)
    dist = Gaussian(dim=3, squash=squash)
    ours = dist.log_likelihood(x, DistInfoStd(mean, log_std))
    reference = squashed(mean, log_std, squash).log_prob(squash * torch.tanh(x))
    assert ours.shape == (6,)
    torch.testing.assert_close(ours, reference, rtol=1e-9, atol=1e-9)


def normal_cdf(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def test_density_is_the_derivative_of_the_cdf_of_the_squashed_variable():
    mean, std, squash = 0.3, 0.7, 2.0
    dist = Gaussian(dim=1, squash=squash)
    info = DistInfoStd(
        torch.tensor([[mean]], dtype=torch.float64),
        torch.tensor([[math.log(std)]], dtype=torch.float64),
    )

    def cdf(y):
        return normal_cdf((math.atanh(y / squash) - mean) / std)

    h = 1e-5
    for y in [-1.9, -1.0, -0.2, 0.0, 0.5, 1.3, 1.95]:
        numeric = (cdf(y + h) - cdf(y - h)) / (2 * h)
        x = torch.tensor([[math.atanh(y / squash)]], dtype=torch.float64)
        ours = dist.log_likelihood(x, info).exp().item()
        assert ours == pytest.approx(numeric, rel=1e-6)


def test_density_integrates_to_one_over_the_action_range():
    squash = 2.0
    dist = Gaussian(dim=1, squash=squash)
    info = DistInfoStd(
        torch.tensor([[-0.4]], dtype=torch.float64),
        torch.tensor([[math.log(0.6)]], dtype=torch.float64),
    )
    y = np.linspace(-squash, squash, 200001)[1:-1]
    x = torch.from_numpy(np.arctanh(y / squash)).reshape(-1, 1, 1)
    density = dist.log_likelihood(x, info).exp().reshape(-1).numpy()
    assert np.trapezoid(density, y) == pytest.approx(1.0, abs=1e-5)


def test_sample_loglikelihood_returns_the_squashed_sample_and_its_log_density():
    dist = Gaussian(dim=2, squash=2.0, min_std=math.exp(-20), max_std=math.exp(2))
    mean = torch.randn(5, 2, requires_grad=True)
    log_std = (0.3 * torch.randn(5, 2)).requires_grad_()
    info = DistInfoStd(mean, log_std)
    torch.manual_seed(3)
    sample, logli = dist.sample_loglikelihood(info)
    torch.manual_seed(3)
    raw = mean + log_std.exp() * torch.randn_like(mean)  # the same draw, by hand
    torch.testing.assert_close(sample, 2.0 * torch.tanh(raw))
    torch.testing.assert_close(logli, dist.log_likelihood(raw, info))
    assert sample.abs().max() < 2.0 and logli.shape == (5,)
    (sample.sum() + logli.sum()).backward()  # reparameterized: gradients reach both inputs
    assert mean.grad.abs().sum() > 0 and log_std.grad.abs().sum() > 0


def test_log_std_is_clamped_in_the_density():
    dist = Gaussian(dim=1, squash=1.0, min_std=math.exp(-20), max_std=math.exp(2))
    x = torch.tensor([[0.4]])
    mean = torch.tensor([[0.1]])
    high = dist.log_likelihood(x, DistInfoStd(mean, torch.tensor([[5.0]])))
    at_max = dist.log_likelihood(x, DistInfoStd(mean, torch.tensor([[2.0]])))
    torch.testing.assert_close(high, at_max)


def test_saturated_samples_keep_a_finite_log_density():
    dist = Gaussian(dim=1, squash=1.0)
    x = torch.tensor([[30.0], [-30.0]])
    info = DistInfoStd(torch.zeros(2, 1), torch.full((2, 1), 3.0))
    logli = dist.log_likelihood(x, info)
    assert torch.isfinite(logli).all()
    # log(1 - tanh(30)^2) = log(4) - 60 - 2 log(1 + e^-60), exactly representable here:
    gauss = -3.0 - 0.5 * (30.0 / math.exp(3.0)) ** 2 - 0.5 * math.log(2 * math.pi)
    expected = gauss - (math.log(4.0) - 60.0)
    torch.testing.assert_close(logli, torch.tensor([expected, expected]))
