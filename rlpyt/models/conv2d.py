"""Convolutional trunks for image observations.

Both models expect float input ``[N, C, H, W]`` (one leading batch dim); the Atari models above
them fold ``[T, B]`` into ``N`` and scale uint8 pixels first.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import torch

from rlpyt.models.mlp import MlpModel
from rlpyt.models.utils import conv2d_output_shape


class Conv2dModel(torch.nn.Module):
    """A stack of ``Conv2d -> nonlinearity`` layers (optionally each followed by a max-pool).

    Args:
        in_channels: Channels of the input image.
        channels: Output channels of each conv layer.
        kernel_sizes: Kernel size of each layer.
        strides: Stride of each layer.
        paddings: Padding of each layer (default all 0).
        nonlinearity: Module class applied after each conv.
        use_maxpool: Downsample with ``MaxPool2d(stride)`` after each conv instead of striding
            the conv (the convs then use stride 1).
        head_sizes: Accepted for rlpyt compatibility and ignored (rlpyt ignored it too); use
            :class:`Conv2dHeadModel` for an MLP head.
    """

    def __init__(
        self,
        in_channels: int,
        channels: Sequence[int],
        kernel_sizes: Sequence[int],
        strides: Sequence[int],
        paddings: Sequence[int] | None = None,
        nonlinearity: type[torch.nn.Module] = torch.nn.ReLU,
        use_maxpool: bool = False,
        head_sizes: Sequence[int] | None = None,
    ):
        super().__init__()
        if paddings is None:
            paddings = [0] * len(channels)
        if not len(channels) == len(kernel_sizes) == len(strides) == len(paddings):
            raise ValueError(
                "Conv2dModel needs one entry per layer in channels, kernel_sizes, strides and "
                f"paddings; got lengths {len(channels)}, {len(kernel_sizes)}, {len(strides)}, "
                f"{len(paddings)}."
            )
        if head_sizes is not None:
            warnings.warn(
                "Conv2dModel ignores head_sizes (as rlpyt did); use Conv2dHeadModel for a head.",
                stacklevel=2,
            )
        conv_strides = [1] * len(strides) if use_maxpool else list(strides)
        pool_strides = list(strides) if use_maxpool else [1] * len(strides)
        in_sizes = [in_channels, *channels[:-1]]
        layers: list[torch.nn.Module] = []
        for c_in, c_out, k, s, p, pool in zip(
            in_sizes, channels, kernel_sizes, conv_strides, paddings, pool_strides, strict=True
        ):
            layers.extend([torch.nn.Conv2d(c_in, c_out, k, s, p), nonlinearity()])
            if pool > 1:
                layers.append(torch.nn.MaxPool2d(pool))
        self.conv = torch.nn.Sequential(*layers)

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (torch's name)
        """``input: [N, C, H, W]`` float -> ``[N, channels[-1], h, w]``."""
        return self.conv(input)

    def conv_out_size(self, h: int, w: int, c: int | None = None) -> int:
        """Number of output features (``c * h * w``) for an ``h x w`` input image."""
        for layer in self.conv.children():
            if isinstance(layer, torch.nn.Conv2d | torch.nn.MaxPool2d):
                padding = layer.padding
                if isinstance(padding, str):  # these layers never pad by name ("same")
                    raise ValueError(f"conv_out_size: padding={padding!r} is not supported.")
                h, w = conv2d_output_shape(h, w, layer.kernel_size, layer.stride, padding)
            if isinstance(layer, torch.nn.Conv2d):
                c = layer.out_channels
        if c is None:
            raise ValueError("conv_out_size: no conv layer and no c given.")
        return h * w * c


class Conv2dHeadModel(torch.nn.Module):
    """:class:`Conv2dModel` followed by an :class:`MlpModel` on the flattened features.

    ``channels``, ``kernel_sizes``, ``strides``, ``paddings``, ``nonlinearity`` and
    ``use_maxpool`` are as in :class:`Conv2dModel`.

    Args:
        image_shape: ``(C, H, W)`` of the input.
        hidden_sizes: Hidden sizes of the MLP head (nonlinearity after each).
        output_size: Final linear layer of the head (no nonlinearity), or None.

    With neither ``hidden_sizes`` nor ``output_size`` the flattened conv features are the output.
    """

    def __init__(
        self,
        image_shape: Sequence[int],
        channels: Sequence[int],
        kernel_sizes: Sequence[int],
        strides: Sequence[int],
        hidden_sizes: int | Sequence[int] | None,
        output_size: int | None = None,
        paddings: Sequence[int] | None = None,
        nonlinearity: type[torch.nn.Module] = torch.nn.ReLU,
        use_maxpool: bool = False,
    ):
        super().__init__()
        c, h, w = image_shape
        self.conv = Conv2dModel(
            in_channels=c,
            channels=channels,
            kernel_sizes=kernel_sizes,
            strides=strides,
            paddings=paddings,
            nonlinearity=nonlinearity,
            use_maxpool=use_maxpool,
        )
        conv_out_size = self.conv.conv_out_size(h, w)
        self.head: torch.nn.Module
        if hidden_sizes or output_size:
            self.head = MlpModel(conv_out_size, hidden_sizes, output_size, nonlinearity)
            self._output_size = self.head.output_size
        else:
            self.head = torch.nn.Identity()
            self._output_size = conv_out_size

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (torch's name)
        """``input: [N, C, H, W]`` float -> ``[N, output_size]``."""
        return self.head(self.conv(input).reshape(input.shape[0], -1))

    @property
    def output_size(self) -> int:
        """Size of the output features."""
        return self._output_size
