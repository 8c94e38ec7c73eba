"""Record types for every structured datum in rlpyt: namedarraytuple and friends.

A namedarraytuple is a namedtuple whose ``x[idx]`` and ``x[idx] = value`` act on every field at
once, recursively (nested namedarraytuples), skipping fields that are ``None``. Samplers,
agents, algorithms and replay buffers pass all their data in these records, laid out
``[T, B, ...]`` or ``[B, ...]``.

Classes made with :func:`namedarraytuple` at module level pickle by reference (their
``__module__`` is the caller's module), so they cross into processes started by spawn.
Record types known only at run time (gymnasium Dict observations, env info dicts) use the
schema variants :class:`NamedTupleSchema` / :class:`NamedArrayTupleSchema`, whose instances
carry their field names and pickle without any class registered in module globals.
"""

from __future__ import annotations

import copyreg
import string
import sys
from collections import namedtuple
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import EllipsisType
from typing import (
    TYPE_CHECKING,
    Any,
    NoReturn,
    Protocol,
    SupportsIndex,
    TypeAlias,
    TypeGuard,
)

if TYPE_CHECKING:
    import numpy as np
    import torch

    # What a record's indexing applies to every field: an int, a slice, an index array or
    # tensor, or a tuple of them (numpy's and torch's basic and advanced indexing).
    Index: TypeAlias = (
        (SupportsIndex | slice | np.ndarray | torch.Tensor | list[int] | tuple[object, ...])
        | EllipsisType
        | None
    )

RESERVED_NAMES = ("get", "items")


class NamedTupleLike(Protocol):
    """What every record has: a namedtuple, a namedarraytuple, or a schema-based record.

    Field values are read by name (``record.observation``); the fields of a record class made
    at run time are unknown to the type checker, so they read as ``Any``.
    """

    _fields: tuple[str, ...]

    def _make(self, iterable: Iterable[Any]) -> Any:
        """A record of the same type holding ``iterable``'s values."""
        ...

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...

    def __getattr__(self, name: str) -> Any: ...


class NamedArrayTupleLike(NamedTupleLike, Protocol):
    """A namedarraytuple, class-based or schema-based: indexing applies to every field."""

    def __getitem__(self, loc: Index) -> Any: ...

    def __setitem__(self, loc: Index, value: object) -> None: ...


def _check_field_names(typename: str, field_names: Sequence[str]) -> tuple[str, ...]:
    if isinstance(field_names, str):
        field_names = field_names.replace(",", " ").split()
    field_names = tuple(field_names)
    for name in field_names:
        if name in RESERVED_NAMES:
            raise ValueError(f"{typename}: field name {name!r} is reserved (get, items).")
        if not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"{typename}: field name {name!r} is not a valid public identifier.")
    if len(set(field_names)) != len(field_names):
        raise ValueError(f"{typename}: duplicate field names in {field_names}.")
    return field_names


def _index_fields(record: _ArrayTupleMixin, loc: Index) -> list:
    """Index each non-None field of ``record`` with ``loc``, naming the field on failure."""
    out: list[Any] = []
    for name, field in zip(record._fields, record, strict=True):
        if field is None:
            out.append(None)
            continue
        try:
            out.append(field[loc])
        except Exception as exc:
            _raise_field_error(record, name, exc)
    return out


def _raise_field_error(record: tuple, name: str, exc: Exception) -> NoReturn:
    """Raise ``exc`` again, its message prefixed with the record type and field name."""
    typename = getattr(record, "_typename", type(record).__name__)
    message = f"Occurred in {typename} at field {name!r}: {exc}"
    try:
        new_exc = type(exc)(message)
    except Exception:  # exception types with other constructor arguments: add a note
        exc.add_note(message)
        raise exc from None
    raise new_exc from exc


def _assign_fields(record: _ArrayTupleMixin, loc: Index, value: object) -> None:
    """Write ``value`` (a matching record, or one value for all fields) at ``loc``."""
    fields = record._fields
    row: tuple = ()  # value's fields, when value is a record with the same field names
    matching = False
    if isinstance(value, tuple):
        value_fields = getattr(value, "_fields", None)
        matching = value_fields == fields
        if not matching and value_fields is not None:
            raise ValueError(
                f"Cannot assign {type(value).__name__}{value_fields} into "
                f"{type(record).__name__}{fields}: field names differ."
            )
        row = value
    for j, (name, field) in enumerate(zip(fields, record, strict=True)):
        if field is None:
            continue
        v = tuple.__getitem__(row, j) if matching else value
        if matching and v is None:
            continue
        try:
            field[loc] = v
        except Exception as exc:
            _raise_field_error(record, name, exc)


