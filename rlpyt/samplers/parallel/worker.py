"""Sampler worker processes, and the master's watch over them.

Master side, :class:`WorkerGroup`: starts the processes (everything they need travels in the
``Process`` arguments, so fork, forkserver and spawn all work), hands out work by releasing one
``start`` semaphore per worker, and gathers one report per worker from a single queue. While it
waits on that queue or on a semaphore released by a worker, it wakes every ``POLL_SECONDS`` to
check for an error report and for dead processes, so a worker that raised or was killed turns
into a :class:`WorkerError` in the master within about a second.

Worker side, :func:`sampling_process`: builds its envs (each wrapped in :class:`IndexedEnv`, so an
exception carries the env's global index) and collectors, decorrelates, reports ``ready``, then
loops: wait for ``start`` -> collect a batch, run an evaluation, or hand over / take back its
collector state (``ctrl.state_op``; the master queues states on the worker's ``state_queue``)
-> report. Any exception is reported with the rank, the env index and the formatted traceback,
then the worker exits. A worker waiting for the master wakes every ``WORKER_POLL_SECONDS`` to
check that the master is alive and has not asked it to quit, so no worker outlives its master.
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import torch

from rlpyt.samplers.state import collector_state, load_collector_state
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.launching.affinity import set_cpu_affinity
from rlpyt.utils.seed import set_seed

POLL_SECONDS = 0.2  # master: interval of error/liveness checks while waiting on workers
WORKER_POLL_SECONDS = 1.0  # worker: interval of master-liveness checks while waiting
JOIN_SECONDS = 3.0  # shutdown: time given to workers to exit before they are terminated
ENV_INDEX_ATTR = "rlpyt_env_index"  # set on exceptions raised by an env (its global index)
STATE_SECONDS = 60.0  # worker: longest wait for a state the master has queued
NO_STATE_OP, GET_STATE, SET_STATE = 0, 1, 2  # values of ctrl.state_op


class WorkerError(RuntimeError):
    """A sampler worker raised an exception or died.

    Attributes:
        rank: Worker rank.
        env_index: Global index of the env that raised, or None (agent code, or a dead worker).
        env_ranks: Global indexes of all the worker's envs.
        details: The worker's formatted traceback, or how the process ended.
    """

    def __init__(self, rank: int, env_index: int | None, env_ranks: Sequence[int], details: str):
        self.rank = rank
        self.env_index = env_index
        self.env_ranks = list(env_ranks)
        self.details = details
        where = (
            f"env index {env_index} (global)"
            if env_index is not None
            else f"env index unknown (agent or worker code; its envs: {_span(env_ranks)})"
        )
        super().__init__(f"Sampler worker rank {rank} failed at {where}:\n{details}")


def _span(env_ranks: Sequence[int]) -> str:
    ranks = list(env_ranks)
    if not ranks:
        return "none"
    return f"{ranks[0]}..{ranks[-1]}" if len(ranks) > 1 else str(ranks[0])


class MasterGoneError(Exception):
    """Raised in a worker when the master died or asked it to quit while it waited."""


def wait_for_master(semaphore: Any, quit_flag: Any, parent_pid: int) -> None:
    """Acquire a semaphore the master releases; raise MasterGoneError if the master quit or died."""
    while not semaphore.acquire(timeout=WORKER_POLL_SECONDS):
        if quit_flag.value or os.getppid() != parent_pid:
            raise MasterGoneError()
    if quit_flag.value:
        raise MasterGoneError()


class IndexedEnv:
    """An env that tags exceptions from ``step``/``reset`` with its global index.

    The exception itself is re-raised unchanged (type, message, traceback), with the attribute
    ``rlpyt_env_index`` added, so the worker can report which env failed. Other attributes are
    those of the wrapped env.
    """

    def __init__(self, env: Any, index: int):
        self.env = env
        self.index = index

    def step(self, action: Any) -> Any:  # noqa: D102
        try:
            return self.env.step(action)
        except BaseException as exc:
            _tag(exc, self.index)
            raise

    def reset(self) -> Any:  # noqa: D102
        try:
            return self.env.reset()
        except BaseException as exc:
            _tag(exc, self.index)
            raise

    def __getattr__(self, name: str) -> Any:
        if name == "env":  # not set yet (unpickling): do not recurse
            raise AttributeError(name)
        return getattr(self.env, name)


def _tag(exc: BaseException, index: int) -> None:
    if getattr(exc, ENV_INDEX_ATTR, None) is None:
        try:
            setattr(exc, ENV_INDEX_ATTR, index)
        except AttributeError:  # exceptions with __slots__: index stays unknown
            pass


def build_envs(EnvCls: Callable, env_kwargs: dict, env_ranks: Sequence[int], seed: Any) -> list:  # noqa: N803
    """Make one env per global index, seeded ``seed + index`` (as SerialSampler seeds them)."""
    envs = []
    for index in env_ranks:
        try:
            env = EnvCls(**env_kwargs)
        except BaseException as exc:
            _tag(exc, index)
            raise
        if seed is not None and callable(getattr(env, "seed", None)):
            env.seed(seed + index)
        envs.append(IndexedEnv(env, index))
    return envs


def initialize_worker(rank: int, seed: Any, cpus: Any, torch_threads: int) -> None:
    """Pin CPUs (only if ``cpus`` given), set torch threads, seed the global RNGs."""
    if cpus is not None:
        set_cpu_affinity(cpus)
    # One thread per worker: workers already fill the cores, more threads only contend.
    torch.set_num_threads(int(torch_threads))
    if seed is not None:
        set_seed(seed + rank)


# -- worker process ---------------------------------------------------------------------------


def sampling_process(common_kwargs: dict, worker_kwargs: dict) -> None:
    """Main function of a sampler worker process (see the module docstring).

    Args:
        common_kwargs: Same for all workers: ``EnvCls, env_kwargs, agent, batch_T,
            CollectorCls, TrajInfoCls, eval_CollectorCls, eval_env_kwargs, eval_max_T,
            eval_max_trajectories, eval_n_envs, eval_seed_offset, max_decorrelation_steps,
            seed, global_B, torch_threads, ctrl, report_queue, parent_pid``.
        worker_kwargs: This worker's ``rank, env_ranks, eval_env_ranks, samples_np, sync,
            step_buffer_np, eval_step_buffer_np, cpus``.
    """
    c, w = AttrDict(common_kwargs), AttrDict(worker_kwargs)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the master handles Ctrl-C and stops us
    report = c.report_queue
    envs: list = []
    eval_envs: list = []
    try:
        initialize_worker(w.rank, c.seed, w.cpus, c.torch_threads)
        envs = build_envs(c.EnvCls, c.env_kwargs, w.env_ranks, c.seed)
        eval_seed = None if c.seed is None else c.seed + c.eval_seed_offset
        eval_envs = build_envs(c.EnvCls, c.eval_env_kwargs, w.eval_env_ranks, eval_seed)
        _serve_master(c, w, envs, eval_envs)  # a loaded state replaces envs' items in place
    except MasterGoneError:
        report.cancel_join_thread()  # nobody reads any more; do not block the exit
    except BaseException as exc:  # noqa: BLE001 (everything is reported to the master)
        index = getattr(exc, ENV_INDEX_ATTR, None)
        report.put(("error", w.rank, (index, traceback.format_exc())))
        report.close()
        report.join_thread()  # make sure the report leaves before the process ends
    finally:
        _close_envs(envs + eval_envs)


def _serve_master(c: AttrDict, w: AttrDict, envs: list, eval_envs: list) -> None:
    """Start the envs, report ready, then do what the master asks until it says quit."""
    collector = _make_collector(c, w, envs)
    eval_collector = _make_eval_collector(c, w, eval_envs)
    agent_inputs, traj_infos = collector.start_envs(c.max_decorrelation_steps)
    collector.start_agent()
    c.report_queue.put(("ready", w.rank, None))
    while True:
        wait_for_master(w.sync.start, c.ctrl.quit, c.parent_pid)
        itr = c.ctrl.itr.value
        if c.ctrl.state_op.value != NO_STATE_OP:
            agent_inputs, traj_infos = _transfer_state(c, w, collector, agent_inputs, traj_infos)
            continue
        if c.ctrl.do_eval.value:
            per_env = [] if eval_collector is None else eval_collector.collect_per_env(itr)
            c.report_queue.put(("eval", w.rank, per_env))
            continue
        agent_inputs, traj_infos, completed = collector.collect_batch(agent_inputs, traj_infos, itr)
        c.report_queue.put(("batch", w.rank, completed))
        collector.reset_if_needed(agent_inputs)  # between batches: overlaps the training


def _transfer_state(
    c: AttrDict, w: AttrDict, collector: Any, agent_inputs: Any, traj_infos: list
) -> tuple[Any, list]:
    """Report this worker's collector state, or load the one the master queued for it."""
    if c.ctrl.state_op.value == GET_STATE:
        state = collector_state(collector, agent_inputs, traj_infos, c.agent)
        c.report_queue.put(("state", w.rank, state))
        return agent_inputs, traj_infos
    # The master queued the state before releasing us: it is there, or about to be.
    state = w.state_queue.get(timeout=STATE_SECONDS)
    agent_inputs, traj_infos = load_collector_state(collector, agent_inputs, state, c.agent)
    c.report_queue.put(("state_loaded", w.rank, None))
    return agent_inputs, traj_infos


