"""AsyncRl and AsyncRlEval: sampling, memory copying and optimization in separate processes.

Box: Runner. A launch script builds an asynchronous sampler (``rlpyt.samplers.async_``), an
agent and a replay algorithm (DQN family, DDPG, TD3, SAC) and calls ``train()``. The processes
(docs/async.md has the diagram):

- **master = optimizer.** Builds everything shared (the agent's model and the double buffer via
  ``sampler.async_initialize``, the replay via ``algo.async_initialize``), starts the other
  processes, then loops: wait for the replay-ratio throttle, ``algo.optimize_agent``,
  ``agent.send_shared_memory()`` (weights published after every optimization, on CPU too), and
  log when the sampler passes a log point.
- **sampler** (one process, plus its own workers for parallel samplers). Waits ``go`` (the
  master releases it once the optimizer is ready, and after a resume has published the
  snapshot's weights); then per batch: wait for the throttle (``max_sampler_lead``; released
  by the master), acquire ``sample_copied[db]`` (released by copier ``db``), fill half ``db``
  of the double buffer, release ``sample_ready[db]``, send the batch's TrajInfos (and
  evaluations) to the master, set ``sampler_itr``, flip ``db``.
- **memory copiers** 0 and 1: copier ``db`` acquires ``sample_ready[db]`` and its turn
  ``copy_turn[db]``, appends half ``db`` to the shared replay (``algo.samples_to_buffer`` then
  ``replay.append_samples``, which takes the replay's write lock), releases the other copier's
  turn and ``sample_copied[db]``. Turns keep the appends in batch order, so an n-step
  window or a sequence that spans two batches reads their rows in time order.

The throttle: the optimizer's k-th call waits until ``sampler_itr >= 1 + min_steps_learn //
(T B) + k * batch_size * updates_per_sync / (T B * replay_ratio)`` (the throttle point), so the
data reuse never exceeds ``replay_ratio``. Once learning starts, the sampler waits too, rather
than run more than ``max_sampler_lead`` batches (default 1) beyond the batch the optimizer needs
next, so the ratio also holds from below; ``max_sampler_lead=None`` lets it run free.

Failure handling reuses the parallel samplers' :class:`~rlpyt.samplers.parallel.worker_group.
WorkerGroup`: a child that raises or dies makes the master raise :class:`AsyncRlProcessError`
(naming the process, with its traceback) within about a second; shutdown (also on Ctrl-C and at
exit) stops every child, and the sampler process stops its own workers.
"""

from __future__ import annotations

import atexit
import ctypes
import math
import multiprocessing as mp
import os
import queue
import signal
import time
import traceback
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rlpyt.envs.traj_info import TrajInfo
from rlpyt.protocols import (
    Algorithm,
    AsyncReplayAlgorithm,
    AsyncSampler,
    SharedMemoryAgent,
)
from rlpyt.runners.base import TrainingRunnerBase
from rlpyt.runners.diagnostics import Row
from rlpyt.samplers.parallel.base import default_start_method
from rlpyt.samplers.parallel.worker import MasterGoneError, WorkerError, wait_for_master
from rlpyt.samplers.parallel.worker_group import POLL_SECONDS, WorkerGroup
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.hyperparams import STEPS, fixed, hyperparam
from rlpyt.utils.launching.threads import ThreadDecision, set_torch_threads

if TYPE_CHECKING:
    from rlpyt.replays.base import BaseReplayBuffer

ROLES = ("sampler", "memory copier 0", "memory copier 1")  # WorkerGroup rank -> process
# The children's process names (ps, mp.active_children, error messages), by WorkerGroup rank.
PROCESS_NAMES = tuple("rlpyt-async-" + role.replace(" ", "-") for role in ROLES)
# The sampler held by max_sampler_lead re-checks the throttle point (and that the master lives)
# this often while it sleeps: a backstop, since the master's release normally wakes it at once.
THROTTLE_RECHECK_SECONDS = 0.1


