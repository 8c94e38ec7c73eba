"""Gaussian against torch.distributions (Normal, Independent, tanh-transformed), and sampling."""

import math

import pytest
import torch
from torch.distributions import (
    AffineTransform,
    Independent,
    Normal,
    TanhTransform,
    TransformedDistribution,
    kl_divergence,
)

from rlpyt.distributions.gaussian import DistInfo, DistInfoStd, Gaussian

DIM = 3


def random_info(*lead, seed=0, dtype=torch.float64):
    gen = torch.Generator().manual_seed(seed)
    mean = torch.randn(*lead, DIM, generator=gen, dtype=dtype)
    log_std = 0.5 * torch.randn(*lead, DIM, generator=gen, dtype=dtype)
    return DistInfoStd(mean, log_std)


def reference(info, std=None):
    std = torch.exp(info.log_std) if std is None else std
    return Independent(Normal(info.mean, std), 1)


@pytest.mark.parametrize("lead", [(), (4,), (2, 4)])
def test_log_likelihood_entropy_kl_match_torch(lead):
    dist = Gaussian(DIM)
    old, new = random_info(*lead, seed=1), random_info(*lead, seed=2)
    x = torch.randn(*lead, DIM, dtype=torch.float64)
    torch.testing.assert_close(dist.log_likelihood(x, old), reference(old).log_prob(x))
    torch.testing.assert_close(dist.entropy(old), reference(old).entropy())
    torch.testing.assert_close(dist.kl(old, new), kl_divergence(reference(old), reference(new)))
    want_ratio = torch.exp(reference(new).log_prob(x) - reference(old).log_prob(x))
    torch.testing.assert_close(dist.likelihood_ratio(x, old, new), want_ratio)
    assert dist.entropy(old).shape == lead


@pytest.mark.parametrize("std", [0.7, [0.3, 1.0, 2.0]])
def test_fixed_std_overrides_dist_info(std):
    dist = Gaussian(DIM, std=std)
    std_tensor = torch.as_tensor(std, dtype=torch.float64).expand(DIM)
    old, new = random_info(5, seed=3), random_info(5, seed=4)
    x = torch.randn(5, DIM, dtype=torch.float64)
    ref_old, ref_new = reference(old, std_tensor), reference(new, std_tensor)
    for info in (old, DistInfo(old.mean)):  # log_std is ignored, and not needed.
        torch.testing.assert_close(dist.log_likelihood(x, info), ref_old.log_prob(x))
        torch.testing.assert_close(dist.entropy(info), ref_old.entropy())
    # The EPS = 1e-8 guard in the KL denominator (2 std^2 + EPS) is a ~1e-7 relative shift.
    want_kl = kl_divergence(ref_old, ref_new)
    torch.testing.assert_close(dist.kl(old, new), want_kl, atol=0, rtol=1e-6)


def test_min_max_std_clamp_is_used_in_formulas():
    dist = Gaussian(DIM, min_std=0.5, max_std=1.5)
    info = DistInfoStd(torch.zeros(4, DIM, dtype=torch.float64), torch.tensor([-3.0, 0.1, 3.0]))
    info = DistInfoStd(info.mean, info.log_std.to(torch.float64).expand(4, DIM))
    clamped = torch.tensor([0.5, math.exp(0.1), 1.5], dtype=torch.float64).expand(4, DIM)
    x = torch.randn(4, DIM, dtype=torch.float64)
    torch.testing.assert_close(dist.log_likelihood(x, info), reference(info, clamped).log_prob(x))
    torch.testing.assert_close(dist.entropy(info), reference(info, clamped).entropy())


@pytest.mark.parametrize("squash", [1.0, 2.5])
def test_squashed_log_likelihood_matches_tanh_transformed(squash):
    dist = Gaussian(DIM, squash=squash)
    info = random_info(6, seed=5)
    pre_squash = info.mean + torch.exp(info.log_std) * torch.randn(6, DIM, dtype=torch.float64)
    transforms = [TanhTransform(), AffineTransform(0.0, squash)]
    ref = TransformedDistribution(reference(info), transforms)
    squashed = squash * torch.tanh(pre_squash)
    torch.testing.assert_close(dist.log_likelihood(pre_squash, info), ref.log_prob(squashed))


def test_squash_correction_is_stable_for_large_inputs():
    dist = Gaussian(1, squash=1.0)
    info = DistInfoStd(torch.zeros(3, 1), torch.zeros(3, 1))
    x = torch.tensor([[15.0], [30.0], [-30.0]])
    logli = dist.log_likelihood(x, info)
    gaussian = -0.5 * x[:, 0] ** 2 - 0.5 * math.log(2 * math.pi)
    # log(1 - tanh(x)^2) = log(4) - 2|x| + O(exp(-2|x|)); a naive form would hit log(0).
    want = gaussian - (math.log(4) - 2 * x[:, 0].abs())
    torch.testing.assert_close(logli, want)


