"""Feed-forward policy/value model for Atari frames (A2C/PPO with ``AtariFfAgent``)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F

from rlpyt.models.conv2d import Conv2dHeadModel
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims


def scale_image(image: torch.Tensor) -> torch.Tensor:
    """Pixels ``[0, 255]`` (uint8 or float) to float32 ``[0, 1]``; never modifies the input."""
    return image.to(torch.float32) * (1.0 / 255)


def atari_conv_head(
    image_shape: Sequence[int],
    fc_sizes: int | Sequence[int],
    use_maxpool: bool,
    channels: Sequence[int] | None,
    kernel_sizes: Sequence[int] | None,
    strides: Sequence[int] | None,
    paddings: Sequence[int] | None,
) -> Conv2dHeadModel:
    """The PG Atari trunk: conv 16-32, kernels 8-4, strides 4-2, paddings 0-1, then ReLU FC."""
    return Conv2dHeadModel(
        image_shape=image_shape,
        channels=channels or [16, 32],
        kernel_sizes=kernel_sizes or [8, 4],
        strides=strides or [4, 2],
        paddings=paddings or [0, 1],
        use_maxpool=use_maxpool,
        hidden_sizes=fc_sizes,  # the FC layer ends with its nonlinearity
    )


class AtariFfModel(torch.nn.Module):
    """Conv trunk and FC layer shared by a softmax policy head and a value head.

    Args:
        image_shape: ``(C, H, W)``, e.g. ``(4, 104, 80)`` stacked frames.
        output_size: Number of discrete actions ``A``.
        fc_sizes: Size(s) of the FC layer(s) after the convs.
        use_maxpool: See :class:`~rlpyt.models.conv2d.Conv2dModel`.
        channels: Output channels of each conv (None -> ``[16, 32]``).
        kernel_sizes: Kernel size of each conv (None -> ``[8, 4]``).
        strides: Stride of each conv (None -> ``[4, 2]``).
        paddings: Padding of each conv (None -> ``[0, 1]``).
    """

    # prev_action and prev_reward are not inputs: agents skip one-hot coding them.
    uses_prev_action = False

    def __init__(
        self,
        image_shape: Sequence[int],
        output_size: int,
        fc_sizes: int | Sequence[int] = 512,
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
        self.pi = torch.nn.Linear(self.conv.output_size, output_size)
        self.value = torch.nn.Linear(self.conv.output_size, 1)

    def forward(
        self, image: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy and value; ``prev_action`` and ``prev_reward`` are unused.

        Args:
            image: ``[..., C, H, W]`` uint8 (or float in ``[0, 255]``), leading ``[]``, ``[B]``
                or ``[T, B]``.
            prev_action: Unused.
            prev_reward: Unused.

        Returns:
            ``pi [..., A]`` (softmax probabilities) and ``v [...]``.
        """
        lead_dim, T, B, img_shape = infer_leading_dims(image, 3)
        fc_out = self.conv(scale_image(image).reshape(T * B, *img_shape))
        pi = F.softmax(self.pi(fc_out), dim=-1)
        v = self.value(fc_out).squeeze(-1)
        return restore_leading_dims((pi, v), lead_dim, T, B)
