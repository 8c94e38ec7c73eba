"""Numpy twins of :mod:`rlpyt.utils.tensor`, for code on the environment side of the sampler.

Replay buffers and collectors work on numpy arrays laid out ``[T, B, ...]``; these helpers
follow the torch versions' conventions, with ``axis`` where numpy says axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike


def select_at_indexes(indexes: np.ndarray, array: np.ndarray) -> np.ndarray:
    """Pick one entry per index along the axis right after the index axes.

    Args:
        indexes: ``[*lead]`` integer array.
        array: ``[*lead, N, *rest]``.

    Returns:
        ``[*lead, *rest]`` with ``out[i, j] = array[i, j, indexes[i, j]]`` (for two index axes).
    """
    indexes = np.asarray(indexes)
    lead = indexes.shape
    if array.shape[: len(lead)] != lead or array.ndim <= len(lead):
        raise ValueError(
            f"select_at_indexes: indexes shape {lead} must equal the leading dims of array "
            f"(shape {array.shape}), with at least one axis after them to select from."
        )
    axis = len(lead)
    expanded = indexes.astype(np.intp).reshape(lead + (1,) * (array.ndim - axis))
    return np.take_along_axis(array, expanded, axis=axis).squeeze(axis)


def to_onehot(indexes: np.ndarray, num: int, dtype: DTypeLike | None = None) -> np.ndarray:
    """One-hot code integer indexes in a new last axis.

    Args:
        indexes: ``[*shape]`` integers in ``[0, num)``.
        num: Size of the one-hot axis.
        dtype: Output dtype; default the dtype of ``indexes``.

    Returns:
        ``[*shape, num]``.
    """
    indexes = np.asarray(indexes)
    dtype = indexes.dtype if dtype is None else dtype
    flat = indexes.reshape(-1).astype(np.intp)
    onehot = np.zeros((flat.size, num), dtype=dtype)
    onehot[np.arange(flat.size), flat] = 1
    return onehot.reshape(indexes.shape + (num,))


def from_onehot(onehot: np.ndarray, dtype: DTypeLike | None = None, axis: int = -1) -> np.ndarray:
    """Invert :func:`to_onehot`: the argmax along ``axis`` (intp unless ``dtype`` given)."""
    return np.asarray(np.argmax(onehot, axis=axis), dtype=dtype)


def valid_mean(
    array: np.ndarray, valid: np.ndarray | None = None, axis: int | tuple[int, ...] | None = None
) -> Any:
    """Mean over the entries where ``valid`` is nonzero (NaN where none is valid).

    Args:
        array: Values, e.g. ``[T, B]``.
        valid: Mask broadcastable to ``array``; None means all valid.
        axis: Axis or axes to reduce; None reduces over everything.
    """
    if valid is None:
        return array.mean(axis=axis)
    valid = np.asarray(valid, dtype=array.dtype if array.dtype.kind == "f" else np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (array * valid).sum(axis=axis) / valid.sum(axis=axis)


def infer_leading_dims(array: np.ndarray, dim: int) -> tuple[int, int, tuple, bool, bool]:
    """Find whether ``array`` has ``[B]`` or ``[T, B]`` leading dims before ``dim`` data dims.

    Args:
        array: ``[*data_shape]``, ``[B, *data_shape]`` or ``[T, B, *data_shape]``.
        dim: Number of data dims.

    Returns:
        ``(T, B, data_shape, has_T, has_B)``; ``T`` and ``B`` are 1 where absent.
    """
    lead_dim = array.ndim - dim
    if lead_dim not in (0, 1, 2):
        raise ValueError(
            f"Expected {dim} data dims plus 0, 1 or 2 leading dims ([], [B] or [T, B]), got an "
            f"array of shape {array.shape}."
        )
    if lead_dim == 2:
        T, B = array.shape[:2]
    else:
        T, B = 1, (array.shape[0] if lead_dim == 1 else 1)
    return T, B, array.shape[lead_dim:], lead_dim == 2, lead_dim >= 1