class AsyncRlProcessError(RuntimeError):
    """A child process of an asynchronous runner (sampler or memory copier) raised or died.

    Attributes:
        role: ``"sampler"``, ``"memory copier 0"`` or ``"memory copier 1"``.
        details: The child's formatted traceback, or how the process ended.
    """

    def __init__(self, role: str, details: str):
        self.role = role
        self.details = details
        super().__init__(f"AsyncRl's {role} process failed:\n{details}")


class AsyncRlBase(TrainingRunnerBase[AsyncSampler]):
    """The asynchronous runner: its processes, throttle, rows and columns, on the one wrapper.

    The wrapper (:meth:`~rlpyt.runners.base.TrainingRunnerBase.iter_train`), logging,
    snapshots, resume and the end-of-run messages are the base's; this class overrides the
    hooks ``startup`` (start the children, prepare the optimizer), ``training_rows`` (release
    the sampler, optimize under the throttle, log as the sampler passes log points),
    ``master_affinity``, ``diagnostics_columns``, ``snapshot_itr`` / ``resume`` /
    ``get_itr_snapshot`` (sampler iterations) and ``shutdown``.

    ``n_steps`` and ``log_interval_steps`` count sampled env steps.

    ``max_sampler_lead``: once learning starts the sampler waits rather than run further
    ahead, so the run trains at ``replay_ratio`` on any machine: from above the optimizer waits
    for data, from below the sampler waits for updates. 1 is the smallest lead at which both
    sides work at once (the sampler fills batch i + 1 while the optimizer trains on batch i);
    with one sampler and one optimizer a larger lead adds no overlap, only absorbs jitter, and
    costs accuracy (at any row the run is at most k + 1 batches of updates short of the ratio)
    and freshness (the data is sampled by weights up to k batches of updates older). 0
    alternates sampling and optimization. None: the sampler never waits and ``replay_ratio``
    is only an upper bound; with envs cheaper than an update the data reuse falls far below
    it, and every row where it is below half of what the throttle would give warns.

    Raises:
        TypeError: ``sampler`` is not asynchronous or ``algo`` keeps no replay (the message
            names what the part lacks).
    """

    algo: AsyncReplayAlgorithm = hyperparam(
        doc="A replay algorithm (``async_initialize``, ``optim_initialize``, "
        "``samples_to_buffer``, ``updates_per_sync``, ``replay_ratio``, ``min_steps_learn``).",
        type=AsyncReplayAlgorithm,
    )
    agent: SharedMemoryAgent = hyperparam(
        doc="The agent (initialized by the sampler's ``async_initialize``).",
        type=SharedMemoryAgent,
    )
    sampler = hyperparam(
        doc="An asynchronous sampler (``rlpyt.samplers.async_``).", type=AsyncSampler
    )
    affinity = hyperparam(
        after="n_steps",
        doc="``AttrDict(optimizer=[dict(cpus, cuda_idx, torch_threads, set_affinity)], "
        "sampler=dict(...))`` as ``make_affinity(..., async_sample=True)`` gives (also with "
        "``n_gpu=0``); None: optimizer and sampler on CPU, unpinned. ``flush_denormal`` (in the "
        "optimizer's dict or at the top; default True) as MinibatchRl's.",
    )
    target_reward = fixed(None)  # AsyncRl runs all n_steps: no early stop
    max_sampler_lead: int | None = hyperparam(
        1,
        "Batches the sampler may run beyond the one the optimizer needs next (None: it never "
        "waits; see the class docstring).",
        STEPS,
        after="log_interval_steps",
    )

    evaluates = False  # AsyncRlEval: the sampler process evaluates at every log point
    iteration_column = "Diagnostics/SamplerIteration"
    iteration_name = "sampler iteration"

    def __post_init__(self) -> None:
        """Check the parts, then resolve the affinity (None: both processes on CPU, unpinned)."""
        super().__post_init__()
        check_async_parts(type(self).__name__, self.algo, self.sampler)
        affinity = self.affinity
        self.affinity = AttrDict(affinity) if affinity else AttrDict(optimizer=[{}], sampler={})
        self.group: WorkerGroup | None = None
        self._shut_down = True

    # -- the rows -------------------------------------------------------------------------------

    def training_rows(self, n_itr: int) -> Iterator[Row]:
        """Release the sampler; optimize under the throttle, publish weights, log rows.

        Rows are logged as the sampler passes log points (its reports).
        """
        self.publish_throttle()
        self.ctrl.go.release()
        while not self._finished:
            yield from self.wait_for_throttle()
            if self._finished:
                return
            t0 = time.time()
            self.agent.train_mode(self.opt_itr)
            self.thread_governor.adapt()
            sampler_itr = int(self.ctrl.sampler_itr.value)
            opt_info = self.algo.optimize_agent(self.opt_itr, sampler_itr=sampler_itr)
            where = f"optimizer iteration {self.opt_itr} (sampler iteration {sampler_itr})"
            self.check_divergence(self.opt_itr, opt_info, where)
            self.agent.send_shared_memory()  # the sampler pulls these before its next batch
            self.diagnostics.add_times(0.0, time.time() - t0)
            self.diagnostics.store(max(sampler_itr, 0), [], opt_info)
            self.opt_itr += 1
            self.throttle_itr += self.throttle_step
            self.publish_throttle()

    def publish_throttle(self) -> None:
        """Share the throttle point; wake the sampler if it waits for this point or less.

        The sampler posts the point it waits to pass (``throttle_wanted``), then checks the
        point once more before it sleeps; this side sets the point, then reads the post. So
        one of the two sees the other's write (no lock either side could die holding; the
        sampler's timed wait backs this up), and the sampler is woken once per wait, not at
        every optimization (:func:`wait_for_optimizer`).
        """
        ctrl = self.ctrl
        ctrl.throttle_itr.value = self.throttle_itr
        if self.throttle_itr > ctrl.throttle_wanted.value:
            ctrl.throttle_wanted.value = math.inf
            ctrl.throttle_opened.release()

    def wait_for_throttle(self) -> Iterator[Row]:
        """Handle the sampler's reports until the throttle lets the next optimization run."""
        t0 = time.time()
        while True:
            yield from self.handle_reports(block=False)
            if self._finished or self.ctrl.sampler_itr.value >= self.throttle_itr:
                break
            yield from self.handle_reports(block=True)
        self.opt_throttle_time += time.time() - t0

    def handle_reports(self, block: bool) -> Iterator[Row]:
        """Take the sampler's reports (waiting up to one poll interval if ``block``); log.

        Stops as soon as the throttle lets the optimizer run: a sampler that reports faster
        than the rows are logged would otherwise keep the optimizer draining the queue for the
        whole run (it would never update). Also checks the children: raises
        :class:`AsyncRlProcessError` if one failed.
        """
        self._check_children()
        try:
            report = self.reports.get(timeout=POLL_SECONDS) if block else self.reports.get_nowait()
        except queue.Empty:
            return
        while True:
            row = self.handle_report(*report)
            if row is not None:
                yield row
            if self._finished or self.ctrl.sampler_itr.value >= self.throttle_itr:
                return  # the optimizer may run; later reports wait for the next call
            try:
                report = self.reports.get_nowait()
            except queue.Empty:
                return

    def handle_report(
        self, kind: str, itr: int, traj_infos: list[TrajInfo], eval_time: float
    ) -> Row | None:
        """One report of the sampler process; returns the row logged, if any.

        ``("batch", itr, traj_infos, 0)``: batch ``itr`` is sampled (a log point when it ends
        a log interval or the run, unless the runner evaluates); ``("eval", itr, traj_infos,
        seconds)``: the evaluation after batch ``itr`` (``-1``: before training).
        """
        self.current_itr = max(itr, 0)
        if kind == "batch":
            self.diagnostics.store(itr, traj_infos, None)
            if self.evaluates or not self.is_log_itr(itr):
                return None
            row = self.log_diagnostics(itr)
        else:
            self.diagnostics.add_eval_time(eval_time)
            row = self.log_diagnostics(max(itr, 0), traj_infos, eval_time, pre_training=itr < 0)
        self._finished = itr == self.n_itr - 1
        return row

    # -- start-up -----------------------------------------------------------------------------

    def startup(self) -> int:
        """Build the shared state, start the children and prepare the optimizer; returns n_itr.

        The sampler waits for ``training_rows`` to release it (after ``resume``, which
        publishes a snapshot's weights first).
        """
        seed = self.seed_everything()
        double_buffer, examples = self.sampler.async_initialize(
            agent=self.agent,
            bootstrap_value=self.algo.bootstrap_value,
            traj_info_kwargs=self.get_traj_info_kwargs(),
            seed=seed + 1,
        )
        self.itr_batch_size = self.sampler.batch_spec.size
        self.get_n_itr()
        replay = self.algo.async_initialize(
            agent=self.agent,
            sampler_n_itr=self.n_itr,
            batch_spec=self.sampler.batch_spec,
            mid_batch_reset=self.sampler.mid_batch_reset,
            examples=examples,
            world_size=1,
        )
        self.warn_if_learning_never_starts()
        self.start_children(double_buffer, replay, self._start_itr)
        self._set_master_affinity()  # after the children started, so they do not inherit it
        self.agent.to_device(self._optimizer_affinity().get("cuda_idx"))
        self._set_master_threads(self.sampler_busy_cpus())
        self.algo.optim_initialize(rank=0)
        self.initialize_logging()
        self.opt_itr, self.opt_throttle_time = 0, 0.0
        self._finished = self._start_itr >= self.n_itr
        self.throttle_step = (
            self.algo.batch_size
            * self.algo.updates_per_sync
            / (self.itr_batch_size * self.algo.replay_ratio)
        )
        self.throttle_itr: float = 1 + self.algo.min_steps_learn // self.itr_batch_size
        self.learning_itr = self.throttle_itr  # the batch after which the optimizer starts
        self.record_config()
        return self.n_itr

    def start_children(
        self, double_buffer: tuple, replay: BaseReplayBuffer, start_itr: int
    ) -> None:
        """Start the sampler and the two memory-copier processes (:func:`children_start_method`)."""
        affinity = self._sampler_affinity()
        ctx = mp.get_context(children_start_method(affinity))
        group = WorkerGroup(
            ctx,
            len(ROLES),
            [[] for _ in ROLES],
            timeout=math.inf,
            start_reason=children_start_reason(affinity),
            names=PROCESS_NAMES,
        )
        self.reports = ctx.Queue()
        self.group, self._shut_down = group, False
        self.ctrl = AttrDict(
            quit=group.quit,
            go=ctx.Semaphore(0),
            finish=ctx.Semaphore(0),  # never released but by shutdown: children wait on it
            sample_ready=[ctx.Semaphore(0) for _ in range(2)],
            sample_copied=[ctx.Semaphore(1) for _ in range(2)],
            # The copiers append in the sampler's batch order: copier db waits for its turn.
            copy_turn=[ctx.Semaphore(int(db == start_itr % 2)) for db in range(2)],
            sampler_itr=ctx.RawValue(ctypes.c_long, start_itr - 1),
            # The sampler iteration the optimizer waits for next (max_sampler_lead reads it).
            throttle_itr=ctx.RawValue(ctypes.c_double, math.inf),
            # A sampler held by max_sampler_lead posts the throttle_itr it waits to exceed and
            # sleeps on throttle_opened; the master releases it once throttle_itr passes that.
            throttle_wanted=ctx.RawValue(ctypes.c_double, math.inf),
            throttle_opened=ctx.Semaphore(0),
        )
        group.wake_on_stop += [self.ctrl.go, self.ctrl.finish, self.ctrl.throttle_opened]
        group.wake_on_stop += self.ctrl.sample_ready + self.ctrl.sample_copied
        group.wake_on_stop += self.ctrl.copy_turn
        atexit.register(self.shutdown)
        common = dict(
            ctrl=self.ctrl,
            report_queue=group.report_queue,
            reports=self.reports,
            parent_pid=mp.current_process().pid,
            sampler=self.sampler,
            sampler_affinity=self._sampler_affinity(),
            algo=self.algo,
            replay=replay,
            double_buffer=double_buffer,
            start_itr=start_itr,
            n_itr=self.n_itr,
            log_interval_itrs=self.log_interval_itrs,
            evaluates=self.evaluates,
            max_sampler_lead=self.max_sampler_lead,
        )
        group.start(async_process, common, [dict(rank=rank) for rank in range(len(ROLES))])

    def _optimizer_affinity(self) -> dict:
        optimizer = self.affinity.get("optimizer") or [{}]
        if len(optimizer) != 1:
            raise ValueError(
                f"AsyncRl runs one optimizer process; the affinity has {len(optimizer)} "
                "(make_affinity(..., gpu_per_run=1, async_sample=True))."
            )
        return dict(optimizer[0])

    def _sampler_affinity(self) -> dict:
        sampler = self.affinity.get("sampler") or {}
        if isinstance(sampler, list | tuple):
            if len(sampler) != 1:
                raise ValueError(
                    f"AsyncRl's sampler process is one action server; the affinity has "
                    f"{len(sampler)} sampler entries (use sample_gpu_per_run=1)."
                )
            sampler = sampler[0]
        return dict(sampler)

    def master_affinity(self) -> dict:
        """The optimizer's entry: ``cpus``, ``torch_threads``, ``set_affinity``, ...

        ``flush_denormal`` is the entry's, else the affinity's top-level one.
        """
        opt = self._optimizer_affinity()
        flush = opt if "flush_denormal" in opt else self.affinity
        return dict(
            cpus=opt.get("cpus") or None,
            torch_threads=opt.get("torch_threads") or None,
            set_affinity=opt.get("set_affinity", True),
            flush_denormal=flush.get("flush_denormal", True),
        )

    def sampler_busy_cpus(self) -> int:
        """CPUs the sampler side keeps busy beside the optimizer (0: the optimizer has its own).

        An optimizer pinned to CPUs of its own (``make_affinity(..., async_sample=True)``)
        shares none; an unpinned one shares the machine with the sampler process or its workers.
        """
        if self.master_affinity()["cpus"] is not None:
            return 0
        return self.sampler.busy_processes(self._sampler_affinity())

    def _check_children(self) -> None:
        if self.group is None:
            return
        try:
            self.group.check()
        except WorkerError as error:
            raise AsyncRlProcessError(ROLES[error.rank], error.details) from error

    # -- logging ------------------------------------------------------------------------------

    def diagnostics_columns(
        self, itr: int, traj_infos: list[TrajInfo] | None, eval_time: float, pre_training: bool
    ) -> Row:
        """The runner's columns, optimizer and sampler iterations, counters and rates.

        Also ``NonEvalSamplesPerSecond`` when evaluating, and the time spent throttled.
        """
        elapsed = time.time() - self.diagnostics.last_time
        common = self.diagnostics.common_columns(
            itr, self.algo.update_counter, int(self.algo.batch_size), 0.0, pre_training
        )
        new_samples = 0 if pre_training else (itr - self.diagnostics.last_logged_itr)
        columns = {
            **self.runner_columns(traj_infos),
            "Iteration": self.opt_itr,
            "SamplerIteration": itr,
            **{k: common[k] for k in ("CumTime (s)", "CumSteps", "CumUpdates")},
            **{k: common[k] for k in ("ReplayRatio", "CumReplayRatio", "StepsPerSecond")},
        }
        if self.evaluates:
            non_eval = max(elapsed - eval_time, 1e-9)
            first = itr == 0 or pre_training
            rate = new_samples * self.itr_batch_size / non_eval
            columns["NonEvalSamplesPerSecond"] = math.nan if first else rate
        columns["UpdatesPerSecond"] = common["UpdatesPerSecond"]
        columns["OptThrottle"] = self.opt_throttle_time
        if self.max_sampler_lead is None and not pre_training:
            self.warn_if_sampler_outruns(itr, common["CumReplayRatio"])
        return columns

    def warn_if_sampler_outruns(self, itr: int, achieved: float) -> None:
        """Warn when a free-running sampler leaves the data reuse below half of the throttle's.

        The throttle's ratio after batch ``itr`` is ``replay_ratio`` times the share of the
        batches sampled since learning started; rows before learning starts never warn.
        """
        configured = self.algo.replay_ratio
        expected = configured * max(0.0, itr + 1 - self.learning_itr) / (itr + 1)
        if expected <= 0 or not achieved < expected / 2:
            return
        warnings.warn(
            f"{type(self).__name__}: CumReplayRatio {achieved:.3g} after sampler iteration "
            f"{itr} is below half of the configured replay_ratio={configured:g} (the throttle "
            f"would have reached {expected:.3g}): the sampler runs free (max_sampler_lead="
            "None) and the optimizer falls behind it, so each sample is trained on less than "
            "configured. Leave max_sampler_lead at its default (1) or set it to an integer to "
            "make the sampler wait for the optimizer.",
            stacklevel=2,
        )

    # -- snapshots and resume -----------------------------------------------------------------

    def runner_state(self) -> dict:
        """The diagnostics' state and the optimizer's time spent throttled."""
        return dict(super().runner_state(), opt_throttle_time=self.opt_throttle_time)

    def get_itr_snapshot(self, itr: int) -> dict:
        """The snapshot after sampler iteration ``itr``, with the asynchronous counters.

        ``itr`` is the optimizer's iteration, ``sampler_itr`` the sampler's, ``cum_updates``
        the gradient steps; with ``algo.snapshot_replay`` the replay as the copiers left it.
        """
        snapshot = super().get_itr_snapshot(itr)
        snapshot.update(itr=self.opt_itr, sampler_itr=itr, cum_updates=self.algo.update_counter)
        return snapshot

    def snapshot_itr(self, snapshot: dict) -> int:
        """The sampler iteration of the snapshot (refused if not an asynchronous runner's)."""
        if "sampler_itr" not in snapshot:
            raise ValueError(
                "The snapshot was not written by an asynchronous runner (it has no "
                "sampler_itr); resume it with the runner that wrote it."
            )
        return int(snapshot["sampler_itr"])

    def resume(self, snapshot: dict) -> None:
        """Load a snapshot (children started, sampler not yet released); publish its weights."""
        super().resume(snapshot)
        self.agent.send_shared_memory()  # the sampler's first batch uses the restored weights
        self.opt_itr = int(snapshot["itr"])
        self.opt_throttle_time = snapshot["runner_state"].get("opt_throttle_time", 0.0)
        self.throttle_itr = max(self.throttle_itr, self._start_itr)

    # -- shut-down ----------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stop every child process (sampler, with its workers, and copiers). Idempotent."""
        if self._shut_down:
            return
        self._shut_down = True
        atexit.unregister(self.shutdown)
        if self.group is not None:
            self.group.stop()
        try:
            while True:
                self.reports.get_nowait()
        except (queue.Empty, OSError, ValueError):
            pass
        self.reports.close()
        self.reports.cancel_join_thread()
        self.sampler.shutdown()


