"""Numpy arrays in OS shared memory that survive fork, forkserver and spawn.

Memory comes from ``multiprocessing.RawArray``: on Linux an anonymous file in /dev/shm that is
unlinked as soon as it is created, so no named segment is ever left behind, whatever way the
process ends. Children started by fork inherit the mapping; children started by spawn or
forkserver receive it when the array is passed in the ``Process`` arguments (the file
descriptor travels with the process start). Arrays cannot be sent through queues: workers get
their buffers at start-up and write into them in place.

Box: Utilities. The parallel samplers allocate every shared buffer through :func:`np_mp_array`
and, before the first one, ask :func:`check_shared_memory` whether /dev/shm has room for all of
them (:func:`nbytes_of` their example records times their rows), so the size check lives here,
next to the allocator whose memory it measures.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import shutil
import weakref
from collections.abc import Mapping
from multiprocessing.context import get_spawning_popen
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np
import torch
from numpy.typing import DTypeLike
from torch.multiprocessing.reductions import reduce_tensor

RawBytes = ctypes.Array[ctypes.c_char]  # the multiprocessing.RawArray behind shared arrays


class SharedNdarray(np.ndarray):
    """An ndarray (or view) over shared memory that travels to child processes by reference.

    In ``Process`` arguments (spawn, forkserver) it pickles as a reference to the shared
    memory, so the child writes where the parent reads. Through ordinary ``pickle`` (snapshots,
    ``copy.deepcopy``) it pickles by value, as a plain ndarray. Through a multiprocessing queue
    or pipe it raises: the memory can only be handed over when the process starts.
    """

    def __array_finalize__(self, obj: object) -> None:
        # Cheap on purpose (runs on every slice); whether this array really lies inside the
        # shared memory (a view) or not (a ufunc result, a copy) is checked when it matters.
        self._shared_raw = getattr(obj, "_shared_raw", None)

    def __reduce__(self) -> Any:
        return np.asarray(self).__reduce__()


def _shared_raw_of(array: object) -> RawBytes | None:
    """The RawArray that ``array``'s elements lie in, or None (copies, ufunc results)."""
    raw = getattr(array, "_shared_raw", None)
    if raw is None or not isinstance(array, np.ndarray):
        return None
    start = ctypes.addressof(raw)
    low, high = _byte_bounds(array)
    return raw if start <= low and high <= start + ctypes.sizeof(raw) else None


def _byte_bounds(array: np.ndarray) -> tuple[int, int]:
    """First and one-past-last byte addresses touched by ``array`` (any strides)."""
    low = high = array.__array_interface__["data"][0]
    if array.size == 0:
        return low, high
    for n, stride in zip(array.shape, array.strides, strict=True):
        if stride < 0:
            low += (n - 1) * stride
        else:
            high += (n - 1) * stride
    return low, high + array.itemsize


def _reduce_for_child(array: SharedNdarray) -> Any:
    """ForkingPickler reducer: a reference to the shared memory while a process starts."""
    raw = _shared_raw_of(array)
    if raw is None:
        return np.asarray(array).__reduce__()
    if get_spawning_popen() is None:
        raise RuntimeError(
            "A shared-memory array cannot be sent through a multiprocessing queue or pipe; "
            "pass it in the Process arguments when the child starts, or send a copy "
            "(np.array(x))."
        )
    offset = array.__array_interface__["data"][0] - ctypes.addressof(raw)
    return (_rebuild_shared, (raw, array.shape, array.dtype, offset, array.strides))


ForkingPickler.register(SharedNdarray, _reduce_for_child)

# Every RawArray np_mp_array made, by start address, while something holds it (weak values).
_RAWS: weakref.WeakValueDictionary[int, RawBytes] = weakref.WeakValueDictionary()


def _raw_holding(tensor: torch.Tensor) -> RawBytes | None:
    """The RawArray of :func:`np_mp_array` that ``tensor``'s storage lies in, or None."""
    if tensor.device.type != "cpu" or tensor.is_sparse or tensor.requires_grad:
        return None
    storage = tensor.untyped_storage()
    low, high = storage.data_ptr(), storage.data_ptr() + storage.nbytes()
    for start, raw in list(_RAWS.items()):
        if start <= low and high <= start + ctypes.sizeof(raw):
            return raw
    return None


