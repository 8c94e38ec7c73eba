"""Recurrent Q-value model for vector observations (R2D1 with ``ClassicR2d1Agent``).

Box: Model. Built by
``ClassicR2d1Agent`` / ``ClassicR2d1AlternatingAgent`` (CartPole without velocities, other
partially observed classic-control tasks). Invariant: as ``AtariR2d1Model``, with vector
observations ``[..., *observation_shape]`` (flattened, cast to float32) in place of frames:
``q [..., A]`` and ``RnnState(h, c)`` with ``[1, B, lstm_size]`` fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from rlpyt.models.dqn.atari_r2d1_model import LstmQHead
from rlpyt.models.mlp import MlpModel
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims

DEFAULT_HIDDEN_SIZES = [64]


class ClassicR2d1Model(torch.nn.Module):
    """MLP -> LSTM (with previous action and reward) -> Q head (MLP or dueling).

    Args:
        observation_shape: Shape of one observation (flattened inside).
        output_size: Number of discrete actions ``A``.
        hidden_sizes: MLP before the LSTM (None -> ``[64]``; ``[]`` feeds the observation
            straight to the LSTM).
        lstm_size: Hidden size of the one-layer LSTM.
        head_size: Hidden size of the head (of each stream when dueling).
        dueling: Dueling head.
        nonlinearity: Module class after each MLP layer.
    """

    def __init__(
        self,
        observation_shape: Sequence[int],
        output_size: int,
        hidden_sizes: int | Sequence[int] | None = None,
        lstm_size: int = 64,
        head_size: int = 64,
        dueling: bool = False,
        nonlinearity: type[torch.nn.Module] = torch.nn.ReLU,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        sizes = DEFAULT_HIDDEN_SIZES if hidden_sizes is None else hidden_sizes
        self.mlp = MlpModel(int(np.prod(observation_shape)), sizes, None, nonlinearity)
        self.dueling = dueling
        self.core = LstmQHead(self.mlp.output_size, output_size, lstm_size, head_size, dueling)

    def forward(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: tuple[torch.Tensor, ...] | None,
    ) -> tuple[torch.Tensor, Any]:
        """Run the LSTM over the ``T`` steps given.

        Args:
            observation: ``[..., *observation_shape]``, leading ``[]``, ``[B]`` or ``[T, B]``.
            prev_action: ``[..., A]`` float, already one-hot (the agent converts it).
            prev_reward: ``[...]``.
            init_rnn_state: ``RnnState(h, c)`` each ``[1, B, lstm_size]``, or None for zeros.

        Returns:
            ``q [..., A]`` and the next ``RnnState`` (``[1, B, lstm_size]`` fields).
        """
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        flat = observation.reshape(T * B, -1).to(torch.float32)
        q, next_state = self.core(self.mlp(flat), prev_action, prev_reward, init_rnn_state, T, B)
        return restore_leading_dims(q, lead_dim, T, B), next_state
