"""Epsilon-greedy action selection from Q-values (DQN) or from value distributions (C51).

DQN agents call :meth:`EpsilonGreedy.sample` on ``q: [*lead, dim]``; categorical DQN agents
call :meth:`CategoricalEpsilonGreedy.sample` on atom probabilities ``p: [*lead, dim, n_atoms]``.
Samplers with several environments may give each its own epsilon: a ``[B]`` vector, applied to
the last leading dim (the same epsilon at every time step of ``[T, B]`` inputs).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from rlpyt.distributions.base import Distribution
from rlpyt.distributions.discrete import DiscreteMixin

EpsilonLike = float | Sequence[float] | torch.Tensor


class EpsilonGreedy(DiscreteMixin, Distribution[torch.Tensor]):
    """Greedy argmax, replaced by a uniformly random action with probability epsilon.

    The random action is drawn over all ``dim`` actions, so it may coincide with the greedy
    one: the probability of a non-greedy action is ``epsilon * (dim - 1) / dim``.

    Args:
        epsilon: Scalar, or a ``[B]`` vector (one per environment).
        dim: Number of actions.
        dtype: Dtype of the returned action indexes.
        onehot_dtype: Dtype of one-hot codes.
    """

    def __init__(
        self,
        epsilon: EpsilonLike = 1,
        *,
        dim: int,
        dtype: torch.dtype = torch.long,
        onehot_dtype: torch.dtype = torch.float,
    ):
        super().__init__(dim=dim, dtype=dtype, onehot_dtype=onehot_dtype)
        self._epsilon = epsilon

    @property
    def epsilon(self) -> EpsilonLike:
        """The current epsilon (scalar or ``[B]``)."""
        return self._epsilon

    def set_epsilon(self, epsilon: EpsilonLike) -> None:
        """Set epsilon: a scalar, or a ``[B]`` vector with one value per environment."""
        self._epsilon = epsilon

    def sample(self, q: torch.Tensor, *, noise: torch.Tensor | None = None) -> torch.Tensor:
        """Epsilon-greedy action indexes from ``q: [*lead, dim]``; returns ``[*lead]``.

        Args:
            q: Q-values ``[*lead, dim]``.
            noise: None (draws from torch's generator), or pre-drawn uniforms in ``[0, 1)``,
                ``[*lead, 2]``: an env explores when ``noise[..., 0] < epsilon`` and then takes
                action ``floor(noise[..., 1] * dim)``. The same noise always gives the same
                action (samplers use this to make sampling independent of the worker split).
        """
        greedy = torch.argmax(q, dim=-1)
        epsilon = torch.as_tensor(self._epsilon, dtype=torch.float32, device=q.device)
        per_env_fits = greedy.dim() >= 1 and tuple(epsilon.shape) == tuple(greedy.shape[-1:])
        if epsilon.dim() > 0 and not per_env_fits:
            raise ValueError(
                f"epsilon of shape {tuple(epsilon.shape)} does not fit Q-values of shape "
                f"{tuple(q.shape)}: give a scalar or one value per environment (the last "
                "leading dim, B)."
            )
        if noise is None:
            explore = torch.rand(greedy.shape, device=q.device) < epsilon
            random_action = torch.randint_like(greedy, high=q.shape[-1])
        else:
            if tuple(noise.shape) != (*greedy.shape, 2):
                raise ValueError(
                    f"noise of shape {tuple(noise.shape)} does not fit Q-values of shape "
                    f"{tuple(q.shape)}: give two uniforms per action choice, "
                    f"{(*greedy.shape, 2)}."
                )
            noise = noise.to(q.device)
            explore = noise[..., 0] < epsilon
            random_action = (noise[..., 1] * q.shape[-1]).long().clamp_(max=q.shape[-1] - 1)
        return torch.where(explore, random_action, greedy).to(self.dtype)


class CategoricalEpsilonGreedy(EpsilonGreedy):
    """Epsilon-greedy over the expected values of per-action value distributions.

    ``Q(a) = sum_i p(a, i) * z_i`` over the atoms ``z`` of the distributional support, then
    :meth:`EpsilonGreedy.sample`.

    Args:
        z: ``[n_atoms]`` support values (or None, then set with :meth:`set_z` or pass to
            :meth:`sample`).
        epsilon: As :class:`EpsilonGreedy`.
        dim: Number of actions.
        dtype: Dtype of the returned action indexes.
        onehot_dtype: Dtype of one-hot codes.
    """

    def __init__(
        self,
        z: torch.Tensor | None = None,
        epsilon: EpsilonLike = 1,
        *,
        dim: int,
        dtype: torch.dtype = torch.long,
        onehot_dtype: torch.dtype = torch.float,
    ):
        super().__init__(epsilon, dim=dim, dtype=dtype, onehot_dtype=onehot_dtype)
        self.z = z

    def set_z(self, z: torch.Tensor) -> None:
        """Set the ``[n_atoms]`` support values."""
        self.z = z

    def sample(
        self, p: torch.Tensor, z: torch.Tensor | None = None, *, noise: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Actions from atom probabilities ``p: [*lead, dim, n_atoms]``; returns ``[*lead]``.

        Args:
            p: Atom probabilities ``[*lead, dim, n_atoms]``.
            z: ``[n_atoms]`` support for this call (None: the stored one).
            noise: As :meth:`EpsilonGreedy.sample`, ``[*lead, 2]``.
        """
        z = self.z if z is None else z
        if z is None:
            raise ValueError(
                "CategoricalEpsilonGreedy has no support z: pass z=... to the constructor, "
                "call set_z(z), or give z to sample()."
            )
        q = torch.tensordot(p, z.to(p), dims=1)
        return super().sample(q, noise=noise)
