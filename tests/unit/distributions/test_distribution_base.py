"""Distribution base class: unimplemented methods say so; derived methods use the subclass's."""

import pytest
import torch

from rlpyt.distributions.base import Distribution


class Constant(Distribution):
    """Toy distribution with log-likelihood 2 * x.sum(-1) and entropy x.sum(-1)."""

    def log_likelihood(self, x, dist_info):
        return dist_info * x.sum(-1)

    def entropy(self, dist_info):
        return dist_info


def test_unimplemented_methods_name_the_class():
    dist = Distribution()
    for call in (
        lambda: dist.dim,
        lambda: dist.sample(None),
        lambda: dist.kl(None, None),
        lambda: dist.log_likelihood(None, None),
        lambda: dist.entropy(None),
    ):
        with pytest.raises(NotImplementedError, match="Distribution does not"):
            call()


def test_derived_methods():
    dist = Constant()
    x = torch.tensor([[1.0, 2.0], [0.5, 0.5]])
    ratio = dist.likelihood_ratio(x, torch.tensor(1.0), torch.tensor(2.0))
    torch.testing.assert_close(ratio, torch.exp(x.sum(-1)))
    entropy = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    valid = torch.tensor([[True, False], [True, True]])
    assert dist.mean_entropy(entropy, valid).item() == pytest.approx(8.0 / 3)
    assert dist.mean_entropy(entropy).item() == pytest.approx(2.5)
    assert dist.mean_perplexity(entropy, valid).item() == pytest.approx(
        (torch.exp(torch.tensor([1.0, 3.0, 4.0]))).mean().item(), rel=1e-6
    )
    torch.testing.assert_close(dist.perplexity(entropy), torch.exp(entropy))