class _ArrayTupleMixin(tuple):
    """Indexing behaviour shared by class-based and schema-based namedarraytuples.

    A tuple with no fields of its own, listed before the namedtuple class (or
    :class:`NamedTuple`) that gives the record its ``_fields`` and ``_make``.
    """

    __slots__ = ()
    _fields: tuple[str, ...]
    _make: Callable[[Iterable[Any]], Any]

    def __getitem__(self, loc: Index) -> Any:
        try:  # fast path (samplers index rows once per env step)
            values = [None if field is None else field[loc] for field in self]
        except Exception:  # redo field by field, to name the failing field in the error
            values = _index_fields(self, loc)
        return self._make(values)

    def __setitem__(self, loc: Index, value: object) -> None:
        _assign_fields(self, loc, value)

    def __contains__(self, key: object) -> bool:
        return key in self._fields

    def get(self, index: int) -> Any:
        """Plain tuple indexing (``x[i]`` indexes inside every field instead)."""
        return tuple.__getitem__(self, index)

    def items(self) -> Iterator[tuple[str, Any]]:
        """Yield ``(field_name, value)`` pairs, like ``dict.items``."""
        yield from zip(self._fields, self, strict=True)


def namedarraytuple(
    typename: str,
    field_names: Sequence[str] | str,
    return_namedtuple_cls: bool = False,
    classname_suffix: bool = False,
) -> Any:
    """Make a namedtuple class whose indexing applies to all fields at once.

    Args:
        typename: Class name. Define the class at module level (``X = namedarraytuple("X",
            ...)``) so that it pickles by reference, also under the spawn start method.
        field_names: Field names (sequence or space/comma separated string). ``get`` and
            ``items`` are reserved.
        return_namedtuple_cls: Also return the plain namedtuple base class.
        classname_suffix: Name the plain namedtuple ``<typename>_nt`` and the array tuple
            ``<typename>_nat`` (for both to live in one module under distinct names).

    Returns:
        The namedarraytuple class (and the namedtuple class, if asked).
    """
    fields = _check_field_names(typename, field_names)
    nt_name = f"{typename}_nt" if classname_suffix else typename
    nat_name = f"{typename}_nat" if classname_suffix else typename
    module = sys._getframe(1).f_globals.get("__name__", "__main__")
    NtCls = namedtuple(nt_name, fields, module=module)  # type: ignore[misc]
    nat = type(
        nat_name,
        (_ArrayTupleMixin, NtCls),
        {"__slots__": (), "__module__": module, "__doc__": f"{nat_name}{fields}"},
    )
    if return_namedtuple_cls:
        return nat, NtCls
    return nat


def namedarraytuple_like(namedtuple_or_class: object, classname_suffix: bool = False) -> Any:
    """Return a namedarraytuple class with the fields of a namedtuple (class or instance).

    A namedarraytuple (class or instance) gives back its own class. A schema-based record gives
    back a :class:`NamedArrayTupleSchema`. A plain namedtuple class gives a namedarraytuple class
    made once per namedtuple class (the same class on every call); its instances pickle by
    reference to the namedtuple class, so they cross into spawn/forkserver children too.
    """
    obj = namedtuple_or_class
    if is_namedarraytuple_class(obj):
        return obj
    if is_namedarraytuple(obj):
        return type(obj)
    if isinstance(obj, NamedTuple | NamedTupleSchema):
        return NamedArrayTupleSchema(obj._typename, obj._fields)
    cls = obj if isinstance(obj, type) else type(obj)
    if not is_namedtuple_class(cls):
        raise TypeError(f"Expected a namedtuple class or instance, got {obj!r}.")
    key = (cls, classname_suffix)
    if key not in _LIKE_CLASSES:
        nat = namedarraytuple(cls.__name__, cls._fields, classname_suffix=classname_suffix)
        nat.__module__ = cls.__module__
        # The new class is not importable by its name (that name is the namedtuple class), so
        # its instances pickle as "rebuild from the namedtuple class and these values".
        nat.__reduce__ = _reduce_like
        _LIKE_CLASSES[key] = nat
        _LIKE_SOURCES[nat] = key
    return _LIKE_CLASSES[key]


