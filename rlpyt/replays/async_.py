"""Replays shared by several processes: storage in shared memory behind a reader-writer lock.

Box: Replay. The asynchronous runner (``AsyncRl``) builds one ``Async*`` replay in the master
(``algo.async_initialize``) before it starts its processes: memory copiers (writers) call
``append_samples``, the optimizer (reader) calls ``sample_batch`` and, with priorities,
``update_batch_priorities``. ``AsyncReplayBufferMixin`` goes first in the bases of every
``Async*`` class, which names the replay it shares: ``class AsyncUniformReplayBuffer(
AsyncReplayBufferMixin, UniformReplayBuffer, twin_of=UniformReplayBuffer)``; :func:`async_twin`
gives that class back.

Invariants:

- Everything that a write changes lives in shared memory: the stored fields, the frames, the
  ``valid`` flags, the cursor ``t`` and ``_buffer_full`` (here), and with priorities the sum
  tree's nodes, input priorities and cursor (``AsyncSumTree``). So two copiers writing in turn
  leave the buffer exactly as one process making the same appends would.
- Writes (``append_samples``, ``load_state_dict``, and ``update_batch_priorities`` through
  ``write_guard``) hold the write lock; draws (``sample_batch``, ``state_dict``) the read
  lock, so a batch never mixes rows from before and after a write.
- Each process draws with its own generator: a child process reseeds the inherited one on its
  first draw (from the inherited state and its pid), so two optimizer processes never draw the
  same indexes; the process that built the replay keeps its seeded generator.
- The replay pickles into ``Process`` arguments under fork, forkserver and spawn: the shared
  arrays travel by reference, the lock as named semaphores (``rlpyt.utils.shared_memory``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from rlpyt.replays.base import BaseReplayBuffer
from rlpyt.replays.n_step import BaseNStepReturnBuffer
from rlpyt.utils.shared_memory import np_mp_array
from rlpyt.utils.synchronize import RWLock

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from rlpyt.utils.collections import NamedArrayTupleLike


def new_shared_cursor() -> np.ndarray:
    """``[t, buffer_full]`` in shared memory, for :class:`SharedCursorField` attributes."""
    return np_mp_array(2, np.int64)


class HasCursor(Protocol):
    """An object with a shared cursor array (what :class:`SharedCursorField` reads)."""

    _cursor: np.ndarray


class SharedCursorField:
    """An attribute kept in ``obj._cursor[index]`` (shared memory), read as ``kind``.

    The cursor ``t`` and ``_buffer_full`` of async replays and of ``AsyncSumTree`` are such
    fields, so every process reads the value the last writer left.
    """

    def __init__(self, index: int, kind: type) -> None:
        self.index, self.kind = index, kind

    def __get__(self, obj: HasCursor | None, objtype: type | None = None) -> Any:
        return self if obj is None else self.kind(obj._cursor[self.index])

    def __set__(self, obj: HasCursor, value: int | bool) -> None:
        obj._cursor[self.index] = value


# Each sync replay class -> its shared-memory twin (declared by the twin's ``twin_of``).
_TWINS: dict[type, type[BaseReplayBuffer]] = {}


def async_twin(cls: type) -> type[BaseReplayBuffer] | None:
    """The shared-memory replay class for ``cls``: itself if async, else its declared twin.

    Returns:
        ``cls`` when it is an async replay (``async_``), else the class declared with
        ``twin_of=cls``, else None.
    """
    if issubclass(cls, BaseReplayBuffer) and cls.async_:
        return cls
    return _TWINS.get(cls)


class AsyncReplayBufferMixin(BaseNStepReturnBuffer):
    """Shared storage, shared cursor and a reader-writer lock for an n-step replay buffer.

    A subclass of the n-step storage whose methods it guards; listed first in the bases, before
    the replay it shares, which the class statement names with ``twin_of`` (so that
    :func:`async_twin` finds it). Keywords: those of that replay. Attributes: ``rw_lock`` (an
    ``RWLock``; ``with replay.rw_lock:`` reads, ``with replay.rw_lock.write_lock:`` writes).
    """

    async_ = True

    def __init_subclass__(
        cls, twin_of: type[BaseReplayBuffer] | None = None, **kwargs: Any
    ) -> None:
        """Register ``cls`` as the shared-memory twin of ``twin_of`` (one of its bases)."""
        super().__init_subclass__(**kwargs)
        if twin_of is None:
            return
        if not issubclass(cls, twin_of) or twin_of.async_:
            raise TypeError(
                f"{cls.__name__}: twin_of={twin_of.__name__} must be the replay it shares, a "
                "base class that keeps its storage in one process (async_ False)."
            )
        _TWINS[twin_of] = cls

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Before the storage's __init__, which sets t and _buffer_full through the properties.
        self._cursor = new_shared_cursor()
        self.rw_lock = RWLock()
        self._rng_pid = os.getpid()
        super().__init__(*args, **kwargs)

    t = SharedCursorField(0, int)  # the next row written
    _buffer_full = SharedCursorField(1, bool)

    def append_samples(
        self, samples: NamedArrayTupleLike, valid: ArrayLike | None = None
    ) -> tuple[int, np.ndarray]:
        """The replay's ``append_samples`` under the write lock (memory copiers call it)."""
        with self.rw_lock.write_lock:
            return super().append_samples(samples, valid)

    def write_guard(self) -> AbstractContextManager[object]:
        """The write lock, held by the other writes (prioritized replays' priority updates)."""
        return self.rw_lock.write_lock

    def sample_batch(self, batch_B: int) -> Any:
        """The replay's ``sample_batch`` under the read lock, with this process's generator."""
        self._own_rng()
        with self.rw_lock:
            return super().sample_batch(batch_B)  # type: ignore[safe-super]  # the replay's own

    def state_dict(self) -> dict[str, Any]:
        """The replay's ``state_dict`` under the read lock (a consistent copy)."""
        with self.rw_lock:
            return super().state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """The replay's ``load_state_dict`` under the write lock."""
        with self.rw_lock.write_lock:
            super().load_state_dict(state)

    def _own_rng(self) -> None:
        """In a process other than the builder's, reseed the inherited generator once.

        In place, so that the sum tree (which holds the same generator) follows.
        """
        pid = os.getpid()
        if pid == self._rng_pid:
            return
        seed = [int(self.rng.integers(2**62)), pid]
        self.rng.bit_generator.state = type(self.rng.bit_generator)(seed).state
        self._rng_pid = pid
