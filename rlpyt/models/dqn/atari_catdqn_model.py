"""Value-distribution model for Atari frames (CategoricalDQN with ``AtariCatDqnAgent``).

Box: Model. Built by ``AtariCatDqnAgent`` (and its target copy); called by the agent in
sampling and by CategoricalDQN (C51, Bellemare et al., 2017, "A Distributional Perspective on
Reinforcement Learning") on replayed minibatches. Invariant: ``p [..., A, n_atoms]``, a softmax
over the atoms (each action's probabilities sum to 1), leading dims ``[]``, ``[B]`` or ``[T, B]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F

from rlpyt.models.dqn.atari_dqn_model import dqn_conv, scale_pixels
from rlpyt.models.dqn.dueling import DistributionalDuelingHeadModel
from rlpyt.models.mlp import MlpModel
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims


class DistributionalHeadModel(torch.nn.Module):
    """An MLP giving ``n_atoms`` logits per action: ``[N, input_size] -> [N, A, n_atoms]``.

    Args:
        input_size: Size of the input features.
        layer_sizes: Hidden sizes (an int for one layer).
        output_size: Number of actions ``A``.
        n_atoms: Number of atoms.
    """

    def __init__(
        self,
        input_size: int,
        layer_sizes: int | Sequence[int],
        output_size: int,
        n_atoms: int,
    ):
        super().__init__()
        self.mlp = MlpModel(input_size, layer_sizes, output_size * n_atoms)
        self._output_size = output_size
        self._n_atoms = n_atoms

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (torch's name)
        """``input: [N, input_size]`` -> logits ``[N, A, n_atoms]``."""
        return self.mlp(input).view(-1, self._output_size, self._n_atoms)


def distributional_head(
    input_size: int,
    hidden_sizes: int | Sequence[int],
    output_size: int,
    n_atoms: int,
    dueling: bool,
) -> torch.nn.Module:
    """A :class:`DistributionalHeadModel`, or its dueling version when ``dueling``."""
    if dueling:
        return DistributionalDuelingHeadModel(input_size, hidden_sizes, output_size, n_atoms)
    return DistributionalHeadModel(input_size, hidden_sizes, output_size, n_atoms)


class AtariCatDqnModel(torch.nn.Module):
    """Conv trunk then a distributional (optionally dueling) head: atom probabilities.

    Args:
        image_shape: ``(C, H, W)``, e.g. ``(4, 104, 80)`` stacked frames.
        output_size: Number of discrete actions ``A``.
        n_atoms: Number of atoms of each action's value distribution.
        fc_sizes: Hidden size(s) of the head (an int for one layer).
        dueling: Use a :class:`~rlpyt.models.dqn.dueling.DistributionalDuelingHeadModel`.
        use_maxpool: See :class:`~rlpyt.models.conv2d.Conv2dModel`.
        channels: Conv channels (None -> ``[32, 64, 64]``).
        kernel_sizes: Conv kernels (None -> ``[8, 4, 3]``).
        strides: Conv strides (None -> ``[4, 2, 1]``).
        paddings: Conv paddings (None -> ``[0, 1, 1]``).
    """

    # prev_action and prev_reward are not inputs: agents skip one-hot coding them.
    uses_prev_action = False

    def __init__(
        self,
        image_shape: Sequence[int],
        output_size: int,
        n_atoms: int = 51,
        fc_sizes: int | Sequence[int] = 512,
        dueling: bool = False,
        use_maxpool: bool = False,
        channels: Sequence[int] | None = None,
        kernel_sizes: Sequence[int] | None = None,
        strides: Sequence[int] | None = None,
        paddings: Sequence[int] | None = None,
    ):
        super().__init__()
        self.conv, conv_out_size = dqn_conv(
            image_shape, use_maxpool, channels, kernel_sizes, strides, paddings
        )
        self.dueling = dueling
        self.n_atoms = n_atoms
        self.head = distributional_head(conv_out_size, fc_sizes, output_size, n_atoms, dueling)

    def forward(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """Atom probabilities; ``prev_action`` and ``prev_reward`` are unused.

        Args:
            observation: ``[..., C, H, W]`` uint8 (or float in ``[0, 255]``), leading ``[]``,
                ``[B]`` or ``[T, B]``.
            prev_action: Unused (``uses_prev_action = False``: the agent passes the action indexes).
            prev_reward: Unused.

        Returns:
            ``p [..., A, n_atoms]``, softmax over the atoms.
        """
        lead_dim, T, B, img_shape = infer_leading_dims(observation, 3)
        conv_out = self.conv(scale_pixels(observation.reshape(T * B, *img_shape)))
        p = F.softmax(self.head(conv_out.reshape(T * B, -1)), dim=-1)
        return restore_leading_dims(p, lead_dim, T, B)