def _make_collector(c: AttrDict, w: AttrDict, envs: list) -> Any:
    return c.CollectorCls(
        rank=w.rank,
        envs=envs,
        samples_np=w.samples_np,
        batch_T=c.batch_T,
        TrajInfoCls=c.TrajInfoCls,
        agent=c.agent,
        sync=w.sync,
        step_buffer_np=w.step_buffer_np,
        global_B=c.global_B,
        env_ranks=w.env_ranks,
        seed=c.seed,
    )


def _make_eval_collector(c: AttrDict, w: AttrDict, eval_envs: list) -> Any:
    if not eval_envs:
        return None
    max_trajectories = c.eval_max_trajectories
    if max_trajectories is not None:
        # Collectors give each of their envs ceil(max / n_local) episodes; keep the quota per
        # env that all eval envs together would get, as in serial sampling.
        max_trajectories = -(-max_trajectories // c.eval_n_envs) * len(eval_envs)
    return c.eval_CollectorCls(
        rank=w.rank,
        envs=eval_envs,
        TrajInfoCls=c.TrajInfoCls,
        max_T=c.eval_max_T,
        agent=c.agent,
        sync=w.sync,
        step_buffer_np=w.eval_step_buffer_np,
        max_trajectories=max_trajectories,
    )


def _close_envs(envs: list) -> None:
    for env in envs:
        try:
            env.close()
        except Exception:  # noqa: BLE001, S110 (closing on the way out must not mask the cause)
            pass


# -- master side ------------------------------------------------------------------------------


class WorkerGroup:
    """The master's handle on the worker processes: start, command, gather, watch, stop.

    Args:
        ctx: multiprocessing context (its start method is used for everything).
        n_worker: Number of worker processes.
        env_ranks: Global env indexes of each worker (for error messages).
        timeout: Seconds without progress after which a wait raises (a hung env).
    """

    def __init__(self, ctx: Any, n_worker: int, env_ranks: Sequence[Sequence[int]], timeout: float):
        self.ctx = ctx
        self.n_worker = n_worker
        self.env_ranks = [list(r) for r in env_ranks]
        self.timeout = float(timeout)
        self.report_queue = ctx.Queue()
        self.quit = ctx.RawValue(ctypes.c_bool, False)
        self.start_semaphores = [ctx.Semaphore(0) for _ in range(n_worker)]
        self.state_queues = [ctx.Queue() for _ in range(n_worker)]  # master -> worker states
        self.wake_on_stop: list = []  # more semaphores workers may wait on (GPU act_ready)
        self.processes: list = []
        self._pending: list = []  # reports read early while checking for errors

    def start(self, target: Callable, common_kwargs: dict, worker_kwargs: list[dict]) -> None:
        """Start one process per worker; everything goes in the Process arguments."""
        for kwargs in worker_kwargs:
            process = self.ctx.Process(
                target=target,
                kwargs=dict(common_kwargs=common_kwargs, worker_kwargs=kwargs),
                name=f"rlpyt-sampler-worker-{kwargs['rank']}",
            )
            process.start()
            self.processes.append(process)

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

    def _next_report(self, deadline: float, what: str) -> tuple:
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

    def acquire(self, semaphore: Any, what: str = "a worker") -> None:
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

    def _raise_if_error(self, report: tuple) -> None:
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


def _death_details(process: Any) -> str:
    code = process.exitcode
    if code is not None and code < 0:
        try:
            how = f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exited with code {code}"
    return f"worker process {process.name} (pid {process.pid}) {how} without reporting an error."
