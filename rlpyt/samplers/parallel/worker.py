"""Sampler worker processes: the worker side of the parallel samplers.

Box: Sampler (worker side). :class:`~rlpyt.samplers.parallel.worker_group.WorkerGroup` starts
one process per worker with :func:`sampling_process` as its target; everything the worker needs
travels in the ``Process`` arguments (so fork, forkserver and spawn all work).

:func:`sampling_process` builds its envs (each wrapped in :class:`IndexedEnv`, so an exception
carries the env's global index) and collectors, decorrelates, reports ``ready``, then loops:
acquire its ``start`` semaphore (released by the master) -> collect a batch, run an evaluation,
or hand over / take back its collector state (``ctrl.state_op``; the master queues states on the
worker's ``state_queue``) -> put one report on the report queue. Any exception is reported with
the rank, the env index and the formatted traceback, then the worker exits. Invariant: no worker
outlives its master. A worker waiting for the master (:func:`wait_for_master`, also used by the
GPU collectors on ``act_ready``) wakes every ``WORKER_POLL_SECONDS`` to check that the master is
alive and has not set ``quit``.

:class:`WorkerError` lives here, with the other things both sides share (the ``ctrl.state_op``
values); the master raises it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.synchronize import Semaphore
from typing import TYPE_CHECKING, Any

from rlpyt.envs.base import Env, EnvStep
from rlpyt.envs.vector import is_vector_env_maker
from rlpyt.samplers.state import collector_state, load_collector_state
from rlpyt.samplers.vector import collector_class, make_envs
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.launching.affinity import set_cpu_affinity
from rlpyt.utils.launching.threads import decide_torch_threads, set_torch_threads
from rlpyt.utils.seed import set_seed

WORKER_POLL_SECONDS = 1.0  # worker: interval of master-liveness checks while waiting
ENV_INDEX_ATTR = "rlpyt_env_index"  # set on exceptions raised by an env (its global index)
STATE_SECONDS = 60.0  # worker: longest wait for a state the master has queued
NO_STATE_OP, GET_STATE, SET_STATE = 0, 1, 2  # values of ctrl.state_op

if TYPE_CHECKING:
    from rlpyt.agents.base import AgentInputs
    from rlpyt.envs.traj_info import TrajInfoRows
    from rlpyt.protocols import Collector
    from rlpyt.samplers.evaluation import BaseEvalCollector


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


def wait_for_master(semaphore: Semaphore, quit_flag: ctypes.c_bool, parent_pid: int) -> None:
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

    def __init__(self, env: Env, index: int):
        self.env = env
        self.index = index

    def step(self, action: Any) -> EnvStep:  # noqa: D102
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


def build_envs(
    EnvCls: Callable[..., Env],  # noqa: N803
    env_kwargs: dict,
    env_ranks: Sequence[int],
    seed: int | None,
) -> list[IndexedEnv]:
    """Make one env per global index, seeded ``seed + index`` (as SerialSampler seeds them).

    A vector-env maker builds one vector env over the (contiguous) block instead, seeded
    ``seed + env_ranks[0]`` (see ``rlpyt.samplers.vector.make_envs``).
    """
    if is_vector_env_maker(EnvCls):
        start = None if seed is None or not env_ranks else seed + env_ranks[0]
        return make_envs(EnvCls, env_kwargs, len(env_ranks), start)
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


def initialize_worker(
    rank: int, seed: int | None, cpus: int | Sequence[int] | None, torch_threads: int
) -> None:
    """Pin CPUs (only if ``cpus`` given), set torch threads, seed the global RNGs.

    ``torch_threads`` is the affinity's ``worker_torch_threads`` (default one: the workers
    already fill the cores, and their small forward passes gain nothing from more), capped at
    the worker's CPUs.
    """
    if cpus is not None:
        set_cpu_affinity(cpus)
    set_torch_threads(decide_torch_threads(requested=torch_threads, cpus=cpus))
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
    envs: list[IndexedEnv] = []
    eval_envs: list[IndexedEnv] = []
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


def _serve_master(
    c: AttrDict, w: AttrDict, envs: list[IndexedEnv], eval_envs: list[IndexedEnv]
) -> None:
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
    c: AttrDict,
    w: AttrDict,
    collector: Collector,
    agent_inputs: AgentInputs,
    traj_infos: TrajInfoRows,
) -> tuple[AgentInputs, TrajInfoRows]:
    """Report this worker's collector state, or load the one the master queued for it.

    The state includes this process's generators. The evaluation collector has none to save:
    every evaluation seeds its envs and generators from ``(seed, itr)``.
    """
    if c.ctrl.state_op.value == GET_STATE:
        state = collector_state(collector, agent_inputs, traj_infos, c.agent, process_rng=True)
        c.report_queue.put(("state", w.rank, state))
        return agent_inputs, traj_infos
    # The master queued the state before releasing us: it is there, or about to be.
    state = w.state_queue.get(timeout=STATE_SECONDS)
    agent_inputs, traj_infos = load_collector_state(collector, agent_inputs, state, c.agent)
    c.report_queue.put(("state_loaded", w.rank, None))
    return agent_inputs, traj_infos


def _make_collector(c: AttrDict, w: AttrDict, envs: list[IndexedEnv]) -> Collector:
    return collector_class(c.CollectorCls, envs)(
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


def _make_eval_collector(
    c: AttrDict, w: AttrDict, eval_envs: list[IndexedEnv]
) -> BaseEvalCollector | None:
    if not eval_envs:
        return None
    max_trajectories = c.eval_max_trajectories
    if max_trajectories is not None:
        # Collectors give each of their envs ceil(max / n_local) episodes; keep the quota per
        # env that all eval envs together would get, as in serial sampling.
        max_trajectories = -(-max_trajectories // c.eval_n_envs) * len(eval_envs)
    eval_collector = collector_class(c.eval_CollectorCls, eval_envs)(
        rank=w.rank,
        envs=eval_envs,
        TrajInfoCls=c.TrajInfoCls,
        max_T=c.eval_max_T,
        agent=c.agent,
        sync=w.sync,
        step_buffer_np=w.eval_step_buffer_np,
        max_trajectories=max_trajectories,
    )
    eval_collector.seed_evaluations(c.seed, w.eval_env_ranks)
    return eval_collector


def _close_envs(envs: list[IndexedEnv]) -> None:
    for env in envs:
        try:
            env.close()
        except Exception:  # noqa: BLE001, S110 (closing on the way out must not mask the cause)
            pass
