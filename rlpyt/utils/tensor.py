"""Torch helpers for indexing, one-hot codes, masked means and leading dims.

Models and algorithms call these on torch tensors laid out ``[T, B, ...]``, ``[B, ...]`` or
``[...]``. ``infer_leading_dims`` / ``restore_leading_dims`` let a model flatten whatever
leading dims it got into one batch dim and put them back on its outputs. The numpy twins live
in :mod:`rlpyt.utils.array`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch


def select_at_indexes(indexes: torch.Tensor, tensor: torch.Tensor) -> torch.Tensor:
    """Pick one entry per index along the dim right after the index dims.

    ``out[i, j] = tensor[i, j, indexes[i, j]]`` for two index dims, and so on for any number.

    Args:
        indexes: ``[*lead]`` integer tensor.
        tensor: ``[*lead, N, *rest]``.

    Returns:
        ``[*lead, *rest]``, differentiable with respect to ``tensor``.
    """
    lead = tuple(indexes.shape)
    if tuple(tensor.shape[: len(lead)]) != lead or tensor.dim() <= len(lead):
        raise ValueError(
            f"select_at_indexes: indexes shape {lead} must equal the leading dims of tensor "
            f"(shape {tuple(tensor.shape)}), with at least one dim after them to select from."
        )
    dim = len(lead)
    rest = tuple(tensor.shape[dim + 1 :])
    gather_index = indexes.to(torch.long).reshape(lead + (1,) * (1 + len(rest)))
    gather_index = gather_index.expand(lead + (1,) + rest)
    return tensor.gather(dim, gather_index).squeeze(dim)


def to_onehot(indexes: torch.Tensor, num: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    """One-hot code integer indexes in a new last dim.

    Args:
        indexes: ``[*shape]`` integer tensor with values in ``[0, num)`` (else IndexError).
        num: Size of the one-hot dim.
        dtype: Output dtype; default the dtype of ``indexes``.

    Returns:
        ``[*shape, num]`` on the device of ``indexes``.
    """
    dtype = indexes.dtype if dtype is None else dtype
    key = (num, dtype, indexes.device)
    eye = _EYES.get(key)
    if eye is None:
        eye = _EYES[key] = torch.eye(num, dtype=dtype, device=indexes.device)
    # Gathering rows of a cached identity is one op (zeros + scatter were two, with more
    # overhead than work at sampler batch sizes); the result is a new tensor.
    return eye[indexes if indexes.dtype == torch.long else indexes.long()]


_EYES: dict[tuple, torch.Tensor] = {}  # identity matrices of to_onehot, by (num, dtype, device)


def from_onehot(
    onehot: torch.Tensor, dim: int = -1, dtype: torch.dtype | None = None
) -> torch.Tensor:
    """Invert :func:`to_onehot`: the argmax along ``dim`` (int64 unless ``dtype`` given)."""
    indexes = torch.argmax(onehot, dim=dim)
    return indexes if dtype is None else indexes.to(dtype)


def valid_mean(
    tensor: torch.Tensor,
    valid: torch.Tensor | None = None,
    dim: int | tuple[int, ...] | None = None,
) -> torch.Tensor:
    """Mean over the entries where ``valid`` is nonzero.

    Args:
        tensor: Values, e.g. ``[T, B]``.
        valid: Mask broadcastable to ``tensor`` (bool, int or float); None means all valid.
        dim: Dim(s) to reduce; None reduces over everything to a scalar.

    Returns:
        The masked mean; NaN where no entry is valid (0 / 0).
    """
    if valid is None:
        return tensor.mean() if dim is None else tensor.mean(dim=dim)
    valid = valid.to(tensor.dtype)
    if dim is None:
        return (tensor * valid).sum() / valid.sum()
    return (tensor * valid).sum(dim=dim) / valid.sum(dim=dim)


def infer_leading_dims(tensor: torch.Tensor, dim: int) -> tuple[int, int, int, torch.Size]:
    """Find how many leading dims (0, 1 or 2) precede ``dim`` data dims.

    Args:
        tensor: ``[*data_shape]``, ``[B, *data_shape]`` or ``[T, B, *data_shape]``.
        dim: Number of data dims (e.g. 3 for images ``[C, H, W]``).

    Returns:
        ``(lead_dim, T, B, data_shape)``; ``T`` and ``B`` are 1 where absent.
    """
    lead_dim = tensor.dim() - dim
    if lead_dim not in (0, 1, 2):
        raise ValueError(
            f"Expected {dim} data dims plus 0, 1 or 2 leading dims ([], [B] or [T, B]), got a "
            f"tensor of shape {tuple(tensor.shape)}."
        )
    if lead_dim == 2:
        T, B = tensor.shape[:2]
    else:
        T, B = 1, (tensor.shape[0] if lead_dim == 1 else 1)
    return lead_dim, T, B, tensor.shape[lead_dim:]


def restore_leading_dims(
    tensors: torch.Tensor | Sequence[torch.Tensor | None] | None,
    lead_dim: int,
    T: int = 1,
    B: int = 1,
) -> Any:
    """Undo the flattening of leading dims on outputs shaped ``[T * B, ...]``.

    Args:
        tensors: One tensor or a tuple/list/namedtuple of them (``None`` entries pass
            through).
        lead_dim: As returned by :func:`infer_leading_dims` for the inputs.
        T: Time dim size (used when ``lead_dim == 2``).
        B: Batch dim size (must be 1 when ``lead_dim == 0``).

    Returns:
        The same container kind with each tensor reshaped to ``[T, B, ...]`` (lead_dim 2),
        ``[B, ...]`` (1) or ``[...]`` (0).
    """
    if lead_dim == 0 and B != 1:
        raise ValueError(f"lead_dim 0 means no batch dim, but B={B} was given.")
    if not isinstance(tensors, tuple | list):
        return _restore_one(tensors, lead_dim, T, B)
    restored = [_restore_one(t, lead_dim, T, B) for t in tensors]
    if hasattr(tensors, "_make"):  # a namedtuple keeps its type
        return tensors._make(restored)
    return type(tensors)(restored)


def _restore_one(tensor: Any, lead_dim: int, T: int, B: int) -> Any:
    if tensor is None:
        return None
    if lead_dim == 2:
        return tensor.reshape((T, B) + tuple(tensor.shape[1:]))
    if lead_dim == 0:
        return tensor.squeeze(0)
    return tensor
