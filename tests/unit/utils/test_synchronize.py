"""RWLock across processes under every start method; drain_queue; find_port."""

import multiprocessing as mp
import queue
import socket

import numpy as np
import pytest

from rlpyt.utils.shared_memory import np_mp_array
from rlpyt.utils.synchronize import RWLock, drain_queue, find_port

from . import records

START_METHODS = ["fork", "forkserver", "spawn"]


def run_child(ctx, target, *args):
    """Start ``target(*args, conn)`` and return what it sends back."""
    parent_conn, child_conn = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=args + (child_conn,))
    proc.start()
    child_conn.close()
    assert parent_conn.poll(60), "child sent nothing"
    result = parent_conn.recv()
    proc.join(30)
    assert proc.exitcode == 0
    return result


@pytest.mark.parametrize("method", START_METHODS)
def test_readers_share_the_lock_across_processes(method):
    lock = RWLock()
    with lock:
        assert run_child(mp.get_context(method), records.read_concurrently, lock) == 2
    assert lock.n_readers == 0
    assert lock.write_lock.acquire(timeout=5)  # last reader out released the writer
    lock.write_lock.release()


@pytest.mark.parametrize("method", START_METHODS)
def test_a_held_read_or_write_lock_excludes_a_writer_in_another_process(method):
    ctx = mp.get_context(method)
    lock = RWLock()
    with lock:
        assert run_child(ctx, records.try_write_while_held, lock) is False
    with lock.write_lock:
        assert run_child(ctx, records.try_write_while_held, lock) is False
    assert run_child(ctx, records.try_write_while_held, lock) is True


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_writers_serialise_and_readers_never_see_a_torn_write(method):
    ctx = mp.get_context(method)
    lock = RWLock()
    counter = np_mp_array((1,), np.int64)
    pair = np_mp_array((2,), np.int64)
    n_procs, n_rounds = 3, 300
    connections, procs = [], []
    for _ in range(n_procs):
        parent_conn, child_conn = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=records.hammer, args=(lock, counter, pair, n_rounds, child_conn))
        proc.start()
        child_conn.close()
        connections.append(parent_conn)
        procs.append(proc)
    torn = [conn.recv() for conn in connections if conn.poll(120)]
    for proc in procs:
        proc.join(30)
    assert [p.exitcode for p in procs] == [0] * n_procs
    assert torn == [0] * n_procs
    assert counter[0] == n_procs * n_rounds  # no lost read-modify-write updates


def test_release_read_without_acquire_is_an_error():
    with pytest.raises(RuntimeError, match="acquire_read"):
        RWLock().release_read()


def test_rwlock_accepts_an_explicit_context():
    lock = RWLock(ctx=mp.get_context("fork"))
    with lock:
        assert lock.n_readers == 1
    lock.acquire_write()
    lock.release_write()


def test_drain_queue_non_blocking_skips_sentinels():
    q = queue.Queue()
    for item in [1, None, 2, 3]:
        q.put(item)
    assert drain_queue(q) == [1, 2, 3]
    assert drain_queue(q) == []


def test_drain_queue_guard_sentinel_puts_it_back():
    q = queue.Queue()
    for item in [1, None, 2]:
        q.put(item)
    assert drain_queue(q, guard_sentinel=True) == [1]
    assert [q.get_nowait() for _ in range(2)] == [2, None]


def test_drain_queue_blocks_until_n_sentinels():
    q = queue.Queue()
    for item in [1, None, 2, None, 3]:
        q.put(item)
    assert drain_queue(q, n_sentinel=2) == [1, 2]
    assert q.get_nowait() == 3


def test_drain_queue_times_out_with_a_count():
    q = queue.Queue()
    q.put("a")
    q.put(None)
    with pytest.raises(TimeoutError, match="1 of 2 sentinels"):
        drain_queue(q, n_sentinel=2, timeout=0.05)


def test_drain_queue_with_a_multiprocessing_queue():
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    q.put({"Return": 1.0})
    q.put(None)
    assert drain_queue(q, n_sentinel=1, timeout=30) == [{"Return": 1.0}]


def test_find_port_skips_a_taken_port_in_steps_of_100():
    offset = 97
    first = find_port(offset)
    assert first >= 29500 + offset and (first - 29500 - offset) % 100 == 0
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", first))
        holder.listen()
        second = find_port(offset)
    assert second > first and (second - first) % 100 == 0


@pytest.mark.parametrize("offset", [-1, 100])
def test_find_port_rejects_offsets_outside_0_to_99(offset):
    with pytest.raises(ValueError, match="offset"):
        find_port(offset)
