"""Shared-memory buffers across fork, forkserver and spawn, and nothing left in /dev/shm."""

import copy
import multiprocessing as mp
import os
import pickle
import re
import signal
import time
from collections import namedtuple
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest
import torch

from rlpyt.utils.buffer import buffer_from_example, torchify_buffer
from rlpyt.utils.shared_memory import check_shared_memory, is_shared, nbytes_of, np_mp_array

from . import records
from .records import READY, Point

START_METHODS = ["fork", "forkserver", "spawn"]
SHM = "/dev/shm"
needs_dev_shm = pytest.mark.skipif(not os.path.isdir(SHM), reason="no /dev/shm here")


def shm_listing():
    return set(os.listdir(SHM)) if os.path.isdir(SHM) else set()


def new_segments(before, pids):
    """Entries added to /dev/shm since ``before``, ignoring other test runs' processes.

    Named semaphores (sem.*) are not memory; pid-tagged names (pym-<pid>-, torch_<pid>_)
    count only if the pid is one of ours.
    """
    leaked = set()
    for name in shm_listing() - before:
        if name.startswith("sem."):
            continue
        tagged = re.match(r"(?:pym-|torch_)(\d+)", name)
        if tagged and int(tagged.group(1)) not in pids:
            continue
        leaked.add(name)
    return leaked


def wait_for_flag(flag, proc, seconds=60):
    deadline = time.monotonic() + seconds
    while flag[0] != READY and time.monotonic() < deadline and proc.is_alive():
        time.sleep(0.01)
    assert flag[0] == READY, "child never reported its allocation"


@pytest.mark.parametrize("method", START_METHODS)
def test_child_writes_through_record_and_view_are_seen_by_parent(method):
    before = shm_listing()
    ctx = mp.get_context(method)
    buffer = Point(x=np_mp_array((4, 3), np.float32), y=np_mp_array((4, 3), np.int32))
    view = buffer[2:]  # rows 2 and 3, a view into the same memory
    proc = ctx.Process(target=records.write_buffer, args=(buffer, view, 5))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    # write_buffer sets every row to 5, then the view's rows to 6.
    assert buffer.x[:2].tolist() == [[5.0] * 3] * 2 and buffer.x[2:].tolist() == [[6.0] * 3] * 2
    assert buffer.y[:2].tolist() == [[5] * 3] * 2 and buffer.y[2:].tolist() == [[6] * 3] * 2
    del buffer, view
    assert not new_segments(before, {os.getpid(), proc.pid})


@pytest.mark.parametrize("method", START_METHODS)
def test_buffer_from_example_in_shared_memory_crosses_start_method(method):
    ctx = mp.get_context(method)
    example = Point(x=np.zeros(2, np.float64), y=np.int64(0))
    buffer = buffer_from_example(example, (3, 2), share_memory=True)
    view = buffer[:, 1]  # strided view: every time step of env 1
    proc = ctx.Process(target=records.write_buffer, args=(buffer, view, 1))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    assert (buffer.x[:, 0] == 1).all() and (buffer.x[:, 1] == 2).all()
    assert (buffer.y[:, 0] == 1).all() and (buffer.y[:, 1] == 2).all()


@pytest.mark.parametrize("method", START_METHODS)
def test_torch_views_of_shared_buffers_stay_shared_in_child_and_parent(method):
    """Tensors over np_mp_array memory (samplers' samples_pyt, AsyncRl's double buffer) travel
    by reference too. torch's own reducer copied them into new memory and swapped that in
    under the parent's tensors as well, so a spawned child and its parent parted ways."""
    ctx = mp.get_context(method)
    buffer = Point(x=np_mp_array((4, 3), np.float32), y=np_mp_array((4, 3), np.int32))
    tensors = torchify_buffer(buffer)
    proc = ctx.Process(target=records.write_buffer, args=(tensors, tensors[2:], 5))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    assert buffer.x[:2].tolist() == [[5.0] * 3] * 2 and buffer.x[2:].tolist() == [[6.0] * 3] * 2
    assert buffer.y[:2].tolist() == [[5] * 3] * 2 and buffer.y[2:].tolist() == [[6] * 3] * 2
    for tensor, array in zip(tensors, buffer, strict=True):  # still over the shared memory
        assert tensor.data_ptr() == array.__array_interface__["data"][0]
    other = torch.zeros(3)  # not shared memory: torch's own way, by value
    assert torch.equal(pickle.loads(ForkingPickler.dumps(other)), other)


