"""Inter-process synchronisation helpers (rlpyt's ``rlpyt.utils.synchronize`` API).

- :class:`RWLock` (many readers, one writer): ``BaseAgent.async_cpu`` guards the shared-memory
  model with it, so sampler processes never read half-copied weights while the optimizer
  process writes them (asynchronous runs).
- :func:`drain_queue`: empty a multiprocessing queue into a list, with sentinel handling.
- :func:`find_port`: a free TCP port for torch.distributed's rendezvous, distinct per run when
  several runs share a machine.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import socket
from multiprocessing.context import BaseContext
from multiprocessing.queues import Queue as MpQueue
from typing import Any

_FIRST_PORT = 29500  # torch.distributed's default MASTER_PORT
_PORT_STRIDE = 100


class RWLock:
    """Many simultaneous readers or one writer, across processes.

    ``with lock:`` holds a read lock; ``with lock.write_lock:`` holds the write lock. The first
    reader in takes the write lock and the last reader out releases it, so a writer waits for
    all readers and readers wait for a writer. (Readers keep coming => a writer can starve.)

    Pass the lock to child processes in their ``Process`` arguments, under any start method.

    Args:
        ctx: multiprocessing context for the semaphores. Default: the spawn context, whose
            named semaphores can be handed to children started by fork, forkserver or spawn
            (a lock made in the fork context cannot go to a spawn or forkserver child).
    """

    def __init__(self, ctx: BaseContext | None = None):
        ctx = mp.get_context("spawn") if ctx is None else ctx
        self.write_lock = ctx.Lock()
        self._count_lock = ctx.Lock()
        self._read_count = ctx.RawValue("i", 0)  # readers inside now, shared by all processes

    def __enter__(self) -> RWLock:
        self.acquire_read()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release_read()

    @property
    def n_readers(self) -> int:
        """Number of read locks held right now (for diagnostics)."""
        return self._read_count.value

    def acquire_read(self) -> None:
        """Enter as a reader; blocks while a writer holds the lock."""
        with self._count_lock:
            self._read_count.value += 1
            if self._read_count.value == 1:
                self.write_lock.acquire()

    def release_read(self) -> None:
        """Leave as a reader; the last reader out lets writers in."""
        with self._count_lock:
            if self._read_count.value <= 0:
                raise RuntimeError("RWLock.release_read called without a matching acquire_read.")
            self._read_count.value -= 1
            if self._read_count.value == 0:
                self.write_lock.release()

    def acquire_write(self) -> None:
        """Take the write lock (same as entering ``with lock.write_lock:``)."""
        self.write_lock.acquire()

    def release_write(self) -> None:
        """Release the write lock."""
        self.write_lock.release()


def drain_queue(
    queue_obj: queue.Queue | MpQueue,
    n_sentinel: int = 0,
    guard_sentinel: bool = False,
    timeout: float | None = None,
) -> list:
    """Empty a queue into a list; ``None`` items are sentinels and never returned.

    Args:
        queue_obj: A ``queue.Queue`` or multiprocessing queue.
        n_sentinel: If positive, block until this many sentinels arrive and return what came
            before them. Otherwise take only what is there now, without blocking (items put
            just before the call by another process may not be visible yet).
        guard_sentinel: In non-blocking mode, stop at the first sentinel and put it back, so a
            later blocking drain still sees it.
        timeout: Seconds to wait for each item in blocking mode (None: wait forever).

    Returns:
        The non-sentinel items, in queue order.

    Raises:
        TimeoutError: Blocking mode and no item came within ``timeout``.
    """
    if n_sentinel > 0:
        return _drain_until_sentinels(queue_obj, n_sentinel, timeout)
    contents: list[Any] = []
    while True:
        try:
            item = queue_obj.get(block=False)
        except queue.Empty:
            return contents
        if item is None:
            if guard_sentinel:
                queue_obj.put(None)
                return contents
            continue
        contents.append(item)


def _drain_until_sentinels(
    queue_obj: queue.Queue | MpQueue, n_sentinel: int, timeout: float | None
) -> list:
    contents: list[Any] = []
    n_seen = 0
    while n_seen < n_sentinel:
        try:
            item = queue_obj.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(
                f"drain_queue: waited {timeout} s for a queue item; got {n_seen} of "
                f"{n_sentinel} sentinels (None) and {len(contents)} items. Is a worker dead?"
            ) from None
        if item is None:
            n_seen += 1
        else:
            contents.append(item)
    return contents


def find_port(offset: int) -> int:
    """First free TCP port on 127.0.0.1 among ``29500 + offset``, ``+ 100``, ``+ 200``, ...

    Runs stacked on one machine pass distinct offsets so their torch.distributed stores do not
    collide. The port is only probed (bound, then closed), so another process could still take
    it before use; distinct offsets make that unlikely.

    Args:
        offset: In ``[0, 100)``, typically the run slot.
    """
    if not 0 <= offset < _PORT_STRIDE:
        raise ValueError(f"find_port offset must be in [0, {_PORT_STRIDE}), got {offset}.")
    for port in range(_FIRST_PORT + offset, 65536, _PORT_STRIDE):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken
            return port
    raise RuntimeError(f"No free port among {_FIRST_PORT + offset} + k * {_PORT_STRIDE}.")
