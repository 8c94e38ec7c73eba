"""Small helpers shared by models and agents: conv arithmetic, gradient scaling, state copies.

``RnnState(h, c)`` is the LSTM state every recurrent model returns (PG and R2D1 alike), each
field ``[N, B, H]`` (cuDNN's layout); the model modules that rlpyt named re-export it.

Agents use :func:`update_state_dict` for target networks and parameter sync between the trained
model and a shared CPU copy; :func:`strip_ddp_state_dict` makes state dicts saved from a
``DistributedDataParallel`` wrapper load into the bare model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch

from rlpyt.utils.collections import namedarraytuple

RnnState = namedarraytuple("RnnState", ["h", "c"])  # each [N, B, H] (cuDNN layout)

DDP_PREFIX = "module."


def _pair(value: int | Sequence[int]) -> tuple[int, int]:
    if isinstance(value, Sequence):
        return int(value[0]), int(value[1])
    return int(value), int(value)


def conv2d_output_shape(
    h: int,
    w: int,
    kernel_size: int | Sequence[int] = 1,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
) -> tuple[int, int]:
    """Height and width after a ``Conv2d`` (or ``MaxPool2d``) with these settings.

    Each setting is an int or an ``(h, w)`` pair, as torch accepts them.

    Returns:
        ``(h_out, w_out)``, following torch's floor formula.
    """
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    h_out = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    w_out = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    return h_out, w_out


class ScaleGrad(torch.autograd.Function):
    """Identity in the forward pass; multiplies the gradient by ``scale`` in the backward pass."""

    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor, scale: float) -> torch.Tensor:  # noqa: D102
        ctx.scale = scale
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:  # noqa: D102
        return grad_output * ctx.scale, None


def scale_grad(tensor: torch.Tensor, scale: float) -> torch.Tensor:
    """Return ``tensor`` unchanged, but scale the gradient flowing back through it by ``scale``."""
    return ScaleGrad.apply(tensor, scale)


def strip_ddp_state_dict(state_dict: Mapping[str, Any]) -> dict[str, Any]:
    """Drop the leading ``module.`` that ``DistributedDataParallel`` adds to every key.

    Keys without the prefix are kept as they are, so the function is safe on any state dict.
    """
    n = len(DDP_PREFIX)
    return {(k[n:] if k.startswith(DDP_PREFIX) else k): v for k, v in state_dict.items()}


def update_state_dict(
    model: torch.nn.Module,
    state_dict: Mapping[str, Any],
    tau: float = 1,
    strip_ddp: bool = True,
) -> None:
    """Copy ``state_dict`` into ``model`` (``tau == 1``) or move towards it (``0 < tau < 1``).

    The soft update is ``new = tau * state_dict + (1 - tau) * current`` for every floating-point
    entry; integer buffers (counters) are copied. The update is in place, so a model in shared
    memory stays shared.

    Args:
        model: Module to update.
        state_dict: Source values, keyed like ``model.state_dict()``.
        tau: Fraction of the source to take, in ``(0, 1]``.
        strip_ddp: First remove a ``module.`` prefix from the source keys.
    """
    if not 0 < tau <= 1:
        raise ValueError(f"tau must be in (0, 1], got {tau}.")
    if strip_ddp:
        state_dict = strip_ddp_state_dict(state_dict)
    if tau == 1:
        model.load_state_dict(state_dict)
        return
    current = model.state_dict()
    missing = set(current) - set(state_dict)
    if missing:
        raise KeyError(f"update_state_dict: source lacks keys {sorted(missing)}.")
    with torch.no_grad():
        for key, value in current.items():
            source = state_dict[key]
            if torch.is_floating_point(value):
                value.mul_(1 - tau).add_(source.to(value.device, value.dtype), alpha=tau)
            else:
                value.copy_(source)
