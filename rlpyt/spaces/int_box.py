"""IntBox: integer arrays with values in ``[low, high)`` (discrete actions, uint8 images)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from rlpyt.spaces.base import Space


def _as_shape(shape: int | np.integer | Iterable[int] | None) -> tuple[int, ...]:
    if shape is None:
        return ()
    if isinstance(shape, int | np.integer):
        return (int(shape),)
    return tuple(int(s) for s in shape)


class IntBox(Space):
    """Integer values in ``[low, high)`` (high exclusive), of a given shape and dtype.

    Args:
        low: Lowest value (scalar, or an array broadcastable to ``shape``).
        high: One past the highest value (scalar or array), e.g. ``IntBox(0, n_actions)``.
        shape: Shape of one value; default the broadcast shape of ``low`` and ``high``.
        dtype: An integer (or bool) numpy dtype; default ``"int32"``.
        null_value: The 'no value' entry; default ``low``.

    Attributes:
        n: ``high - low`` (the number of values per element; an array for array bounds).
    """

    def __init__(
        self,
        low: ArrayLike,
        high: ArrayLike,
        shape: int | Iterable[int] | None = None,
        dtype: DTypeLike = "int32",
        null_value: ArrayLike | None = None,
    ):
        super().__init__()
        self.dtype = np.dtype(dtype)
        if self.dtype.kind not in "biu":
            raise TypeError(f"IntBox needs an integer dtype, got {self.dtype}; use FloatBox.")
        low_arr, high_arr = np.asarray(low, np.int64), np.asarray(high, np.int64)
        if shape is None:
            shape = np.broadcast_shapes(low_arr.shape, high_arr.shape)
        self.shape = _as_shape(shape)
        self.low = int(low_arr) if low_arr.ndim == 0 else np.broadcast_to(low_arr, self.shape)
        self.high = int(high_arr) if high_arr.ndim == 0 else np.broadcast_to(high_arr, self.shape)
        if np.any(np.asarray(self.high) <= np.asarray(self.low)):
            raise ValueError(f"IntBox needs high > low (high exclusive), got {low=}, {high=}.")
        self._null = self.low if null_value is None else null_value
        if not self.contains(self.null_value()):
            raise ValueError(f"IntBox null_value {null_value!r} is outside [{low!s}, {high!s}).")

    @property
    def n(self) -> Any:
        """Number of distinct values per element: ``high - low`` (array for array bounds)."""
        return self.high - self.low

    def sample(self) -> np.ndarray:
        """A uniform draw: ``shape`` array of ``dtype`` (0-d array for scalar spaces)."""
        return np.asarray(self._rng.integers(self.low, self.high, self.shape, dtype=self.dtype))

    def null_value(self) -> np.ndarray:
        """``shape`` array of ``dtype`` filled with the null value (default ``low``)."""
        return np.full(self.shape, self._null, dtype=self.dtype)

    def contains(self, x: object) -> bool:
        """True for integer arrays (or Python ints) of this shape with values in range."""
        x = np.asarray(x)
        if x.shape != self.shape or x.dtype.kind not in "biu":
            return False
        return bool(np.all(x >= self.low) and np.all(x < self.high))

    def __repr__(self) -> str:
        return f"IntBox(low={self.low}, high={self.high}, shape={self.shape}, dtype={self.dtype})"
