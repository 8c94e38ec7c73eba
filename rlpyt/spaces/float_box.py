"""FloatBox: real-valued arrays within (possibly infinite) bounds (continuous actions, states)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from rlpyt.spaces.base import Space
from rlpyt.spaces.int_box import _as_shape


class FloatBox(Space):
    """Floating-point arrays with elementwise bounds ``low <= x <= high``.

    Args:
        low: Lower bound (scalar, or an array broadcastable to ``shape``; may be ``-inf``).
        high: Upper bound (scalar or array; may be ``inf``).
        shape: Shape of one value; default the broadcast shape of ``low`` and ``high``.
        null_value: The 'no value' entry, default 0.
        dtype: A float numpy dtype; default ``"float32"``.

    Sampling is uniform where both bounds are finite; otherwise (like gymnasium) a standard
    normal where unbounded on both sides and a shifted exponential where bounded on one side.
    """

    def __init__(
        self,
        low: ArrayLike,
        high: ArrayLike,
        shape: int | Iterable[int] | None = None,
        null_value: ArrayLike = 0.0,
        dtype: DTypeLike = "float32",
    ):
        super().__init__()
        self.dtype = np.dtype(dtype)
        if self.dtype.kind != "f":
            raise TypeError(f"FloatBox needs a float dtype, got {self.dtype}; use IntBox.")
        low_arr, high_arr = np.asarray(low, np.float64), np.asarray(high, np.float64)
        if shape is None:
            shape = np.broadcast_shapes(low_arr.shape, high_arr.shape)
        self.shape = _as_shape(shape)
        self.low = np.broadcast_to(low_arr, self.shape).astype(self.dtype)
        self.high = np.broadcast_to(high_arr, self.shape).astype(self.dtype)
        if np.any(self.high < self.low):
            raise ValueError(f"FloatBox needs high >= low, got {low=}, {high=}.")
        self._null = null_value
        self._bounded = bool(np.all(np.isfinite(self.low)) and np.all(np.isfinite(self.high)))

    def sample(self) -> np.ndarray:
        """One draw: ``shape`` array of ``dtype``."""
        if self._bounded:
            return self._rng.uniform(self.low, self.high, self.shape).astype(self.dtype)
        low, high = self.low.astype(np.float64), self.high.astype(np.float64)
        has_low, has_high = np.isfinite(low), np.isfinite(high)
        x = self._rng.standard_normal(self.shape)
        tail = self._rng.exponential(size=self.shape)
        uniform = self._rng.random(self.shape)
        with np.errstate(invalid="ignore", over="ignore"):
            x = np.where(has_low & ~has_high, low + tail, x)
            x = np.where(~has_low & has_high, high - tail, x)
            x = np.where(has_low & has_high, low + uniform * (high - low), x)
        return np.asarray(x, dtype=self.dtype)

    def null_value(self) -> np.ndarray:
        """``shape`` array of ``dtype`` filled with the null value (default 0)."""
        return np.full(self.shape, self._null, dtype=self.dtype)

    def contains(self, x: object) -> bool:
        """True for numeric arrays of this shape within the bounds."""
        x = np.asarray(x)
        if x.shape != self.shape or x.dtype.kind not in "biuf":
            return False
        return bool(np.all(x >= self.low) and np.all(x <= self.high))

    def __repr__(self) -> str:
        return f"FloatBox(shape={self.shape}, dtype={self.dtype})"