class AsyncRl(AsyncRlBase):
    """Asynchronous training; rows summarise the last ``log_traj_window`` training trajectories.

    The optimizer always checks that its losses, gradient norms and parameters are finite.
    """

    log_traj_window: int = hyperparam(
        100,
        "Completed training trajectories summarised at each log point.",
        STEPS,
        after="log_interval_steps",
    )
    check_finite = fixed(True)

    def runner_columns(self, traj_infos: list[TrajInfo] | None) -> Row:
        """``CumCompletedTrajs``, ``NewCompletedTrajs`` and ``StepsInTrajWindow``."""
        return {
            "CumCompletedTrajs": self.diagnostics.cum_completed_trajs,
            **self.diagnostics.window_columns(),
        }


class AsyncRlEval(AsyncRlBase):
    """Asynchronous training; the sampler process evaluates before training and at log points.

    The sampler needs ``eval_n_envs > 0``.
    """

    evaluates = True
    log_traj_window = 0  # training trajectories are counted, not kept

    def runner_columns(self, traj_infos: list[TrajInfo] | None) -> Row:
        """``StepsInEval``, ``TrajsInEval`` and ``CumEvalTime``."""
        columns = self.diagnostics.eval_columns(traj_infos or [])
        return {k: columns[k] for k in ("StepsInEval", "TrajsInEval", "CumEvalTime")}


