"""WorkerGroup, the master's watch over the sampler workers: gather, error reports, stop."""

import multiprocessing as mp
import time

import pytest

from rlpyt.samplers.parallel.worker import WorkerError
from rlpyt.samplers.parallel.worker_group import WorkerGroup


def reporting_target(common_kwargs, worker_kwargs):
    """A worker that reports ready, then fails (rank 1) or reports a batch (rank 0)."""
    queue, rank = common_kwargs["queue"], worker_kwargs["rank"]
    queue.put(("ready", rank, None))
    time.sleep(0.5)  # after the master gathered both ready reports
    if rank == 1:
        queue.put(("error", rank, (3, "Traceback (most recent call last):\nKeyError: 'x'")))
        return
    queue.put(("batch", rank, ["info"]))
    time.sleep(30)  # stays alive until stopped


def test_worker_group_gathers_then_raises_a_reported_error_and_stops_all():
    group = WorkerGroup(mp.get_context("fork"), 2, [[0, 1], [2, 3]], timeout=10)
    group.start(reporting_target, dict(queue=group.report_queue), [dict(rank=0), dict(rank=1)])
    processes = list(group.processes)
    assert group.gather("ready") == [None, None]
    with pytest.raises(WorkerError) as info:
        group.gather("batch")
    assert (info.value.rank, info.value.env_index) == (1, 3) and "KeyError" in str(info.value)
    assert group.processes == [] and not any(p._popen for p in processes)


def idle_target(common_kwargs, worker_kwargs):
    """A worker that only waits to be stopped."""
    time.sleep(30)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_arguments_that_do_not_pickle_name_the_start_method_and_the_fix(method):
    group = WorkerGroup(mp.get_context(method), 1, [[0]], timeout=10)
    with pytest.raises(TypeError) as info:
        group.start(idle_target, dict(EnvCls=lambda: None), [dict(rank=0)])
    message = str(info.value)
    assert f"'{method}' start method" in message and "rlpyt-sampler-worker-0" in message
    assert "lambda" in message  # pickle's own words: what did not pickle
    assert "start_method='fork'" in message and "top level of an importable module" in message
    assert group.processes == []


def test_a_worker_that_cannot_start_stops_those_already_started_and_says_why():
    reason = "The test spawns its workers."
    group = WorkerGroup(mp.get_context("spawn"), 2, [[0], [1]], timeout=10, start_reason=reason)
    with pytest.raises(TypeError) as info:
        group.start(idle_target, {}, [dict(rank=0), dict(rank=1, EnvCls=lambda: None)])
    assert "rlpyt-sampler-worker-1" in str(info.value) and reason in str(info.value)
    assert "start_method='fork'" not in str(info.value)  # the reason replaces the advice
    assert group.processes == []  # worker 0 was started, then stopped
    assert not [p for p in mp.active_children() if p.name.startswith(group.process_name)]


def test_fork_passes_the_same_arguments_without_pickling():
    group = WorkerGroup(mp.get_context("fork"), 1, [[0]], timeout=10)
    group.start(idle_target, dict(EnvCls=lambda: None), [dict(rank=0)])
    try:
        assert [p.is_alive() for p in group.processes] == [True]
    finally:
        group.stop()
    assert group.processes == []


def test_processes_take_the_names_given_in_start_order():
    group = WorkerGroup(mp.get_context("fork"), 2, [[], []], timeout=10, names=["alpha", "beta"])
    group.start(idle_target, {}, [dict(rank=0), dict(rank=1)])
    try:
        assert [p.name for p in group.processes] == ["alpha", "beta"]
    finally:
        group.stop()
    with pytest.raises(ValueError, match="1 names for 2 processes"):
        WorkerGroup(mp.get_context("fork"), 2, [[], []], timeout=10, names=["alpha"])
