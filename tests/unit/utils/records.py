"""Module-level records and child-process targets for the utils tests.

Children started by spawn or forkserver import this module to unpickle their arguments, so
everything they need lives here, at module level, and the imports stay light (no torch).
"""

import os
import sys
import time
from collections import namedtuple

import numpy as np

from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.shared_memory import np_mp_array

Point = namedarraytuple("Point", ["x", "y"])
Outer = namedarraytuple("Outer", ["point", "z", "extra"])
PlainInfo = namedtuple("PlainInfo", ["score", "flag"])

READY = 1.0


def _describe_value(value):
    if value is None:
        return None
    if hasattr(value, "_fields"):
        return (type(value).__name__, value._fields)
    return np.asarray(value).tolist()


def describe_record(record, conn):
    """Send back what the child sees: type name, module, fields and the field values."""
    values = [_describe_value(v) for v in record]
    conn.send((type(record).__name__, type(record).__module__, record._fields, values))
    conn.close()


def write_buffer(buffer, view, value):
    """Fill the whole buffer record with ``value`` and its view with ``value + 1``."""
    buffer[:] = value
    view.x[...] = value + 1
    view.y[...] = value + 1


def raise_after_allocating(flag):
    """Allocate shared memory of our own, then fail."""
    own = np_mp_array((1024,), np.float64)
    own[:] = 1.0
    flag[0] = READY
    raise RuntimeError("deliberate failure in child")


def wait_to_be_killed(flag):
    """Allocate shared memory of our own, say so, then wait for SIGKILL."""
    own = np_mp_array((4096,), np.float64)
    own[:] = 2.0
    flag[0] = READY
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.01)
    sys.exit(5)  # never killed: the test fails on the exit code


def send_pid_and_seed(conn):
    """Report this process's make_seed() value."""
    from rlpyt.utils.seed import make_seed

    conn.send((os.getpid(), make_seed()))
    conn.close()


def read_concurrently(lock, conn):
    """Take a read lock while the parent holds one; report the reader count seen."""
    with lock:
        conn.send(lock.n_readers)
    conn.close()


def try_write_while_held(lock, conn):
    """Report whether the write lock can be taken (the parent holds it)."""
    got = lock.write_lock.acquire(timeout=0.2)
    if got:
        lock.write_lock.release()
    conn.send(got)
    conn.close()


def hammer(lock, counter, pair, n_rounds, conn):
    """Non-atomic increments under the write lock; consistency checks under read locks."""
    torn = 0
    for i in range(n_rounds):
        with lock.write_lock:
            value = counter[0]
            time.sleep(0)  # invite a switch between read and write
            counter[0] = value + 1
            pair[0] = i
            time.sleep(0)
            pair[1] = i
        with lock:
            torn += int(pair[0] != pair[1])
    conn.send(torn)
    conn.close()