def check_async_parts(runner: str, algo: Algorithm, sampler: object) -> None:
    """Raise TypeError unless ``sampler`` is asynchronous and ``algo`` a replay algorithm.

    (Launch scripts are not type checked: a synchronous sampler or an on-policy algorithm
    given to an asynchronous runner is caught here, before any process starts. The message
    names the members of the protocol that the part lacks.)
    """
    if not isinstance(sampler, AsyncSampler):
        raise TypeError(
            f"{runner} needs an asynchronous sampler (rlpyt.samplers.async_: AsyncSerialSampler, "
            f"AsyncCpuSampler, AsyncGpuSampler, AsyncAlternatingSampler), got "
            f"{type(sampler).__name__}{_lacking(sampler, AsyncSampler)}; synchronous samplers "
            "go with MinibatchRl."
        )
    if not isinstance(algo, AsyncReplayAlgorithm):
        raise TypeError(
            f"{runner} trains replay algorithms (DQN, CategoricalDQN, R2D1, DDPG, TD3, SAC); "
            f"{type(algo).__name__} keeps no replay{_lacking(algo, AsyncReplayAlgorithm)}. Use "
            "MinibatchRl or SyncRl for it."
        )


def children_start_method(sampler_affinity: dict) -> str:
    """How AsyncRl starts its children: "spawn" when the sampler process serves on a GPU.

    The CUDA runtime does not support a process that starts CUDA after a fork: a forked
    sampler process hangs in its first CUDA operation (its model's move to the GPU), even
    when the master has not touched CUDA before the fork. Without a ``cuda_idx`` the children
    fork where the OS can (fast; nothing in them uses CUDA). Everything they receive pickles
    under spawn too: the replay, the double buffer and the agent's shared model live in
    shared memory.
    """
    if sampler_affinity.get("cuda_idx") is not None:
        return "spawn"
    return default_start_method()


