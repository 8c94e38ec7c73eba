"""Q-value model for Atari frames (DQN with ``AtariDqnAgent``).

Box: Model. Built by ``AtariDqnAgent`` (and its target copy); called by the agent in sampling
(``step``) and by the DQN algorithm on replayed minibatches. Invariant: ``q [..., A]`` for
observations with leading dims ``[]``, ``[B]`` or ``[T, B]``; uint8 pixels are scaled to
``[0, 1]`` inside, with one conversion and no other copy of the input.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from rlpyt.models.conv2d import Conv2dModel
from rlpyt.models.dqn.dueling import DuelingHeadModel
from rlpyt.models.mlp import MlpModel
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims

DQN_CHANNELS = [32, 64, 64]
DQN_KERNEL_SIZES = [8, 4, 3]
DQN_STRIDES = [4, 2, 1]
DQN_PADDINGS = [0, 1, 1]


def scale_pixels(image: torch.Tensor) -> torch.Tensor:
    """Pixels ``[0, 255]`` to float32 ``[0, 1]``, never modifying the caller's tensor.

    A uint8 image is converted once and scaled in place in that new tensor (one allocation);
    a float image is scaled out of place.
    """
    if image.dtype == torch.uint8:
        return image.to(torch.float32).mul_(1.0 / 255)
    return image.to(torch.float32) * (1.0 / 255)


def dqn_conv(
    image_shape: Sequence[int],
    use_maxpool: bool,
    channels: Sequence[int] | None,
    kernel_sizes: Sequence[int] | None,
    strides: Sequence[int] | None,
    paddings: Sequence[int] | None,
) -> tuple[Conv2dModel, int]:
    """The DQN conv trunk (Nature DQN sizes by default) and its flattened output size.

    The conv weights are kept in channels-last memory format: the same values and outputs,
    but torch's CPU convolutions (oneDNN) then take their faster path, about a fifth less time
    per training step of batch 32 on this project's machine (docs/benchmarks.md).
    """
    c, h, w = image_shape
    conv = Conv2dModel(
        in_channels=c,
        channels=DQN_CHANNELS if channels is None else channels,
        kernel_sizes=DQN_KERNEL_SIZES if kernel_sizes is None else kernel_sizes,
        strides=DQN_STRIDES if strides is None else strides,
        paddings=DQN_PADDINGS if paddings is None else paddings,
        use_maxpool=use_maxpool,
    )
    conv.to(memory_format=torch.channels_last)  # type: ignore[call-overload]  # not in the stubs
    return conv, conv.conv_out_size(h, w)


class AtariDqnModel(torch.nn.Module):
    """Conv trunk then an MLP (or dueling) head giving one Q-value per action.

    Args:
        image_shape: ``(C, H, W)``, e.g. ``(4, 104, 80)`` stacked frames.
        output_size: Number of discrete actions ``A``.
        fc_sizes: Hidden size(s) of the head (an int for one layer).
        dueling: Use a :class:`~rlpyt.models.dqn.dueling.DuelingHeadModel`.
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
        self.head: torch.nn.Module
        if dueling:
            self.head = DuelingHeadModel(conv_out_size, fc_sizes, output_size)
        else:
            self.head = MlpModel(conv_out_size, fc_sizes, output_size)

    def forward(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """Q-values; ``prev_action`` and ``prev_reward`` are unused.

        Args:
            observation: ``[..., C, H, W]`` uint8 (or float in ``[0, 255]``), leading ``[]``,
                ``[B]`` or ``[T, B]``.
            prev_action: Unused (``uses_prev_action = False``: the agent passes the action indexes).
            prev_reward: Unused.

        Returns:
            ``q [..., A]``.
        """
        lead_dim, T, B, img_shape = infer_leading_dims(observation, 3)
        conv_out = self.conv(scale_pixels(observation.reshape(T * B, *img_shape)))
        q = self.head(conv_out.reshape(T * B, -1))
        return restore_leading_dims(q, lead_dim, T, B)
