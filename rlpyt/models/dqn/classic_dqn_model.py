"""Q-value and value-distribution MLPs for vector observations (classic control).

Box: Model. Built by ``ClassicDqnAgent`` / ``ClassicCatDqnAgent`` (CartPole, Acrobot,
LunarLander).
Invariant: observations ``[..., *observation_shape]`` (flattened inside, cast to float32 only
when they are not already) with leading dims ``[]``, ``[B]`` or ``[T, B]`` give ``q [..., A]``
(:class:`ClassicDqnModel`) or ``p [..., A, n_atoms]`` (:class:`ClassicCatDqnModel`).

With ``dueling=True`` all hidden layers but the last form a shared trunk, and the last hidden
size is that of each dueling stream (with a single hidden size the streams read the
observation directly).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from rlpyt.models.dqn.atari_catdqn_model import distributional_head
from rlpyt.models.dqn.dueling import DuelingHeadModel
from rlpyt.models.mlp import MlpModel
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims

DEFAULT_HIDDEN_SIZES = [256, 256]


def _hidden_list(hidden_sizes: int | Sequence[int] | None, dueling: bool) -> list[int]:
    if hidden_sizes is None:
        return list(DEFAULT_HIDDEN_SIZES)
    sizes = [hidden_sizes] if isinstance(hidden_sizes, int) else list(hidden_sizes)
    if dueling and not sizes:
        raise ValueError(
            "dueling=True needs at least one hidden size (the size of each dueling stream); "
            "got hidden_sizes=[]."
        )
    return sizes


class _ClassicTrunk(torch.nn.Module):
    """Flatten and cast the observation, then the shared hidden layers."""

    def __init__(
        self,
        observation_shape: Sequence[int],
        hidden_sizes: list[int],
        nonlinearity: type[torch.nn.Module],
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        self.mlp = MlpModel(int(np.prod(observation_shape)), hidden_sizes, None, nonlinearity)

    @property
    def output_size(self) -> int:
        """Size of the trunk features."""
        return self.mlp.output_size

    def flat_input(self, observation: torch.Tensor) -> tuple[torch.Tensor, tuple[int, int, int]]:
        """``[..., *obs_shape]`` -> ``[T * B, obs_size]`` float32 and ``(lead_dim, T, B)``."""
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        flat = observation.reshape(T * B, -1)
        if flat.dtype != torch.float32:
            flat = flat.to(torch.float32)
        return flat, (lead_dim, T, B)


class ClassicDqnModel(torch.nn.Module):
    """MLP (optionally with a dueling head) from a vector observation to Q-values.

    Args:
        observation_shape: Shape of one observation (flattened inside).
        output_size: Number of discrete actions ``A``.
        hidden_sizes: Hidden sizes (None -> ``[256, 256]``; an int for one layer).
        dueling: Dueling head over the last hidden size (see the module docstring).
        nonlinearity: Module class after each hidden layer.
    """

    # prev_action and prev_reward are not inputs: agents skip one-hot coding them.
    uses_prev_action = False

    def __init__(
        self,
        observation_shape: Sequence[int],
        output_size: int,
        hidden_sizes: int | Sequence[int] | None = None,
        dueling: bool = False,
        nonlinearity: type[torch.nn.Module] = torch.nn.ReLU,
    ):
        super().__init__()
        sizes = _hidden_list(hidden_sizes, dueling)
        self.dueling = dueling
        self.trunk = _ClassicTrunk(observation_shape, sizes[:-1] if dueling else [], nonlinearity)
        self.head: torch.nn.Module
        if dueling:
            self.head = DuelingHeadModel(self.trunk.output_size, sizes[-1:], output_size)
        else:
            self.head = MlpModel(self.trunk.output_size, sizes, output_size, nonlinearity)

    def forward(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """Q-values ``[..., A]``; ``prev_action`` and ``prev_reward`` are unused.

        Args:
            observation: ``[..., *observation_shape]``, leading ``[]``, ``[B]`` or ``[T, B]``.
            prev_action: Unused (``uses_prev_action = False``: the agent passes the action indexes).
            prev_reward: Unused.
        """
        flat, (lead_dim, T, B) = self.trunk.flat_input(observation)
        q = self.head(self.trunk.mlp(flat))
        return restore_leading_dims(q, lead_dim, T, B)


class ClassicCatDqnModel(torch.nn.Module):
    """MLP (optionally dueling) from a vector observation to per-action atom probabilities.

    Args:
        observation_shape: Shape of one observation (flattened inside).
        output_size: Number of discrete actions ``A``.
        n_atoms: Number of atoms of each action's value distribution.
        hidden_sizes: Hidden sizes (None -> ``[256, 256]``; an int for one layer).
        dueling: Dueling head over the last hidden size (see the module docstring).
        nonlinearity: Module class after each hidden layer of the trunk (the head uses ReLU).
    """

    # prev_action and prev_reward are not inputs: agents skip one-hot coding them.
    uses_prev_action = False

    def __init__(
        self,
        observation_shape: Sequence[int],
        output_size: int,
        n_atoms: int = 51,
        hidden_sizes: int | Sequence[int] | None = None,
        dueling: bool = False,
        nonlinearity: type[torch.nn.Module] = torch.nn.ReLU,
    ):
        super().__init__()
        sizes = _hidden_list(hidden_sizes, dueling)
        self.dueling = dueling
        self.n_atoms = n_atoms
        trunk_sizes = sizes[:-1] if sizes else []
        self.trunk = _ClassicTrunk(observation_shape, trunk_sizes, nonlinearity)
        self.head = distributional_head(
            self.trunk.output_size, sizes[-1:], output_size, n_atoms, dueling
        )

    def forward(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """Atom probabilities ``p [..., A, n_atoms]`` (softmax over atoms).

        Args:
            observation: ``[..., *observation_shape]``, leading ``[]``, ``[B]`` or ``[T, B]``.
            prev_action: Unused (``uses_prev_action = False``: the agent passes the action indexes).
            prev_reward: Unused.
        """
        flat, (lead_dim, T, B) = self.trunk.flat_input(observation)
        p = F.softmax(self.head(self.trunk.mlp(flat)), dim=-1)
        return restore_leading_dims(p, lead_dim, T, B)
