"""Diagonal Gaussian over continuous action vectors, optionally clipped or tanh-squashed.

Used by the Gaussian policy-gradient agents (``DistInfoStd(mean, log_std)`` from the model),
by DDPG/TD3 (``DistInfo(mean)`` with a fixed exploration ``std``) and by SAC (tanh squashing
and :meth:`Gaussian.sample_loglikelihood`). Leading dims ``[*lead]`` are arbitrary; the action
dim is last.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from rlpyt.distributions.base import Distribution, MeanInfo
from rlpyt.utils.collections import namedarraytuple

EPS = 1e-8  # Keeps KL finite when a standard deviation is exactly zero.
LOG_2PI = math.log(2 * math.pi)

DistInfo = namedarraytuple("DistInfo", ["mean"])
DistInfoStd = namedarraytuple("DistInfoStd", ["mean", "log_std"])

StdLike = float | Sequence[float] | torch.Tensor | None


def _tanh_log_abs_derivative(x: torch.Tensor) -> torch.Tensor:
    """``log(1 - tanh(x)^2)``, elementwise, without cancellation for large ``|x|``."""
    return 2 * (math.log(2) - x - F.softplus(-2 * x))


class Gaussian(Distribution[MeanInfo]):
    """Multivariate Gaussian with independent dims (diagonal covariance).

    The standard deviation comes from ``dist_info.log_std`` unless ``std`` is set, in which
    case ``std`` overrides it everywhere (DDPG/TD3 exploration noise; ``std=0`` gives the mean
    for deterministic evaluation). ``min_std`` / ``max_std`` clamp the std taken from
    ``dist_info`` (not an explicit ``std``), and the clamp is used in every formula.

    Sampling is reparameterized (``mean + std * N(0, 1)``) so gradients flow into ``mean`` and
    ``log_std``. ``noise_clip`` clamps the noise, ``clip`` the sample, to ``[-c, c]``; neither
    is accounted for in the formulas. ``squash`` maps samples to ``squash * tanh(sample)``;
    :meth:`log_likelihood` then includes the change-of-variables term and expects the
    *pre-squash* sample; KL and entropy have no closed form and raise. ``clip`` and ``squash``
    are mutually exclusive.

    Args:
        dim: Action vector length.
        std: None, or a fixed std: a scalar or ``dim`` values.
        clip: None, or bound ``c > 0`` for clipping samples.
        noise_clip: None, or bound for clipping the sampled noise.
        min_std: None, or the lower clamp on ``exp(log_std)``.
        max_std: None, or the upper clamp on ``exp(log_std)``.
        squash: None, or the scale ``> 0`` of the tanh squashing.
    """

    def __init__(
        self,
        dim: int,
        std: StdLike = None,
        clip: float | None = None,
        noise_clip: float | None = None,
        min_std: float | None = None,
        max_std: float | None = None,
        squash: float | None = None,
    ):
        self._dim = dim
        self.std: torch.Tensor | None = None
        self.set_std(std)
        self.clip = clip
        self.noise_clip = noise_clip
        self.min_std = min_std
        self.max_std = max_std
        self.min_log_std = math.log(min_std) if min_std is not None else None
        self.max_log_std = math.log(max_std) if max_std is not None else None
        self.squash = squash
        self._check_clip_squash()

    @property
    def dim(self) -> int:
        """Action vector length."""
        return self._dim

    # Settings, changed by agents between sampling and evaluation.

    def set_std(self, std: StdLike) -> None:
        """Fix the std (scalar or ``dim`` values), or None to use ``dist_info.log_std``."""
        if std is not None:
            std = torch.as_tensor(std, dtype=torch.float32).reshape(-1)
            if std.numel() == 1:
                std = std.expand(self.dim).clone()
            if std.numel() != self.dim:
                raise ValueError(
                    f"Gaussian(dim={self.dim}): std must be a scalar or have {self.dim} "
                    f"values, got {std.numel()}."
                )
        self.std = std

    def set_clip(self, clip: float | None) -> None:
        """Bound for clipping samples (None: no clipping)."""
        self.clip = clip
        self._check_clip_squash()

    def set_squash(self, squash: float | None) -> None:
        """Scale of the tanh squashing (None: no squashing)."""
        self.squash = squash
        self._check_clip_squash()

    def set_noise_clip(self, noise_clip: float | None) -> None:
        """Bound for clipping the sampled noise (None: no clipping)."""
        self.noise_clip = noise_clip

    def _check_clip_squash(self) -> None:
        if self.clip is not None and self.squash is not None:
            raise ValueError(
                f"Gaussian: clip={self.clip} and squash={self.squash} are mutually exclusive "
                "(tanh squashing already bounds the sample); set one of them to None."
            )

    def _check_unsquashed(self, what: str) -> None:
        if self.squash is not None:
            raise NotImplementedError(
                f"Gaussian.{what} has no closed form for a tanh-squashed Gaussian "
                f"(squash={self.squash}); estimate it from sample_loglikelihood() instead, "
                "or call set_squash(None)."
            )

    # Parameters.

    def _log_std(self, dist_info: MeanInfo) -> torch.Tensor:
        """``[*lead, dim]`` log std: the fixed ``std`` if set, else ``dist_info``'s, clamped."""
        mean = dist_info.mean
        if self.std is not None:
            return torch.log(self.std.to(mean)).expand_as(mean)
        log_std = getattr(dist_info, "log_std", None)
        if log_std is None:
            raise ValueError(
                "Gaussian has no std: construct it with std=..., call set_std(), or pass "
                "DistInfoStd(mean, log_std) instead of DistInfo(mean)."
            )
        if self.min_log_std is not None or self.max_log_std is not None:
            log_std = torch.clamp(log_std, min=self.min_log_std, max=self.max_log_std)
        return log_std

    def _std(self, dist_info: MeanInfo) -> torch.Tensor:
        if self.std is not None:  # Direct, so that std = 0 stays exactly 0.
            return self.std.to(dist_info.mean).expand_as(dist_info.mean)
        return torch.exp(self._log_std(dist_info))

    # Formulas.

    def kl(self, old_dist_info: MeanInfo, new_dist_info: MeanInfo) -> torch.Tensor:
        """KL(old || new), ``[*lead]``, summed over the action dims."""
        self._check_unsquashed("kl")
        squared_mean_diff = (old_dist_info.mean - new_dist_info.mean) ** 2
        if self.std is not None:
            return torch.sum(squared_mean_diff / (2 * self._std(old_dist_info) ** 2 + EPS), dim=-1)
        old_log_std = self._log_std(old_dist_info)
        new_log_std = self._log_std(new_dist_info)
        old_var, new_var = torch.exp(2 * old_log_std), torch.exp(2 * new_log_std)
        vals = (squared_mean_diff + old_var - new_var) / (2 * new_var + EPS)
        return torch.sum(vals + new_log_std - old_log_std, dim=-1)

    def entropy(self, dist_info: MeanInfo) -> torch.Tensor:
        """Differential entropy, ``[*lead]``."""
        self._check_unsquashed("entropy")
        return torch.sum(self._log_std(dist_info) + 0.5 * (LOG_2PI + 1), dim=-1)

    def log_likelihood(self, locations: torch.Tensor, dist_info: MeanInfo) -> torch.Tensor:
        """Log density of ``locations: [*lead, dim]``, returned ``[*lead]``.

        With ``squash`` set, ``locations`` are the *pre-squash* values ``x`` and the result is
        the log density of ``squash * tanh(x)``: the Gaussian term minus
        ``sum log(squash * (1 - tanh(x)^2))``.
        """
        mean = dist_info.mean
        log_std = self._log_std(dist_info)
        z = (locations - mean) * torch.exp(-log_std)
        logli = -torch.sum(log_std + 0.5 * z**2, dim=-1) - 0.5 * mean.shape[-1] * LOG_2PI
        if self.squash is not None:
            log_det = math.log(self.squash) + _tanh_log_abs_derivative(locations)
            logli = logli - torch.sum(log_det, dim=-1)
        return logli

    # Sampling.

    def _raw_sample(self, dist_info: MeanInfo, noise: torch.Tensor | None = None) -> torch.Tensor:
        """``mean + std * noise`` with the noise clipped, before sample clipping or squashing.

        ``noise``: standard normal ``[*lead, dim]``; None draws it from torch's generator.
        """
        mean = dist_info.mean
        normal = torch.randn_like(mean) if noise is None else noise.to(mean)
        scaled = self._std(dist_info) * normal
        if self.noise_clip is not None:
            scaled = torch.clamp(scaled, -self.noise_clip, self.noise_clip)
        return mean + scaled

    def _finish_sample(self, raw: torch.Tensor) -> torch.Tensor:
        if self.squash is not None:
            return self.squash * torch.tanh(raw)
        if self.clip is not None:
            return torch.clamp(raw, -self.clip, self.clip)
        return raw

    def sample(self, dist_info: MeanInfo, noise: torch.Tensor | None = None) -> torch.Tensor:
        """Draw one action vector per leading index: ``[*lead, dim]``, clipped or squashed.

        Args:
            dist_info: ``DistInfo(mean)`` or ``DistInfoStd(mean, log_std)``, ``[*lead, dim]``.
            noise: None (draw from torch's generator), or pre-drawn standard normals
                ``[*lead, dim]`` (samplers use this to make sampling independent of how envs
                are split over processes).
        """
        return self._finish_sample(self._raw_sample(dist_info, noise))

    def sample_loglikelihood(self, dist_info: MeanInfo) -> tuple[torch.Tensor, torch.Tensor]:
        """Sample and its log-likelihood in one pass (SAC's policy loss differentiates both).

        Returns:
            ``(sample, logli)``: the final (squashed or clipped) ``[*lead, dim]`` sample and
            the ``[*lead]`` log density of the pre-squash sample, including the tanh
            correction when squashing.
        """
        raw = self._raw_sample(dist_info)
        return self._finish_sample(raw), self.log_likelihood(raw, dist_info)
