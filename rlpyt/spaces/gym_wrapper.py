"""GymSpaceWrapper: a gymnasium space seen as an rlpyt space (IntBox, FloatBox or Composite).

``GymEnvWrapper`` wraps both spaces of a gymnasium env with this class. Dict and Tuple spaces
become :class:`Composite` spaces whose records are ``NamedArrayTupleSchema`` instances: the
record types live on the wrapper object, never in any module's globals, so any number of
different envs coexist in one process and their records pickle into spawned workers.
"""

from __future__ import annotations

from typing import Any

import gymnasium.spaces as gym_spaces
import numpy as np
from numpy.typing import ArrayLike

from rlpyt.spaces.base import Space
from rlpyt.spaces.composite import Composite
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.int_box import IntBox
from rlpyt.utils.collections import NamedArrayTupleSchema, safe_identifier


def unique_identifiers(keys: list[Any]) -> list[str]:
    """Valid, distinct field names for dict keys (``"a.b"`` -> ``a_b``; clashes get ``_2``...)."""
    names: list[str] = []
    for key in keys:
        name = base = safe_identifier(str(key))
        suffix = 2
        while name in names:
            name = f"{base}_{suffix}"
            suffix += 1
        names.append(name)
    return names


def _int_null(null_value: ArrayLike, low: ArrayLike, high: ArrayLike) -> ArrayLike:
    """The requested null value where it lies in ``[low, high)``, else ``low``."""
    ok = np.all(np.asarray(null_value) >= low) and np.all(np.asarray(null_value) < high)
    return null_value if ok else low


def _leaf_space(space: gym_spaces.Space, null_value: ArrayLike, force_float32: bool) -> Space:
    """Convert a non-composite gymnasium space to IntBox/FloatBox."""
    low: Any
    high: Any
    if isinstance(space, gym_spaces.Discrete):
        start, stop = int(space.start), int(space.start) + int(space.n)
        return IntBox(start, stop, dtype=space.dtype, null_value=_int_null(null_value, start, stop))
    if isinstance(space, gym_spaces.MultiDiscrete):
        low = np.asarray(space.start, np.int64)
        high = low + np.asarray(space.nvec, np.int64)
        null = _int_null(null_value, low, high)
        return IntBox(low, high, shape=space.shape, dtype=space.dtype, null_value=null)
    if isinstance(space, gym_spaces.MultiBinary):
        null = _int_null(null_value, 0, 2)
        return IntBox(0, 2, shape=space.shape, dtype=space.dtype, null_value=null)
    if isinstance(space, gym_spaces.Box):
        if np.dtype(space.dtype).kind == "f":
            dtype = np.float32 if force_float32 else space.dtype
            return FloatBox(space.low, space.high, space.shape, null_value, dtype)
        low = np.asarray(space.low, np.int64)
        high = np.asarray(space.high, np.int64) + 1  # gymnasium's high is inclusive
        null = _int_null(null_value, low, high)
        return IntBox(low, high, shape=space.shape, dtype=space.dtype, null_value=null)
    raise TypeError(
        f"Gymnasium space {space!r} is not supported (Box, Discrete, MultiDiscrete, "
        "MultiBinary, Dict and Tuple are). Wrap the env in a gymnasium ObservationWrapper or "
        "ActionWrapper that maps it to one of those."
    )