def children_start_reason(sampler_affinity: dict) -> str | None:
    """Why AsyncRl spawns its children, for errors about what they receive; None if it forks."""
    cuda_idx = sampler_affinity.get("cuda_idx")
    if cuda_idx is None:
        return None
    return (
        f"AsyncRl spawns its children because its sampler runs on GPU {cuda_idx} (the sampler "
        "affinity's cuda_idx): CUDA does not work in a forked process."
    )


def _lacking(part: object, protocol: type) -> str:
    """`` (it lacks a, b)``: the public members of ``protocol`` that ``part`` does not have."""
    names: set[str] = set()
    for base in protocol.__mro__:
        if base.__module__ == "rlpyt.protocols":
            names.update(vars(base).get("__annotations__", {}))
            names.update(vars(base))
    missing = sorted(n for n in names if not n.startswith("_") and not hasattr(part, n))
    return f" (it lacks {', '.join(missing)})" if missing else ""


# -- child processes ------------------------------------------------------------------------


def async_process(common_kwargs: dict, worker_kwargs: dict) -> None:
    """Main function of AsyncRl's children: rank 0 samples, ranks 1 and 2 copy into the replay.

    Any exception is reported to the master (``("error", rank, (None, traceback))`` on the
    group's report queue); when the master sets ``quit`` or dies, the child exits.
    """
    c, rank = AttrDict(common_kwargs), worker_kwargs["rank"]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the master handles Ctrl-C and stops us
    try:
        if rank == 0:
            run_sampler(c)
        else:
            run_copier(c, rank - 1)
    except MasterGoneError:
        c.reports.cancel_join_thread()  # nobody reads any more; do not block the exit
        c.report_queue.cancel_join_thread()
    except BaseException:  # noqa: BLE001 (everything is reported to the master)
        c.report_queue.put(("error", rank, (None, traceback.format_exc())))
        c.report_queue.close()
        c.report_queue.join_thread()  # make sure the report leaves before the process ends


