"""The Distribution interface that agents sample from and algorithms differentiate through.

Agents hold one Distribution; their models output a ``dist_info`` namedarraytuple (for example
``DistInfo(prob)`` or ``DistInfoStd(mean, log_std)``) with any leading dims (``[]``, ``[B]``,
``[T, B]``) and the distribution's event dim last. Every method maps those leading dims
through: per-sample quantities come back shaped like the leading dims.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

import torch

from rlpyt.utils.tensor import valid_mean


class ProbInfo(Protocol):
    """A ``dist_info`` with probabilities ``prob [*lead, dim]`` (``categorical.DistInfo``)."""

    @property
    def prob(self) -> torch.Tensor:
        """Probabilities over the last dim."""
        ...


class MeanInfo(Protocol):
    """A ``dist_info`` with a ``mean [*lead, dim]`` (``gaussian.DistInfo``, ``DistInfoStd``)."""

    @property
    def mean(self) -> torch.Tensor:
        """The mean action vector."""
        ...


InfoT = TypeVar("InfoT")
"""The ``dist_info`` type a distribution reads (a namedarraytuple record, or a tensor)."""


class Distribution(Generic[InfoT]):
    """Base class: the methods a concrete distribution may implement, and derived ones.

    Subclasses implement ``dim``, ``sample``, ``kl``, ``log_likelihood`` and ``entropy`` as
    they support them; ``likelihood_ratio``, ``perplexity`` and the ``mean_*`` reductions
    are derived here from those. ``InfoT`` is what the methods take as ``dist_info``
    (``Categorical``: :class:`ProbInfo`; ``Gaussian``: :class:`MeanInfo`; ``EpsilonGreedy``:
    the Q-values tensor); a bare ``Distribution`` takes any.
    """

    @property
    def dim(self) -> int:
        """Size of the event (last) dim: number of actions, or action vector length."""
        raise NotImplementedError(f"{type(self).__name__} does not define dim.")

    def sample(self, dist_info: InfoT) -> torch.Tensor:
        """Draw one sample per leading index of ``dist_info``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement sample.")

    def kl(self, old_dist_info: InfoT, new_dist_info: InfoT) -> torch.Tensor:
        """KL(old || new), shaped like the leading dims."""
        raise NotImplementedError(f"{type(self).__name__} does not implement kl.")

    def mean_kl(
        self, old_dist_info: InfoT, new_dist_info: InfoT, valid: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Mean of :meth:`kl` over the entries where ``valid`` (e.g. ``[T, B]``) is nonzero."""
        return valid_mean(self.kl(old_dist_info, new_dist_info), valid)

    def log_likelihood(self, x: torch.Tensor, dist_info: InfoT) -> torch.Tensor:
        """Log-probability (density) of ``x`` under ``dist_info``, shaped like the leading dims."""
        raise NotImplementedError(f"{type(self).__name__} does not implement log_likelihood.")

    def likelihood_ratio(
        self, x: torch.Tensor, old_dist_info: InfoT, new_dist_info: InfoT
    ) -> torch.Tensor:
        """``p_new(x) / p_old(x)`` (the importance ratio of PPO), shaped like the leading dims."""
        return torch.exp(
            self.log_likelihood(x, new_dist_info) - self.log_likelihood(x, old_dist_info)
        )

    def entropy(self, dist_info: InfoT) -> torch.Tensor:
        """Entropy, shaped like the leading dims."""
        raise NotImplementedError(f"{type(self).__name__} does not implement entropy.")

    def perplexity(self, dist_info: InfoT) -> torch.Tensor:
        """``exp(entropy)``: the effective number of equally likely outcomes."""
        return torch.exp(self.entropy(dist_info))

    def mean_entropy(self, dist_info: InfoT, valid: torch.Tensor | None = None) -> torch.Tensor:
        """Mean of :meth:`entropy` over the entries where ``valid`` is nonzero."""
        return valid_mean(self.entropy(dist_info), valid)

    def mean_perplexity(self, dist_info: InfoT, valid: torch.Tensor | None = None) -> torch.Tensor:
        """Mean of :meth:`perplexity` over the entries where ``valid`` is nonzero."""
        return valid_mean(self.perplexity(dist_info), valid)
