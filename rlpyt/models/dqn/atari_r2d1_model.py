"""Recurrent Q-value model for Atari frames (R2D1 with ``AtariR2d1Agent``).

Box: Model. Built by ``AtariR2d1Agent`` / ``AtariR2d1AlternatingAgent`` (and their target
copies); called by the agent one step at a time while sampling and by ``R2D1`` over replayed
sequences ``[T, B]``. Invariant: ``(observation [..., C, H, W] uint8, prev_action one-hot
[..., A], prev_reward [...], init_rnn_state)`` gives ``(q [..., A], RnnState(h, c))`` with
state fields ``[1, B, lstm_size]`` (cuDNN layout; ``None`` in means zeros), leading dims
``[]``, ``[B]`` or ``[T, B]``.

:class:`LstmQHead` (the LSTM and the Q head over per-step features) is shared with
``ClassicR2d1Model``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from rlpyt.models.dqn.atari_dqn_model import dqn_conv, scale_pixels
from rlpyt.models.dqn.dueling import DuelingHeadModel
from rlpyt.models.mlp import MlpModel
from rlpyt.models.utils import RnnState
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims


class LstmQHead(torch.nn.Module):
    """One-layer LSTM over ``[features, prev_action one-hot, prev_reward]``, then a Q head.

    Args:
        feature_size: Size of the per-step features fed to the LSTM.
        output_size: Number of actions ``A``.
        lstm_size: Hidden size ``H`` of the LSTM.
        head_size: Hidden size(s) of the head (an int for one layer).
        dueling: A :class:`DuelingHeadModel` head (else an MLP).
    """

    def __init__(
        self,
        feature_size: int,
        output_size: int,
        lstm_size: int,
        head_size: int | Sequence[int],
        dueling: bool,
    ):
        super().__init__()
        self.lstm = torch.nn.LSTM(feature_size + output_size + 1, lstm_size)
        self.head: torch.nn.Module
        if dueling:
            self.head = DuelingHeadModel(lstm_size, head_size, output_size)
        else:
            self.head = MlpModel(lstm_size, head_size, output_size)

    def forward(
        self,
        features: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: tuple[torch.Tensor, ...] | None,
        T: int,  # noqa: N803
        B: int,  # noqa: N803
    ) -> tuple[torch.Tensor, Any]:
        """Q-values ``[T * B, A]`` and the next ``RnnState`` (``[1, B, H]`` fields).

        Args:
            features: ``[T * B, feature_size]``, time-major.
            prev_action: ``T * B`` one-hot rows (any leading shape).
            prev_reward: ``T * B`` values (any shape).
            init_rnn_state: ``RnnState(h, c)`` each ``[1, B, H]``, or None for zeros.
            T: Time steps.
            B: Sequences.
        """
        lstm_input = torch.cat(
            [
                features.reshape(T, B, -1),
                prev_action.reshape(T, B, -1).to(features.dtype),
                prev_reward.reshape(T, B, 1).to(features.dtype),
            ],
            dim=2,
        )
        # cuDNN wants contiguous states; a state transposed from a samples buffer is not.
        hc = None if init_rnn_state is None else tuple(s.contiguous() for s in init_rnn_state)
        lstm_out, (hn, cn) = self.lstm(lstm_input, hc)
        q = self.head(lstm_out.reshape(T * B, -1))
        return q, RnnState(h=hn, c=cn)


class AtariR2d1Model(torch.nn.Module):
    """Conv trunk -> FC (ReLU) -> LSTM (with previous action and reward) -> Q head.

    Args:
        image_shape: ``(C, H, W)``, e.g. ``(4, 104, 80)`` stacked frames.
        output_size: Number of discrete actions ``A``.
        fc_size: Size of the FC layer after the convs.
        lstm_size: Hidden size of the one-layer LSTM.
        head_size: Hidden size of the head (of each stream when dueling).
        dueling: Dueling head (value and mean-centred advantage streams).
        use_maxpool: See :class:`~rlpyt.models.conv2d.Conv2dModel`.
        channels: Conv channels (None -> ``[32, 64, 64]``).
        kernel_sizes: Conv kernels (None -> ``[8, 4, 3]``).
        strides: Conv strides (None -> ``[4, 2, 1]``).
        paddings: Conv paddings (None -> ``[0, 1, 1]``).
    """

    def __init__(
        self,
        image_shape: Sequence[int],
        output_size: int,
        fc_size: int = 512,
        lstm_size: int = 512,
        head_size: int = 512,
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
        self.fc = torch.nn.Linear(conv_out_size, fc_size)
        self.dueling = dueling
        self.core = LstmQHead(fc_size, output_size, lstm_size, head_size, dueling)

    def forward(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: tuple[torch.Tensor, ...] | None,
    ) -> tuple[torch.Tensor, Any]:
        """Run the LSTM over the ``T`` steps given.

        Args:
            observation: ``[..., C, H, W]`` uint8 (or float in ``[0, 255]``), leading ``[]``,
                ``[B]`` or ``[T, B]``.
            prev_action: ``[..., A]`` float, already one-hot (the agent converts it).
            prev_reward: ``[...]``.
            init_rnn_state: ``RnnState(h, c)`` each ``[1, B, lstm_size]``, or None for zeros.

        Returns:
            ``q [..., A]`` and the next ``RnnState`` (``[1, B, lstm_size]`` fields; B=1 when
            the input had no leading dims).
        """
        lead_dim, T, B, img_shape = infer_leading_dims(observation, 3)
        conv_out = self.conv(scale_pixels(observation.reshape(T * B, *img_shape)))
        features = torch.relu(self.fc(conv_out.reshape(T * B, -1)))
        q, next_state = self.core(features, prev_action, prev_reward, init_rnn_state, T, B)
        return restore_leading_dims(q, lead_dim, T, B), next_state
