"""Recurrent policy/value model for Atari frames (A2C/PPO with ``AtariLstmAgent``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F

from rlpyt.models.pg.atari_ff_model import atari_conv_head, scale_image
from rlpyt.models.utils import RnnState
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims


class AtariLstmModel(torch.nn.Module):
    """Conv trunk -> FC (ReLU) -> LSTM -> softmax policy head and value head.

    The LSTM input at each step is ``[fc_out, prev_action, prev_reward]``. ``use_maxpool``,
    ``channels``, ``kernel_sizes``, ``strides`` and ``paddings`` are as in :class:`AtariFfModel`.

    Args:
        image_shape: ``(C, H, W)``.
        output_size: Number of discrete actions ``A``.
        fc_sizes: Size(s) of the FC layer(s) after the convs.
        lstm_size: Hidden size ``H`` of the one-layer LSTM.
    """

    def __init__(
        self,
        image_shape: Sequence[int],
        output_size: int,
        fc_sizes: int | Sequence[int] = 512,
        lstm_size: int = 512,
        use_maxpool: bool = False,
        channels: Sequence[int] | None = None,
        kernel_sizes: Sequence[int] | None = None,
        strides: Sequence[int] | None = None,
        paddings: Sequence[int] | None = None,
    ):
        super().__init__()
        self.conv = atari_conv_head(
            image_shape, fc_sizes, use_maxpool, channels, kernel_sizes, strides, paddings
        )
        self.lstm = torch.nn.LSTM(self.conv.output_size + output_size + 1, lstm_size)
        self.pi = torch.nn.Linear(lstm_size, output_size)
        self.value = torch.nn.Linear(lstm_size, 1)

    def forward(
        self,
        image: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: tuple[torch.Tensor, ...] | None,
    ) -> tuple[torch.Tensor, torch.Tensor, Any]:
        """Run the LSTM over the ``T`` steps given.

        Args:
            image: ``[..., C, H, W]`` uint8, leading ``[]``, ``[B]`` or ``[T, B]``.
            prev_action: ``[..., A]`` float, already one-hot (the agent converts it).
            prev_reward: ``[...]``.
            init_rnn_state: ``RnnState(h, c)`` each ``[1, B, H]``, or None for zeros.

        Returns:
            ``pi [..., A]``, ``v [...]`` and the next ``RnnState`` (``[1, B, H]``, B=1 when the
            input had no leading dims).
        """
        lead_dim, T, B, img_shape = infer_leading_dims(image, 3)
        fc_out = self.conv(scale_image(image).reshape(T * B, *img_shape))
        lstm_input = torch.cat(
            [
                fc_out.reshape(T, B, -1),
                prev_action.reshape(T, B, -1).to(fc_out.dtype),
                prev_reward.reshape(T, B, 1).to(fc_out.dtype),
            ],
            dim=2,
        )
        # (h, c); cuDNN needs contiguous states (a transposed recorded state is not).
        hc = None if init_rnn_state is None else tuple(s.contiguous() for s in init_rnn_state)
        lstm_out, (hn, cn) = self.lstm(lstm_input, hc)
        lstm_flat = lstm_out.reshape(T * B, -1)
        pi = F.softmax(self.pi(lstm_flat), dim=-1)
        v = self.value(lstm_flat).squeeze(-1)
        pi, v = restore_leading_dims((pi, v), lead_dim, T, B)
        return pi, v, RnnState(h=hn, c=cn)
