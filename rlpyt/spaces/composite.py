"""Composite: a record of sub-spaces (for dict/tuple observations)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from rlpyt.spaces.base import Space, child_seeds


class RecordType(Protocol):
    """A record type: a namedtuple or namedarraytuple class, or a ``NamedArrayTupleSchema``."""

    _fields: tuple[str, ...]

    def __call__(self, *values: object) -> tuple:
        """A record of ``values``, one per field in order."""
        ...


class Composite(Space):
    """A space whose values are records with one field per sub-space.

    Args:
        spaces: The sub-spaces, in field order.
        NamedTupleCls: The record type: a namedtuple/namedarraytuple class or a schema
            (``NamedArrayTupleSchema``); called as ``NamedTupleCls(*values)``.

    ``sample()`` and ``null_value()`` return records of the sub-spaces' values; ``shape`` and
    ``dtype`` are records of their shapes and dtypes.
    """

    def __init__(self, spaces: Sequence[Space], NamedTupleCls: RecordType):
        super().__init__()
        self._spaces = tuple(spaces)
        self._NamedTupleCls = NamedTupleCls
        n_fields = len(NamedTupleCls._fields)
        if n_fields != len(self._spaces):
            raise ValueError(
                f"Composite got {len(self._spaces)} spaces for {n_fields} record fields."
            )
        # Records of the sub-spaces' shapes and dtypes (fixed once the sub-spaces are built).
        self.shape = NamedTupleCls(*(s.shape for s in self._spaces))
        self.dtype = NamedTupleCls(*(s.dtype for s in self._spaces))

    @property
    def spaces(self) -> tuple[Space, ...]:
        """The sub-spaces, in field order."""
        return self._spaces

    @property
    def NamedTupleCls(self) -> RecordType:  # noqa: N802 (rlpyt name)
        """The record type (class or schema) of this space's values."""
        return self._NamedTupleCls

    def seed(self, seed: int | None = None) -> None:
        """Seed every sub-space from its own seed derived from ``seed``."""
        for space, sub_seed in zip(self._spaces, child_seeds(seed, len(self._spaces)), strict=True):
            space.seed(sub_seed)

    def sample(self) -> Any:
        """A record of one sample per sub-space."""
        return self._NamedTupleCls(*(s.sample() for s in self._spaces))

    def null_value(self) -> Any:
        """A record of the sub-spaces' null values."""
        return self._NamedTupleCls(*(s.null_value() for s in self._spaces))

    def contains(self, x: object) -> bool:
        """True for a record with this space's fields whose every entry is contained."""
        if not isinstance(x, tuple):  # records are tuples
            return False
        if tuple(getattr(x, "_fields", ())) != tuple(self._NamedTupleCls._fields):
            return False
        return all(s.contains(v) for s, v in zip(self._spaces, x, strict=True))

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{f}={s!r}" for f, s in zip(self._NamedTupleCls._fields, self._spaces, strict=True)
        )
        return f"Composite({fields})"