class GymSpaceWrapper:
    """An rlpyt space over a gymnasium space, plus conversion of gymnasium values to records.

    Args:
        space: A gymnasium space: Box, Discrete, MultiDiscrete, MultiBinary, or (nested) Dict
            and Tuple of those.
        null_value: Null entry for every leaf (integer leaves fall back to their lowest value
            when it is out of range, e.g. ``Discrete(3, start=1)``).
        name: Record typename for Dict/Tuple values; nested records are ``<name>_<key>``.
        force_float32: Represent float64 Boxes as float32 (samples and converted values).

    Attributes:
        space: The original gymnasium space.
        rlpyt_space: The converted rlpyt space (IntBox, FloatBox or Composite).
    """

    def __init__(
        self,
        space: gym_spaces.Space,
        null_value: ArrayLike = 0,
        name: str = "obs",
        force_float32: bool = True,
    ):
        self.space = space
        self.name = name
        self.force_float32 = force_float32
        self.schema: Any = None  # NamedArrayTupleSchema for Dict/Tuple spaces
        self._keys: list[Any] | None = None  # Dict keys or Tuple positions, in field order
        self._children: list[GymSpaceWrapper] = []
        if isinstance(space, gym_spaces.Dict | gym_spaces.Tuple):
            self._build_composite(null_value)
        else:
            self.rlpyt_space: Space = _leaf_space(space, null_value, force_float32)

    def _build_composite(self, null_value: ArrayLike) -> None:
        """Wrap each part of a Dict/Tuple space; fields are the keys (Tuple: ``f0, f1, ...``)."""
        space: Any = self.space
        if isinstance(space, gym_spaces.Dict):
            self._keys = list(space.spaces.keys())
            fields = unique_identifiers(self._keys)
        else:
            self._keys = list(range(len(space.spaces)))
            fields = [f"f{i}" for i in self._keys]
        self._children = [
            GymSpaceWrapper(space[key], null_value, f"{self.name}_{field}", self.force_float32)
            for key, field in zip(self._keys, fields, strict=True)
        ]
        self.schema = NamedArrayTupleSchema(self.name, fields)
        self.rlpyt_space = Composite([c.rlpyt_space for c in self._children], self.schema)

    def convert(self, value: Any) -> Any:
        """A gymnasium value as rlpyt sees it.

        Returns:
            A numpy array cast to this space's dtype, or for Dict/Tuple spaces a record of
            converted entries (nested dicts give nested records).
        """
        if self._keys is None:
            return np.asarray(value, dtype=self.rlpyt_space.dtype)
        return self.schema._make(
            child.convert(value[key]) for key, child in zip(self._keys, self._children, strict=True)
        )

    def revert(self, value: np.ndarray | tuple) -> Any:
        """Inverse of :meth:`convert` for Dict/Tuple spaces: records back to dicts/tuples."""
        if self._keys is None:
            return value
        parts = [child.revert(v) for child, v in zip(self._children, value, strict=True)]
        if isinstance(self.space, gym_spaces.Tuple):
            return tuple(parts)
        return dict(zip(self._keys, parts, strict=True))

    def sample(self) -> Any:
        """One sample, already converted (array or record)."""
        return self.rlpyt_space.sample()

    def null_value(self) -> Any:
        """The null value, converted (array or record)."""
        return self.rlpyt_space.null_value()

    def seed(self, seed: int | None = None) -> None:
        """Seed the sample stream (and the wrapped gymnasium space, for direct users of it)."""
        self.rlpyt_space.seed(seed)
        self.space.seed(seed)

    def contains(self, x: object) -> bool:
        """Membership of a converted value (a raw Dict/Tuple value is converted first)."""
        if self._keys is not None and not hasattr(x, "_fields"):
            try:
                x = self.convert(x)
            except (KeyError, IndexError, TypeError, ValueError):
                return False
        return self.rlpyt_space.contains(x)

    @property
    def dtype(self) -> Any:
        """The dtype of the values (a record of dtypes for Dict/Tuple)."""
        return self.rlpyt_space.dtype

    @property
    def shape(self) -> Any:
        """Shape of the values (a record of shapes for Dict/Tuple)."""
        return self.rlpyt_space.shape

    @property
    def low(self) -> Any:
        """Lower bound (IntBox/FloatBox leaves only)."""
        return self._leaf_attribute("low")

    @property
    def high(self) -> Any:
        """Upper bound, exclusive for integer spaces (IntBox/FloatBox leaves only)."""
        return self._leaf_attribute("high")

    @property
    def n(self) -> Any:
        """Number of values per element (integer leaves only), e.g. the number of actions."""
        return self._leaf_attribute("n")

    def _leaf_attribute(self, name: str) -> Any:
        try:
            return getattr(self.rlpyt_space, name)
        except AttributeError:
            raise AttributeError(
                f"{type(self.rlpyt_space).__name__} space {self.name!r} has no {name!r}; it is "
                "defined on its IntBox/FloatBox parts."
            ) from None

    def __repr__(self) -> str:
        return f"GymSpaceWrapper({self.space!r} as {self.rlpyt_space!r})"