# namedarraytuple_like's classes, keyed by (namedtuple class, classname_suffix), and that key of
# each. Entries live as long as the process, like the namedtuple classes they mirror (defined at
# module level).
_LIKE_CLASSES: dict[tuple[type, bool], type] = {}
_LIKE_SOURCES: dict[type, tuple[type, bool]] = {}


def _reduce_like(record: tuple) -> tuple:
    like_cls = next(c for c in type(record).__mro__ if c in _LIKE_SOURCES)  # or a subclass
    nt_cls, classname_suffix = _LIKE_SOURCES[like_cls]
    return (_rebuild_like, (nt_cls, classname_suffix, tuple(record)))


def _rebuild_like(nt_cls: type, classname_suffix: bool, values: tuple) -> Any:
    return namedarraytuple_like(nt_cls, classname_suffix)._make(values)


def is_namedtuple_class(obj: object) -> TypeGuard[type[NamedTupleLike]]:
    """True for classes derived from a ``collections.namedtuple`` class."""
    return (
        isinstance(obj, type)
        and issubclass(obj, tuple)
        and isinstance(getattr(obj, "_fields", None), tuple)
        and hasattr(obj, "_make")
    )


def is_namedarraytuple_class(obj: object) -> bool:
    """True for classes made by :func:`namedarraytuple`."""
    return is_namedtuple_class(obj) and issubclass(obj, _ArrayTupleMixin)


def is_namedtuple(obj: object) -> TypeGuard[NamedTupleLike]:
    """True for instances of namedtuple classes (including namedarraytuples and schemas)."""
    return is_namedtuple_class(type(obj)) or isinstance(obj, NamedTuple)


def is_namedarraytuple(obj: object) -> bool:
    """True for instances of namedarraytuple classes or schemas."""
    return is_namedarraytuple_class(type(obj)) or isinstance(obj, NamedArrayTuple)


# Pickle writes a reduction by copyreg.__newobj__ as its NEWOBJ opcode: ``cls.__new__(cls)`` in C.
_NEWOBJ: Callable[..., Any] = copyreg.__newobj__  # type: ignore[attr-defined]  # not in typeshed