@needs_dev_shm
@pytest.mark.parametrize("method", START_METHODS)
def test_child_that_raises_leaves_no_segment(method):
    before = shm_listing()
    ctx = mp.get_context(method)
    flag = np_mp_array((1,), np.float64)
    proc = ctx.Process(target=records.raise_after_allocating, args=(flag,))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 1 and flag[0] == READY
    del flag
    assert not new_segments(before, {os.getpid(), proc.pid})


@needs_dev_shm
@pytest.mark.parametrize("method", START_METHODS)
def test_child_killed_with_sigkill_leaves_no_segment(method):
    before = shm_listing()
    ctx = mp.get_context(method)
    flag = np_mp_array((1,), np.float64)
    proc = ctx.Process(target=records.wait_to_be_killed, args=(flag,))
    proc.start()
    try:
        wait_for_flag(flag, proc)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(60)
    assert proc.exitcode == -signal.SIGKILL
    del flag
    assert not new_segments(before, {os.getpid(), proc.pid})


def test_sending_through_a_pipe_or_queue_raises_a_clear_error():
    array = np_mp_array((3,), np.float32)
    with pytest.raises(RuntimeError, match="Process arguments"):
        ForkingPickler.dumps(array[1:])
    parent_conn, child_conn = mp.Pipe()
    with pytest.raises(RuntimeError, match="Process arguments"):
        child_conn.send(array)


def test_plain_pickle_and_deepcopy_copy_values():
    array = np_mp_array((2, 3), np.int16)
    array[...] = np.arange(6).reshape(2, 3)
    restored = pickle.loads(pickle.dumps(array[:, 1:]))
    assert type(restored) is np.ndarray and restored.tolist() == [[1, 2], [4, 5]]
    copied = copy.deepcopy(array)
    copied[0, 0] = 9
    assert array[0, 0] == 0 and not is_shared(copied)
    assert pickle.loads(pickle.dumps(copied))[0, 0] == 9


def test_views_are_shared_but_computed_arrays_are_not():
    array = np_mp_array((4, 4), np.float64)
    assert is_shared(array) and is_shared(array[1:, ::2]) and is_shared(array[::-1])
    assert not is_shared(array + 1) and not is_shared(array.sum(axis=0))
    assert not is_shared(np.zeros(3))
    # A computed array pickles by value even through the multiprocessing pickler.
    assert pickle.loads(ForkingPickler.dumps(array * 2)).shape == (4, 4)


def test_np_mp_array_rejects_objects_and_handles_empty_shapes():
    with pytest.raises(TypeError, match="object"):
        np_mp_array((2,), object)
    assert np_mp_array((0, 3), np.float32).shape == (0, 3)
    assert np_mp_array(5, np.uint8).shape == (5,)


def test_check_shared_memory_explains_how_to_enlarge(tmp_path):
    with pytest.raises(MemoryError, match="shm-size"):
        check_shared_memory(2**62, path=str(tmp_path))
    check_shared_memory(1, path=str(tmp_path))
    check_shared_memory(2**62, path=str(tmp_path / "absent"))  # no such file system: no check


Pair = namedtuple("Pair", ["a", "b"])


def test_nbytes_of_nested_examples():
    example = Pair(np.zeros((4, 3), np.float32), Pair(np.int64(1), None))
    assert nbytes_of(example) == 4 * 3 * 4 + 8


def test_nbytes_of_a_mapping_sums_its_values():
    examples = dict(observation=np.zeros(5, np.uint8), agent_info=Pair(np.float32(0), None))
    assert nbytes_of(examples) == 5 + 4


def test_nbytes_of_counts_tensors_that_require_grad():
    # A Gaussian agent's log_std is a view of a Parameter: it requires grad even under no_grad.
    log_std = torch.nn.Parameter(torch.zeros(6)).expand(1, -1)[0]
    assert log_std.requires_grad
    assert nbytes_of((log_std, np.zeros(3, np.float64))) == 6 * 4 + 3 * 8
