"""Would a shared-memory report channel shorten the parallel samplers' hand-off?

Box: benchmarks (never part of the test suite). A parallel sampler's batch ends with a hand-off:
the master releases a worker's ``start`` semaphore, the worker fills its columns, then puts one
``batch`` report (its completed TrajInfos) on the report queue, a ``multiprocessing.Queue``
whose feeder thread pickles the report and writes it to a pipe; the master unpickles it. This
script times that hand-off without the batch, one worker pinned to CPU 1 and the master to
CPU 0 (as ``sampler_throughput.py`` pins its two workers), for reports of 4, 54 and 703
TrajInfos (what one batch of part (c), of ``--parts d`` at ``batch_T=5``, and of part (d)
completes on this machine), made as the vector collectors make them, through:

- ``queue``: the samplers' channel (release, ``Queue.put``; the master's ``Queue.get``);
- ``shared memory + semaphore``: the alternative the issue proposed, the one a replacement
  would build: the worker pickles the report into a shared buffer and releases a ``done``
  semaphore; the master acquires it and unpickles from the buffer;
- ``semaphores only (floor)``: release and acquire, no payload: the least any channel between
  two processes that sleep while they wait can cost (two wake-ups);
- ``pickle + unpickle in one process``: the payload's own share, with no channel.

Each row is the median [min-max] over ``--repeats`` windows of ``--round-trips`` round trips,
the channels interleaved within a repeat. Usage: ``python benchmarks/report_channel.py
[--repeats 5] [--round-trips 2000]``.
"""

from __future__ import annotations

import argparse
import ctypes
import multiprocessing as mp
import pickle
import statistics
import time
from collections.abc import Callable

import numpy as np

from rlpyt.envs.traj_info import TrajInfoBatch, TrajInfoFactory
from rlpyt.utils.launching.cpus import set_cpu_affinity

SIZES = (4, 54, 703)
BUFFER_BYTES = 1 << 24  # room for the largest report, pickled
MASTER_CPU, WORKER_CPU = 0, 1


def report(n: int) -> list:
    """``n`` completed TrajInfos as a vector collector hands them in (CartPole-like sums)."""
    batch = TrajInfoBatch(TrajInfoFactory(discount=0.99), n)
    rng = np.random.default_rng(0)
    for _ in range(20):
        reward = np.ones(n, dtype=np.float32)
        batch.step(None, np.zeros(n), reward, rng.random(n) < 0.05, None, None, None)
    return batch.finish(list(range(n)), np.zeros((n, 4), dtype=np.float32))


# -- the worker side of each channel ------------------------------------------------------------


def queue_worker(start, queue, payload: list, n: int) -> None:  # noqa: ANN001
    set_cpu_affinity(WORKER_CPU)
    for _ in range(n):
        start.acquire()
        queue.put(("batch", 0, payload))


def shared_worker(start, done, buffer, payload: list, n: int) -> None:  # noqa: ANN001
    set_cpu_affinity(WORKER_CPU)
    view = np.frombuffer(buffer, dtype=np.uint8)
    for _ in range(n):
        start.acquire()
        data = pickle.dumps(("batch", 0, payload), protocol=pickle.HIGHEST_PROTOCOL)
        view[8 : 8 + len(data)] = np.frombuffer(data, dtype=np.uint8)
        view[:8] = np.frombuffer(len(data).to_bytes(8, "little"), dtype=np.uint8)
        done.release()


def semaphore_worker(start, done, n: int) -> None:  # noqa: ANN001
    set_cpu_affinity(WORKER_CPU)
    for _ in range(n):
        start.acquire()
        done.release()


# -- the master side: microseconds per round trip -------------------------------------------------


def _run(ctx, target: Callable, args: tuple, loop: Callable[[], None], n: int) -> float:  # noqa: ANN001
    process = ctx.Process(target=target, args=(*args, n))
    process.start()
    try:
        begin = time.perf_counter()
        for _ in range(n):
            loop()
        return (time.perf_counter() - begin) / n * 1e6
    finally:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()


def queue_us(ctx, payload: list, n: int) -> float:  # noqa: ANN001
    start, queue = ctx.Semaphore(0), ctx.Queue()

    def loop() -> None:
        start.release()
        queue.get()

    try:
        return _run(ctx, queue_worker, (start, queue, payload), loop, n)
    finally:
        queue.close()


def shared_us(ctx, payload: list, n: int) -> float:  # noqa: ANN001
    start, done = ctx.Semaphore(0), ctx.Semaphore(0)
    buffer = ctx.RawArray(ctypes.c_uint8, BUFFER_BYTES)
    view = memoryview(buffer).cast("B")

    def loop() -> None:
        start.release()
        done.acquire()
        size = int.from_bytes(view[:8], "little")
        pickle.loads(view[8 : 8 + size])

    return _run(ctx, shared_worker, (start, done, buffer, payload), loop, n)


def semaphore_us(ctx, n: int) -> float:  # noqa: ANN001
    start, done = ctx.Semaphore(0), ctx.Semaphore(0)

    def loop() -> None:
        start.release()
        done.acquire()

    return _run(ctx, semaphore_worker, (start, done), loop, n)


def pickle_us(payload: list, n: int) -> float:
    begin = time.perf_counter()
    for _ in range(n):
        pickle.loads(pickle.dumps(("batch", 0, payload), protocol=pickle.HIGHEST_PROTOCOL))
    return (time.perf_counter() - begin) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--round-trips", type=int, default=2000)
    args = parser.parse_args()
    ctx = mp.get_context("fork")
    set_cpu_affinity(MASTER_CPU)
    n = args.round_trips
    rows: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        rows.setdefault("semaphores only (floor)", []).append(semaphore_us(ctx, n))
        for size in SIZES:
            payload = report(size)
            trips = max(50, n * 4 // size) if size > 54 else n
            rows.setdefault(f"{size} TrajInfos: queue", []).append(queue_us(ctx, payload, trips))
            rows.setdefault(f"{size} TrajInfos: shared memory + semaphore", []).append(
                shared_us(ctx, payload, trips)
            )
            rows.setdefault(f"{size} TrajInfos: pickle + unpickle in one process", []).append(
                pickle_us(payload, trips)
            )
    print(f"\nmicroseconds per report round trip (median [min-max] of {args.repeats} repeats)")
    for name, values in rows.items():
        print(
            f"  {name:50s} {statistics.median(values):9.1f} [{min(values):.1f}-{max(values):.1f}]"
        )
    for size in SIZES:
        queue = statistics.median(rows[f"{size} TrajInfos: queue"])
        shared = statistics.median(rows[f"{size} TrajInfos: shared memory + semaphore"])
        print(f"  {size} TrajInfos: shared memory / queue = {shared / queue:.2f}")


if __name__ == "__main__":
    main()