class AttrDict(dict):
    """A dict whose items are also attributes (``d.key``); used for TrajInfo and affinities."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no key {name!r}") from None

    def __setattr__(self, name: str, value: object) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __reduce__(self) -> tuple:
        # Rebuilt by ``cls.__new__`` with its items set in C (pickle's NEWOBJ and SETITEMS):
        # no state dict next to the items and no Python call per object on load. Sampler
        # workers pickle hundreds of TrajInfos per batch report; the default reduction of a
        # dict subclass took about 3x as long (703 TrajInfos, pickled and unpickled: 4.7 ->
        # 1.5 ms, 82 -> 42 KB; benchmarks/report_channel.py).
        return (_NEWOBJ, (type(self),), None, None, iter(dict.items(self)))

    def __setstate__(self, state: dict) -> None:
        # Pickles written before __reduce__ existed carry the items as a state dict.
        self.update(state)

    def copy(self) -> AttrDict:
        """Copy, recursing into nested AttrDicts (other values are shared)."""
        return type(self)((k, v.copy() if isinstance(v, AttrDict) else v) for k, v in self.items())


# ---------------------------------------------------------------------------------------------
# Schema variants: record types known only at run time, picklable without a module-level class.


class NamedTupleSchema:
    """A callable 'type' for run-time records: ``Schema(typename, fields)(*values)``.

    Instances are :class:`NamedTuple` objects carrying their own field names, so nothing is
    registered in any module and two schemas with the same typename never clash.
    """

    _record_cls: type[NamedTuple]  # set below the classes

    def __init__(self, typename: str, fields: Sequence[str] | str):
        self._typename = typename
        self._fields = _check_field_names(typename, fields)

    def __call__(self, *args: object, **kwargs: object) -> NamedTuple:
        """Make a record from values given by position and/or by field name."""
        if len(args) > len(self._fields):
            raise TypeError(f"{self._typename} takes {len(self._fields)} values, got {len(args)}")
        values = dict(zip(self._fields, args, strict=False))  # kwargs may give the rest
        for key, value in kwargs.items():
            if key not in self._fields:
                raise TypeError(f"{self._typename} has no field {key!r} (fields {self._fields})")
            values[key] = value
        missing = [f for f in self._fields if f not in values]
        if missing:
            raise TypeError(f"{self._typename} missing values for fields {missing}")
        return self._record_cls(self._typename, self._fields, [values[f] for f in self._fields])

    def _make(self, iterable: Iterable) -> NamedTuple:
        return self._record_cls(self._typename, self._fields, tuple(iterable))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NamedTupleSchema)
            and type(other) is type(self)
            and self._typename == other._typename
            and self._fields == other._fields
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._typename, self._fields))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._typename!r}, {self._fields})"


class NamedTuple(tuple):
    """A tuple with named fields stored on the instance (see :class:`NamedTupleSchema`)."""

    _typename: str
    _fields: tuple[str, ...]

    def __new__(cls, typename: str, fields: Sequence[str], values: Iterable) -> NamedTuple:
        """Make a record of type ``typename`` with ``fields`` holding ``values`` in order."""
        values = tuple(values)
        if len(values) != len(fields):
            raise TypeError(f"{typename} takes {len(fields)} values, got {len(values)}")
        self = super().__new__(cls, values)
        object.__setattr__(self, "_typename", typename)
        object.__setattr__(self, "_fields", tuple(fields))
        return self

    def __getattr__(self, name: str) -> Any:
        fields = self.__dict__.get("_fields", ())
        if name in fields:
            return tuple.__getitem__(self, fields.index(name))
        raise AttributeError(f"{self._typename} has no field {name!r}")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{self._typename} is immutable; use _replace({name}=...)")

    def __reduce__(self) -> tuple:
        return (type(self), (self._typename, self._fields, tuple(self)))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={v!r}" for f, v in zip(self._fields, self, strict=True))
        return f"{self._typename}({inner})"

    def _make(self, iterable: Iterable) -> NamedTuple:
        return type(self)(self._typename, self._fields, iterable)

    def _replace(self, **kwargs: object) -> NamedTuple:
        unknown = set(kwargs) - set(self._fields)
        if unknown:
            raise ValueError(f"{self._typename} has no fields {sorted(unknown)}")
        return self._make(kwargs.get(f, v) for f, v in zip(self._fields, self, strict=True))

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self, strict=True))

    @property
    def schema(self) -> NamedTupleSchema:
        """The schema that makes records like this one."""
        cls = NamedArrayTupleSchema if isinstance(self, NamedArrayTuple) else NamedTupleSchema
        return cls(self._typename, self._fields)


class NamedArrayTuple(_ArrayTupleMixin, NamedTuple):
    """A :class:`NamedTuple` whose indexing applies to all fields (see namedarraytuple)."""

    __slots__ = ()


class NamedArrayTupleSchema(NamedTupleSchema):
    """Schema whose instances are :class:`NamedArrayTuple` records."""


NamedTupleSchema._record_cls = NamedTuple
NamedArrayTupleSchema._record_cls = NamedArrayTuple


def NamedArrayTupleSchema_like(example: object) -> NamedArrayTupleSchema:  # noqa: N802 (rlpyt name)
    """Schema with the typename and fields of a namedtuple instance, class or schema."""
    if isinstance(example, NamedTuple | NamedTupleSchema):
        return NamedArrayTupleSchema(example._typename, example._fields)
    cls = example if isinstance(example, type) else type(example)
    if not is_namedtuple_class(cls):
        raise TypeError(f"Expected a namedtuple, got {example!r}")
    return NamedArrayTupleSchema(cls.__name__, cls._fields)


def safe_identifier(key: str) -> str:
    """Turn an arbitrary dict key into a valid field name (dots and spaces become ``_``)."""
    allowed = string.ascii_letters + string.digits + "_"
    name = "".join(c if c in allowed else "_" for c in str(key))
    if not name or name[0].isdigit():
        name = "f_" + name
    name = name.lstrip("_") or "f"
    if name in RESERVED_NAMES:
        name += "_"
    return name