def test_sample_loglikelihood_returns_squashed_sample_and_corrected_logprob():
    dist = Gaussian(DIM, squash=2.0)
    info = random_info(7, seed=6)
    mean = info.mean.clone().requires_grad_(True)
    log_std = info.log_std.clone().requires_grad_(True)
    torch.manual_seed(11)
    sample, logli = dist.sample_loglikelihood(DistInfoStd(mean, log_std))
    assert sample.shape == (7, DIM) and logli.shape == (7,)
    assert sample.abs().max() < 2.0
    # The same standard normals again (the distribution draws them with randn_like), so the
    # reference starts from the exact pre-squash draw u: density of u minus
    # sum log|d(2 tanh u)/du|, written out naively in float64.
    torch.manual_seed(11)
    u = info.mean + torch.exp(info.log_std) * torch.randn_like(info.mean)
    torch.testing.assert_close(sample.detach(), 2.0 * torch.tanh(u))
    naive = reference(info).log_prob(u) - torch.log(2.0 * (1 - torch.tanh(u) ** 2)).sum(-1)
    torch.testing.assert_close(logli.detach(), naive)
    # torch's own transformed distribution agrees where inverting the squash is well
    # conditioned; near |sample| = 2 its atanh of the rounded sample loses digits (the error
    # grows like eps / (1 - (sample / 2)^2)), so the tolerance scales with that.
    ref = TransformedDistribution(reference(info), [TanhTransform(), AffineTransform(0.0, 2.0)])
    slack = 1 / (1 - (sample.detach() / 2) ** 2).min(dim=-1).values
    error = (logli.detach() - ref.log_prob(sample.detach())).abs()
    assert (error <= 1e-9 * slack * (1 + logli.detach().abs())).all(), (error, slack)
    (sample.sum() + logli.sum()).backward()  # Reparameterized: gradients reach both inputs.
    assert mean.grad is not None and log_std.grad is not None
    assert mean.grad.abs().sum() > 0 and log_std.grad.abs().sum() > 0


def test_sample_moments_clip_and_noise_clip():
    torch.manual_seed(0)
    n = 20000
    mean = torch.tensor([1.0, -2.0, 0.0])
    log_std = torch.log(torch.tensor([0.5, 1.0, 2.0]))
    info = DistInfoStd(mean.expand(n, DIM), log_std.expand(n, DIM))
    sample = Gaussian(DIM).sample(info)
    assert sample.shape == (n, DIM)
    torch.testing.assert_close(sample.mean(0), mean, atol=0.05, rtol=0)
    torch.testing.assert_close(sample.std(0), torch.exp(log_std), atol=0.05, rtol=0.02)
    clipped = Gaussian(DIM, clip=1.2).sample(info)
    assert clipped.abs().max() <= 1.2 and (clipped.abs() == 1.2).any()
    noise = Gaussian(DIM, noise_clip=0.3).sample(info) - mean
    assert noise.abs().max() <= 0.3 + 1e-6 and (noise.abs() > 0.29).any()


def test_squashed_sample_is_tanh_of_the_unsquashed_one():
    info = random_info(50, seed=7, dtype=torch.float32)
    torch.manual_seed(1)
    raw = Gaussian(DIM).sample(info)
    torch.manual_seed(1)
    squashed = Gaussian(DIM, squash=3.0).sample(info)
    torch.testing.assert_close(squashed, 3.0 * torch.tanh(raw))


def test_zero_std_samples_the_mean():
    info = random_info(5, seed=8, dtype=torch.float32)
    dist = Gaussian(DIM, std=1.0)
    dist.set_std(0.0)
    torch.testing.assert_close(dist.sample(DistInfo(info.mean)), info.mean)
    dist.set_std(None)
    with pytest.raises(ValueError, match="Gaussian has no std"):
        dist.sample(DistInfo(info.mean))


def test_settings_validation():
    with pytest.raises(ValueError, match="mutually exclusive"):
        Gaussian(DIM, clip=1.0, squash=1.0)
    dist = Gaussian(DIM, clip=1.0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        dist.set_squash(1.0)
    dist = Gaussian(DIM, squash=1.0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        dist.set_clip(1.0)
    with pytest.raises(ValueError, match="std must be a scalar or have 3 values"):
        Gaussian(DIM, std=[1.0, 2.0])
    dist.set_noise_clip(0.5)
    assert dist.noise_clip == 0.5


def test_kl_and_entropy_raise_when_squashed():
    dist = Gaussian(DIM, squash=1.0)
    info = random_info(2, seed=9)
    with pytest.raises(NotImplementedError, match="no closed form"):
        dist.entropy(info)
    with pytest.raises(NotImplementedError, match="no closed form"):
        dist.kl(info, info)
    dist.set_squash(None)
    torch.testing.assert_close(dist.entropy(info), reference(info).entropy())


def test_mean_entropy_with_valid_mask_matches_manual():
    dist = Gaussian(DIM)
    info = random_info(5, 4, seed=10)
    valid = torch.tensor([[1, 1, 0, 1], [1, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 1], [0, 1, 0, 1]])
    entropy = reference(info).entropy()
    total = count = 0.0
    for t in range(5):
        for b in range(4):
            if valid[t, b]:
                total, count = total + entropy[t, b].item(), count + 1
    assert dist.mean_entropy(info, valid).item() == pytest.approx(total / count)
