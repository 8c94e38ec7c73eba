"""WorkerGroup: the master's handle on the sampler worker processes.

Box: Sampler (master side). :class:`~rlpyt.samplers.parallel.base.ParallelSamplerBase` builds
one group at start-up and calls it for everything that involves the workers; the worker side
is :mod:`rlpyt.samplers.parallel.worker`.

The group starts the processes (everything they need travels in the ``Process`` arguments, so
fork, forkserver and spawn all work), hands out work by releasing one ``start`` semaphore per
worker (the worker acquires it), and gathers one report per worker from a single queue.
Invariant: the master never blocks without watching. While it waits on that queue or on a
semaphore a worker releases (GPU ``obs_ready``), it wakes every ``POLL_SECONDS`` to check for an
error report and for dead processes, so a worker that raised or was killed turns into a
:class:`~rlpyt.samplers.parallel.worker.WorkerError` in the master (an exception within about a
second; a death without a report after a further 1 s wait for in-flight reports, then the
other workers' stop: about 5 s at most plus scheduling delays, docs/samplers.md), and a
worker that makes no progress for ``timeout`` seconds into a TimeoutError. ``stop`` sets
``quit`` and releases every semaphore a worker may wait on, so each worker wakes, sees ``quit``
and exits.
"""

from __future__ import annotations

import ctypes
import pickle
import queue
import signal
import time
from collections.abc import Callable, Sequence
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Semaphore
from typing import Any

from rlpyt.samplers.parallel.worker import WorkerError

POLL_SECONDS = 0.2  # master: interval of error/liveness checks while waiting on workers
JOIN_SECONDS = 3.0  # shutdown: time given to workers to exit before they are terminated

Report = tuple[str, int, Any]  # (kind, worker rank, payload); the payload depends on the kind