def run_sampler(c: AttrDict) -> None:
    """The sampler process: batches into alternate halves, evaluations, reports to the master."""
    sampler, ctrl = c.sampler, c.ctrl
    try:
        sampler.initialize(c.sampler_affinity)
        wait_for_master(ctrl.go, ctrl.quit, c.parent_pid)
        if c.evaluates and c.start_itr == 0:
            _evaluate(c, -1)
        db = c.start_itr % 2
        for itr in range(c.start_itr, c.n_itr):
            if c.max_sampler_lead is not None:
                wait_for_optimizer(c, itr)
            wait_for_master(ctrl.sample_copied[db], ctrl.quit, c.parent_pid)
            traj_infos = sampler.obtain_samples(itr, db)
            ctrl.sample_ready[db].release()
            ctrl.sampler_itr.value = itr
            c.reports.put(("batch", itr, traj_infos, 0.0))
            if c.evaluates and ((itr + 1) % c.log_interval_itrs == 0 or itr == c.n_itr - 1):
                _evaluate(c, itr)  # at the runner's log points (is_log_itr)
            db ^= 1
    finally:
        sampler.shutdown()
    # Stay until the master stops us: the master treats any exit as a failure.
    wait_for_master(ctrl.finish, ctrl.quit, c.parent_pid)