def _reduce_tensor_for_child(tensor: torch.Tensor) -> Any:
    """ForkingPickler reducer of CPU tensors: by reference to :func:`np_mp_array` memory.

    A tensor over a shared buffer (``torch.from_numpy`` of a :class:`SharedNdarray`, as the
    samplers' ``samples_pyt`` and the async double buffer are) is rebuilt in a starting child
    over the same memory. torch's own reducer, used for every other tensor, would copy such a
    storage into new shared memory and swap it in under the parent's tensor too: after a spawn
    the parent and child wrote different buffers, and AsyncRl's replay received the buffers'
    "never written" values.
    """
    raw = _raw_holding(tensor) if get_spawning_popen() is not None else None
    if raw is None:
        return reduce_tensor(tensor)
    try:
        array = tensor.numpy()  # a view: same memory, shape and strides
    except (TypeError, RuntimeError):  # a dtype numpy lacks (bfloat16): torch's way
        return reduce_tensor(tensor)
    offset = array.__array_interface__["data"][0] - ctypes.addressof(raw)
    return (_rebuild_shared_tensor, (raw, array.shape, array.dtype, offset, array.strides))


def _rebuild_shared_tensor(
    raw: RawBytes, shape: tuple[int, ...], dtype: DTypeLike, offset: int, strides: tuple | None
) -> torch.Tensor:
    return torch.from_numpy(_rebuild_shared(raw, shape, dtype, offset, strides))


ForkingPickler.register(torch.Tensor, _reduce_tensor_for_child)


def _rebuild_shared(
    raw: RawBytes, shape: tuple[int, ...], dtype: DTypeLike, offset: int, strides: tuple | None
) -> SharedNdarray:
    # A ctypes array exports the buffer protocol; numpy's stubs do not list it as a buffer.
    _RAWS[ctypes.addressof(raw)] = raw  # here and in children: tensors over it travel too
    array = np.ndarray(shape, dtype, buffer=raw, offset=offset, strides=strides)  # type: ignore[arg-type]
    shared = array.view(SharedNdarray)
    shared._shared_raw = raw
    return shared


def np_mp_array(shape: int | tuple[int, ...], dtype: DTypeLike) -> SharedNdarray:
    """Allocate a zero-filled numpy array in shared memory.

    Args:
        shape: Array shape.
        dtype: Numpy dtype (not object).

    Returns:
        A :class:`SharedNdarray`; pass it (or any view of it) to child processes in their
        ``Process`` arguments, under any start method.
    """
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError("Shared-memory arrays cannot hold Python objects (dtype=object).")
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = mp.RawArray(ctypes.c_char, max(nbytes, 1))
    return _rebuild_shared(raw, shape, dtype, 0, None)


def is_shared(array: object) -> bool:
    """True if ``array`` lives in memory made by :func:`np_mp_array` (itself or a view)."""
    return _shared_raw_of(array) is not None


def nbytes_of(example: object) -> int:
    """Bytes of one example record: a leaf, a (nested) namedtuple or a mapping of them.

    ``None`` fields count 0; e.g. the examples ``AttrDict`` of a sampler gives the bytes of
    one env step over every buffer field.
    """
    if example is None:
        return 0
    if isinstance(example, Mapping):
        return sum(nbytes_of(value) for value in example.values())
    if isinstance(example, tuple):
        return sum(nbytes_of(field) for field in example)
    if isinstance(example, torch.Tensor):  # also one that requires grad (a view of log_std)
        return example.element_size() * example.nelement()
    return int(np.asarray(example).nbytes)


def shared_memory_free_bytes(path: str = "/dev/shm") -> int | None:
    """Free bytes in the shared-memory file system, or None where there is none."""
    if not os.path.isdir(path):
        return None
    return shutil.disk_usage(path).free


def check_shared_memory(nbytes: int, path: str = "/dev/shm") -> None:
    """Raise a clear error if ``nbytes`` of shared memory cannot be had.

    Docker's default /dev/shm is 64 MiB; torch and numpy then die with a bus error at first
    touch instead of a message. Checking first turns that into an instruction.
    """
    free = shared_memory_free_bytes(path)
    if free is not None and nbytes > free:
        raise MemoryError(
            f"The sampler needs {nbytes / 2**20:.1f} MiB of shared memory but {path} has only "
            f"{free / 2**20:.1f} MiB free. Enlarge it (docker: --shm-size=2g; or "
            f"'mount -o remount,size=2G {path}'), or reduce batch_T/batch_B."
        )
