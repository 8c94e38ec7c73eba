"""Dueling heads: Q from a state-value stream and a mean-centred advantage stream.

Box: Model. The DQN-family models (``AtariDqnModel``, ``AtariCatDqnModel``, the classic MLP
models) put one of these on their trunk features when built with ``dueling=True``. Invariant:
``Q(s, a) = V(s) + A(s, a) - mean_a A(s, a)`` (Wang et al., 2016, "Dueling Network
Architectures for Deep Reinforcement Learning"), and the gradient flowing back into the trunk
is scaled by ``grad_scale`` (1/sqrt(2) by default: the two streams both send gradient into it).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from rlpyt.models.mlp import MlpModel
from rlpyt.models.utils import scale_grad

DEFAULT_GRAD_SCALE = 2 ** (-1 / 2)


class DuelingHeadModel(torch.nn.Module):
    """Value and advantage MLP streams over the same features, combined into Q.

    The advantage output layer has one bias shared by all actions (``advantage_bias``), as in
    rlpyt; it cancels in the centring, so it only matters to code reading :meth:`advantage`.

    Args:
        input_size: Size of the trunk features.
        hidden_sizes: Hidden sizes of each stream (an int for one layer).
        output_size: Number of actions ``A``.
        grad_scale: Factor on the gradient into the trunk features.
    """

    def __init__(
        self,
        input_size: int,
        hidden_sizes: int | Sequence[int],
        output_size: int,
        grad_scale: float = DEFAULT_GRAD_SCALE,
    ):
        super().__init__()
        self.advantage_hidden = MlpModel(input_size, hidden_sizes)
        self.advantage_out = torch.nn.Linear(
            self.advantage_hidden.output_size, output_size, bias=False
        )
        self.advantage_bias = torch.nn.Parameter(torch.zeros(1))
        self.value = MlpModel(input_size, hidden_sizes, output_size=1)
        self._grad_scale = grad_scale

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (torch's name)
        """``input: [N, input_size]`` -> ``q [N, A]``."""
        features = scale_grad(input, self._grad_scale)
        advantage = self.advantage(features)
        return self.value(features) + (advantage - advantage.mean(dim=-1, keepdim=True))

    def advantage(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (torch's name)
        """Uncentred advantages ``[N, A]`` (no gradient scaling here)."""
        return self.advantage_out(self.advantage_hidden(input)) + self.advantage_bias


class DistributionalDuelingHeadModel(torch.nn.Module):
    """Dueling head for categorical DQN: value and advantage logits per atom.

    ``logits(a, i) = V(i) + A(a, i) - mean_a A(a, i)``; the model applies the softmax over
    atoms. The advantage layer's bias is one per atom, shared by all actions (as rlpyt).

    Args:
        input_size: Size of the trunk features.
        hidden_sizes: Hidden sizes of each stream (an int for one layer).
        output_size: Number of actions ``A``.
        n_atoms: Number of atoms of the value distribution.
        grad_scale: Factor on the gradient into the trunk features.
    """

    def __init__(
        self,
        input_size: int,
        hidden_sizes: int | Sequence[int],
        output_size: int,
        n_atoms: int,
        grad_scale: float = DEFAULT_GRAD_SCALE,
    ):
        super().__init__()
        self.advantage_hidden = MlpModel(input_size, hidden_sizes)
        self.advantage_out = torch.nn.Linear(
            self.advantage_hidden.output_size, output_size * n_atoms, bias=False
        )
        self.advantage_bias = torch.nn.Parameter(torch.zeros(n_atoms))
        self.value = MlpModel(input_size, hidden_sizes, output_size=n_atoms)
        self._output_size = output_size
        self._n_atoms = n_atoms
        self._grad_scale = grad_scale

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (torch's name)
        """``input: [N, input_size]`` -> logits ``[N, A, n_atoms]``."""
        features = scale_grad(input, self._grad_scale)
        advantage = self.advantage(features)
        value = self.value(features).unsqueeze(-2)  # [N, 1, n_atoms]
        return value + (advantage - advantage.mean(dim=-2, keepdim=True))

    def advantage(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (torch's name)
        """Uncentred advantage logits ``[N, A, n_atoms]`` (no gradient scaling here)."""
        out = self.advantage_out(self.advantage_hidden(input))
        return out.view(-1, self._output_size, self._n_atoms) + self.advantage_bias