class WorkerGroup:
    """The master's handle on the worker processes: start, command, gather, watch, stop.

    Args:
        ctx: multiprocessing context (its start method is used for everything).
        n_worker: Number of worker processes.
        env_ranks: Global env indexes of each worker (for error messages).
        timeout: Seconds without progress after which a wait raises (a hung env).
        start_reason: Why the context's start method was chosen, when the user did not
            choose it (the error for arguments that do not pickle says it); None: the user's
            choice or the platform's default.
        names: The processes' names, in the order :meth:`start` gets their kwargs (``ps``,
            ``mp.active_children()`` and the error messages show them); None:
            ``<process_name>-<rank>``.
    """

    def __init__(
        self,
        ctx: BaseContext,
        n_worker: int,
        env_ranks: Sequence[Sequence[int]],
        timeout: float,
        start_reason: str | None = None,
        names: Sequence[str] | None = None,
    ):
        if names is not None and len(names) != n_worker:
            raise ValueError(f"WorkerGroup got {len(names)} names for {n_worker} processes.")
        self.ctx = ctx
        self.start_reason = start_reason
        self.names = None if names is None else list(names)
        self.n_worker = n_worker
        self.env_ranks = [list(r) for r in env_ranks]
        self.timeout = float(timeout)
        self.report_queue = ctx.Queue()
        self.quit = ctx.RawValue(ctypes.c_bool, False)
        self.start_semaphores = [ctx.Semaphore(0) for _ in range(n_worker)]
        self.state_queues = [ctx.Queue() for _ in range(n_worker)]  # master -> worker states
        self.wake_on_stop: list[Semaphore] = []  # more semaphores workers wait on (GPU act_ready)
        self.processes: list[BaseProcess] = []
        self._pending: list[Report] = []  # reports read early while checking for errors

    process_name = "rlpyt-sampler-worker"  # + "-<rank>": the default names of the children

    def start(
        self, target: Callable[..., None], common_kwargs: dict, worker_kwargs: list[dict]
    ) -> None:
        """Start one process per worker; everything goes in the Process arguments.

        Raises:
            TypeError: under spawn or forkserver, an argument does not pickle (a lambda or a
                local function as ``EnvCls``, for example); the message says which start
                method, why it was used and how to fix it. The workers already started are
                stopped first.
        """
        for index, kwargs in enumerate(worker_kwargs):
            name = (
                f"{self.process_name}-{kwargs['rank']}" if self.names is None else self.names[index]
            )
            # Every context has Process; typeshed's BaseContext does not declare it.
            process = self.ctx.Process(  # type: ignore[attr-defined]
                target=target,
                kwargs=dict(common_kwargs=common_kwargs, worker_kwargs=kwargs),
                name=name,
            )
            try:
                process.start()
            except (pickle.PicklingError, AttributeError, TypeError) as exc:
                method = self.ctx.get_start_method()
                if method == "fork":  # nothing is pickled: not a pickling error
                    raise
                self.stop()
                raise TypeError(self._unpicklable_message(process.name, method, exc)) from exc
            self.processes.append(process)

    def _unpicklable_message(self, name: str, method: str, exc: BaseException) -> str:
        why = self.start_reason or (
            f"The '{method}' start method was chosen by the sampler's start_method or is the "
            "platform's default; start_method='fork' pickles nothing, where the OS has it "
            "(Linux)."
        )
        return (
            f"Could not start {name}: the '{method}' start method pickles everything the "
            f"process receives (EnvCls, env_kwargs, the agent and its model), and one of them "
            f"does not pickle: {exc}. {why} Define env classes, functions and models at the "
            "top level of an importable module (not as a lambda or inside a function); "
            "functools.partial of such a function pickles."
        )

    def release_all(self) -> None:
        """Let every worker start its next batch or evaluation."""
        for semaphore in self.start_semaphores:
            semaphore.release()

    def gather(self, kind: str) -> list:
        """Wait for one ``kind`` report from every worker; payloads in rank order."""
        payloads: dict[int, Any] = {}
        deadline = time.monotonic() + self.timeout
        while len(payloads) < self.n_worker:
            kind_got, rank, payload = self._next_report(deadline, f"'{kind}' reports")
            if kind_got != kind:
                raise RuntimeError(f"Sampler protocol error: got '{kind_got}' from worker {rank}.")
            payloads[rank] = payload
        return [payloads[r] for r in sorted(payloads)]

    def _next_report(self, deadline: float, what: str) -> Report:
        if self._pending:
            return self._pending.pop(0)
        while True:
            try:
                report = self.report_queue.get(timeout=POLL_SECONDS)
            except queue.Empty:
                self._check_processes()
                self._check_deadline(deadline, what)
                continue
            self._raise_if_error(report)
            return report

    def acquire(self, semaphore: Semaphore, what: str = "a worker") -> None:
        """Acquire a semaphore a worker releases, watching for worker errors and deaths."""
        if semaphore.acquire(timeout=POLL_SECONDS):
            return
        deadline = time.monotonic() + self.timeout
        while not semaphore.acquire(timeout=POLL_SECONDS):
            self.check()
            self._check_deadline(deadline, what)

    def check(self) -> None:
        """Raise WorkerError if a worker reported an error or has died."""
        while True:
            try:
                report = self.report_queue.get_nowait()
            except queue.Empty:
                break
            self._raise_if_error(report)
            self._pending.append(report)
        self._check_processes()

    def _raise_if_error(self, report: Report) -> None:
        kind, rank, payload = report
        if kind == "error":
            env_index, details = payload
            self.stop()
            raise WorkerError(rank, env_index, self.env_ranks[rank], details)

    def _check_processes(self) -> None:
        for rank, process in enumerate(self.processes):
            if process.exitcode is None:
                continue
            self._read_last_reports(rank)  # an error report may still be in flight
            details = _death_details(process)
            self.stop()
            raise WorkerError(rank, None, self.env_ranks[rank], details)

    def _read_last_reports(self, rank: int) -> None:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                report = self.report_queue.get(timeout=0.1)
            except queue.Empty:
                continue
            self._raise_if_error(report)
            self._pending.append(report)

    def _check_deadline(self, deadline: float, what: str) -> None:
        if time.monotonic() > deadline:
            self.stop()
            raise TimeoutError(
                f"Sampler workers made no progress for {self.timeout:.0f} s while the master "
                f"waited for {what} (a hung env?). Raise the sampler's worker_timeout if "
                "batches legitimately take longer."
            )

    def stop(self) -> None:
        """Ask workers to quit, then join, terminate or kill them; idempotent."""
        self.quit.value = True
        for semaphore in self.start_semaphores + self.wake_on_stop:
            semaphore.release()
        deadline = time.monotonic() + JOIN_SECONDS
        for process in self.processes:
            while process.is_alive() and time.monotonic() < deadline:
                self._drain()  # a worker blocked on a full queue pipe could not exit
                process.join(timeout=0.05)
        for process in self.processes:
            if process.is_alive():
                process.terminate()
                process.join(timeout=1.0)
            if process.is_alive():
                process.kill()
                process.join(timeout=1.0)
        for process in self.processes:
            if process.exitcode is not None:
                process.close()
        self.processes = []
        self._drain()
        for q in (self.report_queue, *self.state_queues):
            q.close()
            q.cancel_join_thread()

    def _drain(self) -> None:
        try:
            while True:
                self.report_queue.get_nowait()
        except (queue.Empty, OSError, ValueError):
            pass


def _death_details(process: BaseProcess) -> str:
    code = process.exitcode
    if code is not None and code < 0:
        try:
            how = f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exited with code {code}"
    return f"worker process {process.name} (pid {process.pid}) {how} without reporting an error."
