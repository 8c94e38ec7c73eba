"""The processes and the process group of a synchronous multi-process run (SyncRl).

Box: Runner. :class:`rlpyt.runners.sync_rl.SyncRl` calls these to become one rank of a
``torch.distributed`` group. Two ways in, same runner:

- the master's start: the process that calls ``train()`` is rank 0 ("the master"). It
  starts one process per further entry of its affinity list (:class:`RankGroup`, built on the
  parallel samplers' :class:`~rlpyt.samplers.parallel.worker_group.WorkerGroup`), each running
  :func:`run_rank`, and all meet at rank 0's store on a port of 127.0.0.1 the OS picks
  (:func:`make_store`).
- torchrun's: ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``MASTER_ADDR`` and ``MASTER_PORT`` are
  in the environment (:func:`torchrun_env`); every process is one rank and nothing is started.

Failure handling (docs/distributed.md): a rank that raises reports its traceback on the group's
queue and exits; one that dies closes its gloo sockets. Either way the other ranks' next
collective fails at once (gloo raises on a closed peer connection), and the master turns its own
error into a :class:`RankError` naming the failed rank with the original traceback
(:meth:`RankGroup.failure`). Collectives of a rank that is alive but stuck time out after
``timeout`` seconds (the process group's timeout).
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from datetime import timedelta
from multiprocessing.context import BaseContext
from typing import Any

import torch.distributed as dist

from rlpyt.samplers.parallel.worker_group import Report, WorkerGroup, _death_details

TORCHRUN_KEYS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
REPORT_WAIT_SECONDS = 3.0  # master: after its collective failed, time to wait for a rank's report


class RankError(RuntimeError):
    """A rank of a SyncRl run raised an exception or died.

    Attributes:
        rank: The failed rank.
        details: Its formatted traceback, or how its process ended.
    """

    def __init__(self, rank: int, details: str):
        self.rank = rank
        self.details = details
        super().__init__(f"SyncRl rank {rank} failed:\n{details}")


def torchrun_env() -> tuple[int, int, int] | None:
    """``(rank, world_size, local_rank)`` when started by torchrun, else None.

    Raises:
        RuntimeError: only some of torchrun's variables are set (a half-configured launch).
    """
    present = [key for key in TORCHRUN_KEYS if key in os.environ]
    if not present:
        return None
    if len(present) < len(TORCHRUN_KEYS):
        missing = [key for key in TORCHRUN_KEYS if key not in os.environ]
        raise RuntimeError(
            f"SyncRl found {', '.join(present)} but not {', '.join(missing)} in the "
            "environment: start it with torchrun (which sets all of them), or unset them to "
            "let the runner start its own ranks."
        )
    return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ["LOCAL_RANK"])


def make_store(world_size: int, timeout: float) -> dist.TCPStore:
    """The rendezvous store of the master's start (rank 0) on a port of 127.0.0.1 the OS picks.

    Binding port 0 cannot collide with another run (a probed free port could be taken before
    use); the ranks learn the port (``store.port``) from their process arguments.
    """
    return dist.TCPStore(
        "127.0.0.1",
        0,
        world_size,
        is_master=True,
        timeout=timedelta(seconds=timeout),
        wait_for_workers=False,
    )


def init_process_group(
    rank: int,
    world_size: int,
    nccl: bool,
    timeout: float,
    port: int | None = None,
    store: dist.Store | None = None,
) -> str:
    """Join the default process group: NCCL or gloo.

    Args:
        rank: This process's rank.
        world_size: Number of ranks.
        nccl: Use NCCL (every rank on a GPU of its own); else gloo (CPU ranks, or ranks that
            share a GPU: NCCL refuses two ranks on one device, gloo reduces CUDA tensors too).
        timeout: Seconds a collective may wait for the other ranks before it raises.
        port: the master's start, ranks above 0: the port of rank 0's store on 127.0.0.1.
        store: the master's start, rank 0: its store (:func:`make_store`). Neither ``port`` nor
            ``store``: torchrun's environment (``env://``).

    Returns:
        The backend's name.
    """
    backend = "nccl" if nccl else "gloo"
    delta = timedelta(seconds=timeout)
    if store is None and port is not None:
        store = dist.TCPStore("127.0.0.1", port, world_size, is_master=False, timeout=delta)
    if store is None:
        dist.init_process_group(backend, rank=rank, world_size=world_size, timeout=delta)
    else:
        dist.init_process_group(
            backend, store=store, rank=rank, world_size=world_size, timeout=delta
        )
    return backend


def destroy_process_group() -> None:
    """Leave the default process group, if this process is in one (idempotent)."""
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


class RankGroup(WorkerGroup):
    """The master's handle on the rank processes it started (ranks 1 .. world_size - 1).

    The sampler's worker group with rank wording: a report ``("error", rank, (None,
    traceback))`` or a dead process becomes a :class:`RankError`; ``stop`` joins, terminates
    and kills as there.

    Args:
        ctx: multiprocessing context.
        n_rank: Number of ranks the master starts (``world_size - 1``).
        timeout: Seconds :meth:`gather` waits for the ranks' final reports.
    """

    process_name = "rlpyt-sync-rank"

    def __init__(self, ctx: BaseContext, n_rank: int, timeout: float):
        super().__init__(ctx, n_rank, [[] for _ in range(n_rank)], timeout)

    def _raise_if_error(self, report: Report) -> None:
        kind, rank, payload = report
        if kind == "error":
            self.stop()
            raise RankError(rank, payload[1])

    def _check_processes(self) -> None:
        for index, process in enumerate(self.processes):
            if process.exitcode in (None, 0):  # running, or finished (its "done" is queued)
                continue
            self._read_last_reports(index)  # its error report may still be in flight
            details = _death_details(process).replace("worker process", "rank process")
            self.stop()
            raise RankError(index + 1, details)

    def failure(self, wait: float = REPORT_WAIT_SECONDS) -> RankError | None:
        """The first rank failure reported or seen within ``wait`` seconds, else None.

        Called by the master after one of its own collectives failed: the cause is usually a
        rank that raised (its report is on the way) or died.
        """
        deadline = time.monotonic() + wait
        while True:
            try:
                self.check()
            except RankError as error:
                return error
            if time.monotonic() > deadline:
                return None
            time.sleep(0.1)


def run_rank(common_kwargs: dict, worker_kwargs: dict) -> None:
    """Entry of a rank process started by the master: train as rank ``worker_kwargs['rank']``.

    Args:
        common_kwargs: ``runner`` (the SyncRl runner, not started), ``report_queue``,
            ``port``, ``world_size``, ``seed`` (rank 0's), ``resume_path``.
        worker_kwargs: ``rank``.
    """
    rank = worker_kwargs["rank"]
    report_queue = common_kwargs["report_queue"]
    runner: Any = common_kwargs["runner"]
    exit_with_parent()
    try:
        runner.join_as_rank(
            rank,
            common_kwargs["world_size"],
            common_kwargs["seed"],
            common_kwargs["port"],
            report_queue,
        )
        runner.train(resume_from=common_kwargs["resume_path"])
    except BaseException:  # Ctrl-C too: the master learns which rank stopped, and why
        report_queue.put(("error", rank, (None, traceback.format_exc())))
        report_queue.close()
        report_queue.join_thread()  # the report is out before the process ends
        raise SystemExit(1) from None
    report_queue.put(("done", rank, None))


def exit_with_parent(poll_seconds: float = 1.0) -> None:
    """In a rank process: end it when the process that started it is gone (no orphans)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, name="rlpyt-parent-watch", daemon=True).start()
