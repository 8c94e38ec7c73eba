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
