"""Small helpers shared by algorithms and replay buffers: minibatch indexes, allocation, windows.

``iterate_mb_idxs`` drives the epoch/minibatch loops of on-policy algorithms; ``extract_sequences``
cuts ``[T, B]`` windows out of a ring buffer for sequence replay.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from numpy.typing import DTypeLike

from rlpyt.utils.collections import is_namedtuple

if TYPE_CHECKING:
    from rlpyt.utils.collections import NamedArrayTupleLike


def iterate_mb_idxs(
    data_length: int, minibatch_size: int, shuffle: bool = False
) -> Iterator[slice | np.ndarray]:
    """Yield the indexes of successive minibatches over ``range(data_length)``.

    Only full minibatches are yielded: the last ``data_length % minibatch_size`` indexes are
    dropped. Shuffling draws from numpy's global RNG, so :func:`rlpyt.utils.seed.set_seed`
    makes it reproducible.

    Args:
        data_length: Number of items.
        minibatch_size: Items per minibatch.
        shuffle: Permute the items first.

    Yields:
        A ``slice`` (no shuffle) or a ``[minibatch_size]`` int array of indexes (shuffle).
    """
    if minibatch_size <= 0:
        raise ValueError(f"minibatch_size must be positive, got {minibatch_size}.")
    order = np.random.permutation(data_length) if shuffle else None
    for start in range(0, data_length - minibatch_size + 1, minibatch_size):
        batch = slice(start, start + minibatch_size)
        yield batch if order is None else order[batch]


def zeros(shape: int | Sequence[int], dtype: torch.dtype | DTypeLike) -> torch.Tensor | np.ndarray:
    """Zeros as a torch tensor if ``dtype`` is a torch dtype, else as a numpy array."""
    if isinstance(dtype, torch.dtype):
        return torch.zeros(shape, dtype=dtype)
    return np.zeros(shape, dtype=dtype)


def empty(shape: int | Sequence[int], dtype: torch.dtype | DTypeLike) -> torch.Tensor | np.ndarray:
    """Uninitialised torch tensor if ``dtype`` is a torch dtype, else a numpy array."""
    if isinstance(dtype, torch.dtype):
        return torch.empty(shape, dtype=dtype)
    return np.empty(shape, dtype=dtype)


def extract_sequences(
    array_or_namedarraytuple: NamedArrayTupleLike | np.ndarray | torch.Tensor | None,
    T_idxs: Sequence[int] | np.ndarray,
    B_idxs: Sequence[int] | np.ndarray,
    T: int,
) -> Any:
    """Copy length-``T`` windows out of a ``[T_buffer, B_buffer, ...]`` ring buffer.

    Window ``i`` is ``x[T_idxs[i] + t, B_idxs[i]]`` for ``t in range(T)``, with time indexes
    taken modulo ``T_buffer``, so a window that runs past the end continues from the start and
    a negative start begins at the end, its two pieces in time order.

    Args:
        array_or_namedarraytuple: numpy array or torch tensor with ``[T_buffer, B_buffer]``
            leading dims, or a (nested) namedarraytuple of them (``None`` fields stay None).
        T_idxs: ``[n]`` start times.
        B_idxs: ``[n]`` env indexes.
        T: Window length.

    Returns:
        The same structure with leaves ``[T, n, ...]`` (new memory).
    """
    if array_or_namedarraytuple is None:
        return None
    if is_namedtuple(array_or_namedarraytuple):
        return array_or_namedarraytuple._make(
            extract_sequences(field, T_idxs, B_idxs, T) for field in array_or_namedarraytuple
        )
    x = array_or_namedarraytuple
    t_idx = np.asarray(T_idxs, dtype=np.int64)[None, :] + np.arange(T, dtype=np.int64)[:, None]
    t_idx %= x.shape[0]
    b_idx = np.asarray(B_idxs, dtype=np.int64)[None, :]  # broadcasts against t_idx [T, n]
    if isinstance(x, torch.Tensor):
        return x[torch.from_numpy(t_idx).to(x.device), torch.from_numpy(b_idx).to(x.device)]
    return np.asarray(x)[t_idx, b_idx]
