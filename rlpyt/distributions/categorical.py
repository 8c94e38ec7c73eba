"""Categorical distribution over ``dim`` discrete actions, parameterized by probabilities.

Used by the categorical policy-gradient agents: the model outputs ``DistInfo(prob)`` with
``prob: [*lead, dim]`` summing to one over the last dim.
"""

from __future__ import annotations

import torch

from rlpyt.distributions.base import Distribution, ProbInfo
from rlpyt.distributions.discrete import DiscreteMixin
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.tensor import select_at_indexes

EPS = 1e-8  # Keeps log() finite and ratios defined where a probability is exactly zero.

DistInfo = namedarraytuple("DistInfo", ["prob"])


class Categorical(DiscreteMixin, Distribution[ProbInfo]):
    """Categorical distribution with the constructor of :class:`DiscreteMixin`.

    ``Categorical(dim, dtype=torch.long, onehot_dtype=torch.float)``. All methods take
    ``dist_info = DistInfo(prob)``, ``prob: [*lead, dim]`` with any leading dims, and return
    ``[*lead]``.
    """

    def _prob(self, dist_info: ProbInfo) -> torch.Tensor:
        prob = dist_info.prob
        if prob.shape[-1] != self.dim:
            raise ValueError(
                f"Categorical(dim={self.dim}) got prob of shape {tuple(prob.shape)}; the last "
                f"dim must be the number of actions ({self.dim})."
            )
        return prob

    def sample(self, dist_info: ProbInfo, noise: torch.Tensor | None = None) -> torch.Tensor:
        """Draw one action index per leading index: ``[*lead]`` of ``self.dtype``.

        Sampling is by inverse CDF from uniforms: the same distribution as
        ``torch.multinomial``, at about a third of its cost at sampler batch sizes (this is the
        sampler's hot path).

        Args:
            dist_info: ``DistInfo(prob [*lead, dim])``.
            noise: None (uniforms drawn from torch's generator), or pre-drawn uniforms in
                ``[0, 1)``, ``[*lead]``: the same noise always gives the same action (samplers
                use this to make sampling independent of how envs are split over processes).
        """
        prob = self._prob(dist_info)
        if noise is None:
            noise = torch.rand(prob.shape[:-1], device=prob.device)
        cdf = prob.cumsum(-1)
        # Scale by the row total so rounding in the probabilities cannot push u past the end.
        # (Out of place: ``noise.to`` may return the caller's tensor itself.)
        point = cdf[..., -1:] * noise.to(cdf).unsqueeze(-1)
        index = torch.searchsorted(cdf, point, right=True).squeeze_(-1).clamp_(max=self.dim - 1)
        return index if index.dtype == self.dtype else index.to(self.dtype)

    def kl(self, old_dist_info: ProbInfo, new_dist_info: ProbInfo) -> torch.Tensor:
        """KL(old || new) = sum_a p_old(a) (log p_old(a) - log p_new(a))."""
        p = self._prob(old_dist_info)
        q = self._prob(new_dist_info)
        return torch.sum(p * (torch.log(p + EPS) - torch.log(q + EPS)), dim=-1)

    def log_likelihood(self, indexes: torch.Tensor, dist_info: ProbInfo) -> torch.Tensor:
        """``log prob[indexes]``; ``indexes: [*lead]`` integer."""
        return torch.log(select_at_indexes(indexes, self._prob(dist_info)) + EPS)

    def likelihood_ratio(
        self, indexes: torch.Tensor, old_dist_info: ProbInfo, new_dist_info: ProbInfo
    ) -> torch.Tensor:
        """``p_new[indexes] / p_old[indexes]``, computed from probabilities directly."""
        new = select_at_indexes(indexes, self._prob(new_dist_info))
        old = select_at_indexes(indexes, self._prob(old_dist_info))
        return (new + EPS) / (old + EPS)

    def entropy(self, dist_info: ProbInfo) -> torch.Tensor:
        """``-sum_a p(a) log p(a)``."""
        prob = self._prob(dist_info)
        return -torch.sum(prob * torch.log(prob + EPS), dim=-1)
