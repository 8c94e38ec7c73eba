"""Categorical and DiscreteMixin against torch.distributions and sampling frequencies."""

import pytest
import torch
from torch.distributions import Categorical as TorchCategorical
from torch.distributions import kl_divergence

from rlpyt.distributions.categorical import Categorical, DistInfo

DIM = 4


def random_prob(*lead, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return torch.softmax(torch.randn(*lead, DIM, generator=gen, dtype=torch.float64), dim=-1)


@pytest.mark.parametrize("lead", [(), (5,), (3, 5)])
def test_log_likelihood_entropy_kl_match_torch(lead):
    dist = Categorical(DIM)
    p, q = random_prob(*lead, seed=1), random_prob(*lead, seed=2)
    actions = torch.randint(DIM, lead, generator=torch.Generator().manual_seed(3))
    ref_p, ref_q = TorchCategorical(probs=p), TorchCategorical(probs=q)
    logli = dist.log_likelihood(actions, DistInfo(p))
    assert logli.shape == lead
    # The EPS = 1e-8 guard inside log() shifts results by about EPS / min(p) (< 1e-5 here).
    tol = {"atol": 1e-5, "rtol": 0}
    torch.testing.assert_close(logli, ref_p.log_prob(actions), **tol)
    torch.testing.assert_close(dist.entropy(DistInfo(p)), ref_p.entropy(), **tol)
    kl = dist.kl(DistInfo(p), DistInfo(q))
    torch.testing.assert_close(kl, kl_divergence(ref_p, ref_q), **tol)
    ratio = dist.likelihood_ratio(actions, DistInfo(p), DistInfo(q))
    want = torch.exp(ref_q.log_prob(actions) - ref_p.log_prob(actions))
    torch.testing.assert_close(ratio, want, atol=0, rtol=1e-5)
    torch.testing.assert_close(dist.perplexity(DistInfo(p)), torch.exp(ref_p.entropy()))


def test_zero_probabilities_stay_finite():
    dist = Categorical(DIM)
    p = torch.tensor([[1.0, 0.0, 0.0, 0.0]])
    assert torch.isfinite(dist.log_likelihood(torch.tensor([1]), DistInfo(p))).all()
    assert dist.entropy(DistInfo(p)).item() == pytest.approx(0.0, abs=1e-7)
    assert torch.isfinite(dist.kl(DistInfo(torch.full((1, DIM), 0.25)), DistInfo(p))).all()


def test_sampling_frequencies_over_leading_dims():
    torch.manual_seed(0)
    dist = Categorical(DIM)
    prob = random_prob(2, 3, seed=4).float()
    n = 20000
    samples = dist.sample(DistInfo(prob.expand(n, 2, 3, DIM)))
    assert samples.shape == (n, 2, 3) and samples.dtype == torch.long
    freq = torch.nn.functional.one_hot(samples, DIM).float().mean(dim=0)
    # Binomial std of a frequency is at most 0.5 / sqrt(n) = 0.0035; allow about 6 of them.
    torch.testing.assert_close(freq, prob, atol=0.02, rtol=0)


def test_sample_dtype_and_scalar_shape():
    dist = Categorical(DIM, dtype=torch.int32)
    sample = dist.sample(DistInfo(torch.full((DIM,), 0.25)))
    assert sample.shape == () and sample.dtype == torch.int32


def test_wrong_prob_dim_is_rejected():
    with pytest.raises(ValueError, match="last dim must be the number of actions"):
        Categorical(DIM).entropy(DistInfo(torch.full((2, DIM + 1), 0.2)))


def test_mean_entropy_and_kl_with_valid_mask_match_manual():
    dist = Categorical(DIM)
    p, q = random_prob(6, 3, seed=5), random_prob(6, 3, seed=6)
    valid = torch.rand(6, 3, generator=torch.Generator().manual_seed(7)) < 0.6
    entropy = TorchCategorical(probs=p).entropy()
    kl = kl_divergence(TorchCategorical(probs=p), TorchCategorical(probs=q))
    total_h = total_kl = count = 0.0
    for t in range(6):
        for b in range(3):
            if valid[t, b]:
                total_h += entropy[t, b].item()
                total_kl += kl[t, b].item()
                count += 1
    got = dist.mean_entropy(DistInfo(p), valid).item()
    assert got == pytest.approx(total_h / count, abs=1e-6)
    assert dist.mean_kl(DistInfo(p), DistInfo(q), valid).item() == pytest.approx(total_kl / count)
    assert dist.mean_entropy(DistInfo(p)).item() == pytest.approx(entropy.mean().item(), abs=1e-6)
    want_perplexity = torch.exp(entropy)[valid].mean().item()
    assert dist.mean_perplexity(DistInfo(p), valid).item() == pytest.approx(want_perplexity)


def test_onehot_round_trip_and_dtypes():
    dist = Categorical(DIM)
    indexes = torch.tensor([[0, 3], [2, 1]])
    onehot = dist.to_onehot(indexes)
    assert onehot.shape == (2, 2, DIM) and onehot.dtype == torch.float
    assert torch.equal(onehot.argmax(-1), indexes)
    back = dist.from_onehot(onehot)
    assert back.dtype == torch.long and torch.equal(back, indexes)
    assert dist.from_onehot(onehot, dtype=torch.int16).dtype == torch.int16
    assert dist.to_onehot(indexes, dtype=torch.uint8).dtype == torch.uint8


def test_onehot_matches_a_loop_for_any_integer_dtype_and_rejects_out_of_range():
    dist = Categorical(DIM)
    indexes = torch.tensor([[0, 3, 1], [2, 2, 0]], dtype=torch.int32)
    onehot = dist.to_onehot(indexes)
    for t in range(2):
        for b in range(3):
            want = [1.0 if a == indexes[t, b] else 0.0 for a in range(DIM)]
            assert onehot[t, b].tolist() == want
    onehot[0, 0, 0] = 5.0  # the result is a new tensor, never the cached identity's row
    assert dist.to_onehot(torch.tensor(0)).tolist() == [1.0, 0.0, 0.0, 0.0]
    with pytest.raises(IndexError):
        dist.to_onehot(torch.tensor([DIM]))


def test_sample_with_noise_is_the_inverse_cdf():
    dist = Categorical(3)
    prob = torch.tensor([[0.2, 0.0, 0.8]]).expand(5, 3)
    noise = torch.tensor([0.0, 0.1999, 0.2, 0.5, 0.9999])
    # CDF 0.2, 0.2, 1.0: u < 0.2 -> 0; otherwise 2 (the zero-probability action never).
    assert dist.sample(DistInfo(prob), noise=noise).tolist() == [0, 0, 2, 2, 2]
