"""Allocation and conversion of (nested) namedarraytuple buffers.

``buffer_from_example`` is the one function that allocates sample buffers: it mirrors the
structure of one example (a namedtuple, possibly nested, possibly with ``None`` fields) with
arrays of shape ``[*leading_dims, *example.shape]``. New buffers are filled with sentinels
(NaN for floats, -1 for signed ints, the dtype's max for unsigned ints) so that a slot nobody
wrote stands out. The other helpers walk such structures and apply one operation at each leaf.

Box: Utilities, used by samplers, replays and algorithms. Buffers and examples are trees of
namedarraytuples (classes made at run time) with array or tensor leaves: parameters are typed
:data:`ArrayTree`; results stay ``Any``, because the type checker cannot name the fields of a
namedarraytuple class made at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar

import numpy as np
import torch
from numpy.typing import ArrayLike, DTypeLike

from rlpyt.utils.collections import (
    NamedArrayTupleSchema_like,
    NamedTuple,
    NamedTupleLike,
    NamedTupleSchema,
    is_namedtuple,
    namedarraytuple_like,
)
from rlpyt.utils.shared_memory import np_mp_array

SENTINEL = "sentinel"

ArrayTree: TypeAlias = (
    "ArrayLike | torch.Tensor | NamedTupleLike | tuple[ArrayTree, ...] | list[ArrayTree] | None"
)
"""A buffer or example: an array, tensor or number, or a (nested) tuple, namedtuple,
namedarraytuple or list of them; ``None`` stands for an absent field."""

TreeT = TypeVar("TreeT")


def sentinel_value(dtype: DTypeLike) -> float:
    """The 'never written' marker for a dtype: NaN, -1, the unsigned max, or False."""
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.complexfloating):
        return np.nan
    if np.issubdtype(dtype, np.signedinteger):
        return -1
    if np.issubdtype(dtype, np.unsignedinteger):
        return np.iinfo(dtype).max
    return 0


def build_array(
    example: ArrayTree,
    leading_dims: tuple[int, ...],
    share_memory: bool = False,
    fill: float | str = SENTINEL,
) -> np.ndarray:
    """Allocate one array shaped ``[*leading_dims, *np.shape(example)]`` with example's dtype.

    ``fill=0`` writes nothing: private arrays come from ``np.zeros``, whose pages the OS maps on
    first write (a large replay claims its memory as it fills), and shared ones are zeroed by
    the OS already. Any other fill touches every page.
    """
    if isinstance(example, torch.Tensor):
        example = example.detach().cpu().numpy()
    example = np.asarray(example)
    if example.dtype.hasobject:
        raise TypeError(
            f"Cannot build a buffer from an object array (example {example!r}); buffers hold "
            "numbers only. Convert the value to a numeric numpy array first."
        )
    if example.dtype.kind in "US":
        raise TypeError(f"Cannot build a buffer from a string example {example!r}.")
    shape = tuple(leading_dims) + example.shape
    if fill is not SENTINEL and fill == 0:
        return np_mp_array(shape, example.dtype) if share_memory else np.zeros(shape, example.dtype)
    array = np_mp_array(shape, example.dtype) if share_memory else np.empty(shape, example.dtype)
    array.fill(sentinel_value(example.dtype) if fill is SENTINEL else fill)
    return array


def buffer_from_example(
    example: ArrayTree,
    leading_dims: int | tuple[int, ...],
    share_memory: bool = False,
    use_NatSchema: bool | None = None,  # noqa: N803 (rlpyt keyword)
    fill: float | str = SENTINEL,
) -> Any:
    """Allocate a buffer with the structure of ``example`` and extra leading dims.

    Args:
        example: An array/scalar, or a (nested) namedtuple of them; ``None`` fields stay None.
        leading_dims: e.g. ``(T, B)``; an int means one leading dim.
        share_memory: Allocate in OS shared memory (see ``rlpyt.utils.shared_memory``).
        use_NatSchema: Build schema-based records (no class per record type). Default: schema
            records where the example is schema-based, classes otherwise.
        fill: Initial value; default ``SENTINEL``: the dtype's sentinel (NaN, -1, unsigned max).

    Returns:
        The same structure with namedarraytuples in place of namedtuples and arrays at leaves.
    """
    if example is None:
        return None
    if isinstance(leading_dims, int):
        leading_dims = (leading_dims,)
    if is_namedtuple(example):
        fields = [
            buffer_from_example(v, leading_dims, share_memory, use_NatSchema, fill) for v in example
        ]
        schema_based = isinstance(example, NamedTuple) if use_NatSchema is None else use_NatSchema
        if schema_based:
            return NamedArrayTupleSchema_like(example)(*fields)
        return namedarraytuple_like(example)(*fields)
    return build_array(example, tuple(leading_dims), share_memory, fill)


def _map(buffer: object, leaf: Callable[[Any], object]) -> Any:
    """Rebuild ``buffer`` (tuple/namedtuple structure) with ``leaf`` applied at each leaf."""
    if buffer is None:
        return None
    if isinstance(buffer, tuple):  # checked first: this runs per sampler step
        if hasattr(buffer, "_fields"):  # namedtuple, namedarraytuple or schema record
            return buffer._make([_map(b, leaf) for b in buffer])  # type: ignore[attr-defined]
        return type(buffer)(_map(b, leaf) for b in buffer)
    if isinstance(buffer, list):
        return [_map(b, leaf) for b in buffer]
    return leaf(buffer)


def torchify_buffer(buffer: ArrayTree) -> Any:
    """Numpy arrays to torch tensors sharing the same memory (zero copy); scalars to tensors."""

    def leaf(x: object) -> torch.Tensor:
        if isinstance(x, torch.Tensor):
            return x
        if isinstance(x, np.ndarray):
            return torch.from_numpy(np.asarray(x))
        return torch.as_tensor(x)

    return _map(buffer, leaf)


def numpify_buffer(buffer: ArrayTree) -> Any:
    """Torch tensors to numpy arrays (zero copy for CPU tensors; others are moved to CPU)."""

    def leaf(x: object) -> object:
        if isinstance(x, torch.Tensor):
            if x.requires_grad or not x.is_cpu:
                return x.detach().cpu().numpy()
            # The sampler's hot path: one torch call, not three (each call into torch costs
            # 5-10 us when the envs stepped between agent steps have evicted torch's caches).
            return x.numpy()
        return x

    return _map(buffer, leaf)


def buffer_to(buffer: TreeT, device: torch.device | str | int | None = None) -> TreeT:
    """Move every tensor in the structure to ``device``."""
    return _map(buffer, lambda x: x.to(device) if isinstance(x, torch.Tensor) else x)


def buffer_method(buffer: ArrayTree, method_name: str, *args: object, **kwargs: object) -> Any:
    """Call ``leaf.<method_name>(*args, **kwargs)`` at every leaf; return the new structure."""
    return _map(buffer, lambda x: getattr(x, method_name)(*args, **kwargs))


def buffer_func(
    buffer: ArrayTree, func: Callable[..., object], *args: object, **kwargs: object
) -> Any:
    """Apply ``func(leaf, *args, **kwargs)`` at every leaf; return the new structure."""
    return _map(buffer, lambda x: func(x, *args, **kwargs))


def get_leading_dims(buffer: ArrayTree, n_dim: int = 1) -> tuple[int, ...]:
    """The first ``n_dim`` dims shared by every leaf; raises if leaves disagree."""
    found: list[tuple[str, tuple]] = []

    def collect(x: Any, path: str) -> None:
        if x is None:
            return
        if is_namedtuple(x):
            for name, value in zip(x._fields, x, strict=True):
                collect(value, f"{path}.{name}" if path else name)
        elif isinstance(x, tuple | list):
            for i, value in enumerate(x):
                collect(value, f"{path}[{i}]")
        else:
            found.append((path or "<root>", tuple(x.shape[:n_dim])))

    collect(buffer, "")
    if not found:
        raise ValueError("Buffer has no array leaves.")
    dims = found[0][1]
    for path, d in found:
        if d != dims:
            raise ValueError(f"Leading dims disagree: {found[0][0]} has {dims}, {path} has {d}.")
    return dims


__all__ = [
    "NamedTupleSchema",
    "buffer_from_example",
    "build_array",
    "buffer_func",
    "buffer_method",
    "buffer_to",
    "get_leading_dims",
    "np_mp_array",
    "numpify_buffer",
    "sentinel_value",
    "torchify_buffer",
]