def wait_for_optimizer(c: AttrDict, itr: int) -> None:
    """``max_sampler_lead``: hold batch ``itr`` until it is close enough to the optimizer.

    Batch ``itr`` may start once it is at most ``max_sampler_lead`` batches beyond the batch
    the optimizer's next call waits for (``ceil(throttle_itr)``, so ``throttle_itr >
    itr - lead - 1``). The sampler has made every batch before ``itr``, so the two never wait
    for each other at once, also at lead 0, before learning starts (``throttle_itr`` is then
    the first learning batch) and after a resume. The wait sleeps on ``throttle_opened``,
    which the master releases (:meth:`AsyncRlBase.publish_throttle`); the timeout re-checks
    the point and the master's liveness.
    """
    ctrl = c.ctrl
    wanted = itr - c.max_sampler_lead - 1  # the throttle_itr to exceed
    while ctrl.throttle_itr.value <= wanted:
        ctrl.throttle_wanted.value = wanted
        if ctrl.throttle_itr.value > wanted:
            break  # published in between (a release sent anyway costs a later wait one loop)
        ctrl.throttle_opened.acquire(timeout=THROTTLE_RECHECK_SECONDS)
        if ctrl.quit.value or os.getppid() != c.parent_pid:
            raise MasterGoneError()
    ctrl.throttle_wanted.value = math.inf


def _evaluate(c: AttrDict, itr: int) -> None:
    t0 = time.time()
    traj_infos = c.sampler.evaluate_agent(max(itr, 0))
    c.reports.put(("eval", itr, traj_infos, time.time() - t0))


def run_copier(c: AttrDict, db: int) -> None:
    """Memory copier ``db``: append half ``db`` of the double buffer to the replay, forever.

    The two copiers take turns (``copy_turn``), so batches enter the replay in the order the
    sampler made them: each column's rows stay in time order for n-step returns and sequences,
    and ``samples_to_buffer`` sees the cursor its batch will be written at (R2D1 places its
    input priorities by it). The copier still runs while the sampler fills the other half.
    """
    # Copying needs no intra-op threads; more would only contend with the sampler and optimizer.
    set_torch_threads(ThreadDecision(1, "memory copier"))
    samples, ctrl = c.double_buffer[db], c.ctrl
    while True:
        wait_for_master(ctrl.sample_ready[db], ctrl.quit, c.parent_pid)
        wait_for_master(ctrl.copy_turn[db], ctrl.quit, c.parent_pid)
        c.replay.append_samples(c.algo.samples_to_buffer(samples))
        ctrl.copy_turn[db ^ 1].release()
        ctrl.sample_copied[db].release()
