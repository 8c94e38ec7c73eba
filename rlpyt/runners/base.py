"""The runners' shared base: ``BaseRunner`` and the one training wrapper, ``TrainingRunnerBase``.

Box: Runner. A launch script builds sampler, agent and algorithm and calls ``train()``.
:class:`BaseRunner` is what every runner offers it (``train`` matches
:class:`rlpyt.protocols.Runner`; ``iter_train`` yields each logged progress row).
:class:`TrainingRunnerBase` holds what every runner shares, above all ``iter_train``, the one
wrapper: resolve the resume switches -> load the snapshot -> ``startup`` -> ``resume`` ->
``training_rows`` (the rows, as they are logged) -> the end-of-run line -> ``shutdown``, in a
try/finally. Around it: seeding, the training process's CPUs and threads, the log schedule,
the divergence check, the diagnostics and their progress rows, snapshots and resume.

Runners differ only in the hooks they override: the synchronous rows of
:class:`~rlpyt.runners.minibatch_rl.MinibatchRlBase` (MinibatchRl, MinibatchRlEval and, one
rank each, SyncRl and SyncRlEval) and the asynchronous ones of
:class:`~rlpyt.runners.async_rl.AsyncRlBase`. Training always happens in the process that
calls ``train()``. The measuring lives in :mod:`rlpyt.runners.diagnostics`, the divergence
guard in :mod:`rlpyt.runners.divergence`, snapshot files in :mod:`rlpyt.runners.snapshot`, the
last line of a run in :mod:`rlpyt.runners.end_of_run`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

import psutil
import torch

from rlpyt.envs.traj_info import TrajInfo
from rlpyt.protocols import Agent, Algorithm, AsyncSampler, OptInfo, ReplayAlgorithm, Sampler
from rlpyt.runners.config_record import resolved_config
from rlpyt.runners.diagnostics import Row, TrainingDiagnostics, record_row
from rlpyt.runners.divergence import DivergenceError, find_divergence
from rlpyt.runners.end_of_run import end_of_run_line, snapshot_note
from rlpyt.runners.progress import TrainingProgressBar
from rlpyt.runners.snapshot import (
    check_resumable,
    load_snapshot,
    make_snapshot,
    restore_components,
    snapshot_to_resume,
)
from rlpyt.utils.hyperparams import NUMBER, REQUIRED, Hyperparams, Range, hyperparam
from rlpyt.utils.launching.affinity import set_cpu_affinity
from rlpyt.utils.launching.threads import (
    ThreadDecision,
    ThreadGovernor,
    agent_modules,
    decide_torch_threads,
    process_cpus,
    set_torch_threads,
)
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import record_resolved_config
from rlpyt.utils.seed import make_seed, set_seed

SamplerT = TypeVar("SamplerT", Sampler, AsyncSampler)
"""The sampler a runner drives: synchronous (MinibatchRl, SyncRl) or asynchronous (AsyncRl)."""

AT_LEAST_ONE = Range(low=1)  # env-step counts: floats like 1e6 accepted, whole steps kept


class BaseRunner(Hyperparams):
    """A runner connects sampler, agent and algorithm and owns the training loop.

    Its keywords are declared fields (:mod:`rlpyt.utils.hyperparams`): the constructor,
    its checks, the docstring's ``Args:`` table and the params.json record derive from them.
    """

    def iter_train(self, resume_from: str | bool | None = None) -> Iterator[dict[str, float]]:
        """Run the training, yielding each progress row (column -> value) as it is logged.

        Args:
            resume_from: Continue from a snapshot: a snapshot file, a run folder, or True for
                the current logger's run folder.
        """
        raise NotImplementedError

    def train(self, resume_from: str | bool | None = None) -> None:
        """Run the whole training (see :meth:`iter_train` for ``resume_from``)."""
        for _row in self.iter_train(resume_from):
            pass


class TrainingRunnerBase(BaseRunner, Generic[SamplerT]):
    """The wrapper every runner shares: resume, start-up, logging, snapshots, end of run.

    The keywords are declared below (``rlpyt.utils.hyperparams``); a runner declares only the
    keywords it adds (``log_traj_window``) or changes (AsyncRl's order and defaults).

    Raises:
        ValueError: ``n_steps`` or ``log_interval_steps`` is not a finite number >= 1.
        TypeError: either is not a number.
    """

    algo: Algorithm = hyperparam(REQUIRED, "The algorithm (``optimize_agent``).")
    agent: Agent = hyperparam(REQUIRED, "The agent (initialized by the sampler).")
    sampler: SamplerT = hyperparam(REQUIRED, "The sampler.")
    n_steps: int = hyperparam(
        REQUIRED,
        "Total env steps (floats like ``1e6`` accepted), rounded up to whole sampler batches "
        "(a logged line says so).",
        AT_LEAST_ONE,
        type=float,
    )
    seed: int | None = hyperparam(
        None, "Global seed (random if None); the sampler's envs get ``seed + 1 + index``."
    )
    affinity: dict = hyperparam(  # {} once __post_init__ has resolved None
        None,
        "The runner's affinity (see the concrete runners; None: unpinned, on the CPU).",
        type=dict | None,
    )
    log_interval_steps: int = hyperparam(
        1e5,
        "Env steps between tabular logs (fewer than one batch: every iteration); the last "
        "iteration always logs a row.",
        AT_LEAST_ONE,
        type=float,
    )
    target_reward: float | None = hyperparam(
        None,
        "Stop early, after the log row whose trailing average return (``ReturnAverage``) is at "
        "least this (None: run all ``n_steps``).",
        NUMBER,
    )
    check_finite: bool = hyperparam(
        True,
        "Stop the run (``DivergenceError``) at the first iteration whose loss, gradient norm or "
        "agent parameters are not finite, before its snapshot (False: continue).",
    )

    log_traj_window: int | None = None  # training TrajInfos kept for logging (None: all)
    diagnostics: TrainingDiagnostics  # made in startup
    itr_batch_size: int  # env steps per iteration over all processes, set in startup
    log_interval_itrs: int  # iterations between rows, set in startup (get_n_itr)
    progress: TrainingProgressBar = TrainingProgressBar(0, enabled=False)  # drawn from startup
    # How to continue a stopped run, said in the caller's terms (rlpyt train sets its command).
    resume_hint = "logger_context(..., resume=True) and runner.train(resume_from=True)"
    iteration_column = "Diagnostics/Iteration"  # the column a resume cuts progress.csv at
    iteration_name = "iteration"  # how the log names the iterations of iteration_column

    def __post_init__(self) -> None:
        """Whole steps, the affinity dict, and the state of a runner not yet started."""
        super().__post_init__()
        self.n_steps = int(self.n_steps)
        self.log_interval_steps = int(self.log_interval_steps)
        self.affinity = {} if self.affinity is None else self.affinity
        self.target_reached_itr: int | None = None  # the log point that reached target_reward
        self.rank = 0
        self.world_size = 1
        # Follows the load once startup decided threads that gain from it (_set_master_threads).
        self.thread_governor = ThreadGovernor(ThreadDecision(1, "not started"), ())
        self._denormals_flushed = False  # set by _set_master_affinity
        self._start_itr = 0
        self.n_itr = 0  # iterations of the run, set in startup (get_n_itr)
        self.current_itr: int | None = None  # the iteration being run (None: not started)
        self.last_snapshot_itr: int | None = None  # newest iteration saved to disk

    # -- the one wrapper ------------------------------------------------------------------------

    def iter_train(self, resume_from: str | bool | None = None) -> Iterator[Row]:
        """Run the training, yielding each progress row as it is logged.

        Args:
            resume_from: Continue a run from a snapshot: a snapshot file, a run folder, or
                True for the current logger's run folder (use with
                ``logger_context(..., resume=True)``).

        Yields:
            One dict per log point: column name -> value, the values of that progress.csv row.

        The run's last line says how it ended (:meth:`log_end_of_run`): "Training complete."
        only when every iteration ran or ``target_reward`` was reached (training stops after
        that row).
        """
        # Disagreeing resume switches are refused here, before start-up writes anything.
        resume_path = snapshot_to_resume(resume_from)
        error: BaseException | None = None
        try:
            snapshot = self.load_resume_snapshot(resume_path)
            self.adopt_snapshot_seed(snapshot)
            self._start_itr = 0 if snapshot is None else self.snapshot_itr(snapshot) + 1
            n_itr = self.startup()
            if snapshot is not None:
                self.resume(snapshot)
            yield from self.training_rows(n_itr)
        except BaseException as exc:  # GeneratorExit and Ctrl-C too: reported, then re-raised
            error = exc
            raise
        finally:
            self.log_end_of_run(error)
            self.shutdown()

    def training_rows(self, n_itr: int) -> Iterator[Row]:
        """Hook: train from ``self._start_itr`` to ``n_itr``, yielding each row logged."""
        raise NotImplementedError

    def startup(self) -> int:
        """Hook: build and start everything the rows need; returns the run's ``n_itr``."""
        raise NotImplementedError

    def is_log_itr(self, itr: int) -> bool:
        """True at the end of every logging interval, and at the run's last iteration."""
        return self.on_log_schedule(itr) or itr == self.n_itr - 1

    def on_log_schedule(self, itr: int) -> bool:
        """True at the end of a logging interval (rows elsewhere leave the window open)."""
        return (itr + 1) % self.log_interval_itrs == 0

    def check_divergence(self, itr: int, opt_info: OptInfo | None, where: str = "") -> None:
        """Raise :class:`DivergenceError` if the OptInfo or the parameters are not finite.

        Args:
            itr: The iteration just optimized.
            opt_info: Its OptInfo (or None).
            where: How the message names the iteration (default ``"iteration {itr}"``).
        """
        if not self.check_finite:
            return
        quantity = self.find_divergence(opt_info)
        if quantity is not None:
            note = self.last_snapshot_note(finite=True)
            raise DivergenceError(itr, where or f"iteration {itr}", quantity, note)

    def find_divergence(self, opt_info: OptInfo | None) -> str | None:
        """Hook: what is not finite (None: all is); SyncRl agrees on it over its ranks."""
        return find_divergence(opt_info, self.agent)

    # -- start-up helpers -------------------------------------------------------------------

    def seed_everything(self) -> int:
        """Draw a seed if none was given, seed Python, numpy and torch with it; returns it."""
        if self.seed is None:
            self.seed = make_seed()
        set_seed(self.seed)
        return self.seed

    def master_affinity(self) -> dict:
        """Hook: this process's ``cpus``, ``torch_threads``, ``set_affinity``, ``flush_denormal``.

        MinibatchRl reads ``master_cpus``, ``master_torch_threads``, ``set_affinity`` and
        ``flush_denormal`` of its affinity dict.
        """
        affinity = self.affinity
        return dict(
            cpus=affinity.get("master_cpus"),
            torch_threads=affinity.get("master_torch_threads"),
            set_affinity=affinity.get("set_affinity", True),
            flush_denormal=affinity.get("flush_denormal", True),
        )

    def _set_master_affinity(self) -> None:
        """Pin this (the training) process and flush denormals; threads come once the model is.

        Pinning comes first, before the sampler starts its workers; the thread count waits for
        :meth:`_set_master_threads`, which needs the agent's model.
        """
        master = self.master_affinity()
        cpus = master["cpus"]
        if cpus is not None and master["set_affinity"]:
            set_cpu_affinity(cpus)
        self._denormals_flushed = flush_denormals(master)

    def _set_master_threads(self, busy_beside: int = 0) -> ThreadDecision:
        """Decide and set this process's torch threads from its CPUs and model; log them.

        Models that gain from more threads get a :class:`ThreadGovernor` that keeps the count
        within the CPUs other processes leave free (:meth:`sample_and_optimize` asks it).

        Args:
            busy_beside: CPUs that processes running at the same time as the training keep
                busy (AsyncRl's sampler side; the other ranks of an unpinned SyncRl run).
        """
        master = self.master_affinity()
        decision = decide_torch_threads(
            requested=master["torch_threads"],
            cpus=master["cpus"],
            modules=agent_modules(self.agent),
            busy_beside=busy_beside,
        )
        set_torch_threads(decision)
        self.thread_governor = ThreadGovernor(decision, process_cpus(master["cpus"]))
        logger.log(
            f"Runner master CPU affinity: {_cpu_affinity()}; torch threads: "
            f"{decision.describe()}; denormals flushed to zero: "
            f"{self._denormals_flushed}."
        )
        return decision

    def get_traj_info_kwargs(self) -> dict:
        """TrajInfo keywords: the algorithm's discount for DiscountedReturn."""
        return dict(discount=self.algo.discount)

    def get_n_itr(self) -> int:
        """Iterations: ``n_steps`` over the batch size, rounded up to whole batches.

        Logs one line when ``n_steps`` is not a whole number of batches (``itr_batch_size``):
        a notice of what runs, not a mistake, so the logger's line and no warning.
        """
        self.log_interval_itrs = max(self.log_interval_steps // self.itr_batch_size, 1)
        n_itr = max(math.ceil(self.n_steps / self.itr_batch_size), 1)
        if n_itr * self.itr_batch_size != self.n_steps:
            logger.log(
                f"{type(self).__name__}: n_steps={self.n_steps:,} is not a whole number of "
                f"sampler batches ({self.itr_batch_size:,} env steps each): training "
                f"{n_itr * self.itr_batch_size:,} steps ({n_itr} iterations)."
            )
        self.n_itr = n_itr
        logger.log(f"Running {n_itr} iterations of minibatch RL.")
        return n_itr

    def warn_if_learning_never_starts(self) -> None:
        """Warn once if ``algo.min_itr_learn`` is at or beyond the run's last iteration.

        The warning names the setting the user gave: a replay algorithm's ``min_steps_learn``
        (:class:`~rlpyt.protocols.ReplayAlgorithm`), else ``min_itr_learn``.
        """
        first = int(self.algo.min_itr_learn)
        last = self.n_itr - 1
        if first <= 0 or first < last:
            return
        if isinstance(self.algo, ReplayAlgorithm):
            setting = f"min_steps_learn={self.algo.min_steps_learn:,}"
        else:
            setting = f"min_itr_learn={first}"
        when = "never" if first > last else "only in its last iteration"
        warnings.warn(
            f"{type(self).__name__}: learning starts at iteration {first} "
            f"(algo {setting}), but this run's last iteration is {last} "
            f"(n_steps={self.n_steps:,}): the agent learns {when}. Lower min_steps_learn or "
            "raise n_steps.",
            stacklevel=2,
        )

    def initialize_logging(self) -> None:
        """Start the diagnostics (counters, timers, trajectory window)."""
        self.diagnostics = TrainingDiagnostics(
            self.algo.opt_info_fields,
            self.itr_batch_size,
            self.n_itr,
            self.world_size,
            traj_window=self.log_traj_window,
        )

    def record_config(self) -> None:
        """Hook: add the resolved configuration to the run folder's params.json (if any)."""
        record_resolved_config(resolved_config(self))

    # -- hooks of the rows ------------------------------------------------------------------

    def runner_columns(self, traj_infos: list[TrajInfo] | None) -> Row:
        """Hook: this runner's columns, logged before the common ``Diagnostics/`` block."""
        return {}

    def store_diagnostics(
        self, itr: int, traj_infos: list[TrajInfo], opt_info: OptInfo | None
    ) -> None:
        """Hook: keep an iteration's completed TrajInfos and OptInfo until the next log."""
        self.diagnostics.store(itr, traj_infos, opt_info)

    def log_diagnostics(
        self,
        itr: int,
        traj_infos: list[TrajInfo] | None = None,
        eval_time: float = 0.0,
        prefix: str = "Diagnostics/",
        pre_training: bool = False,
    ) -> Row:
        """Save a snapshot, then record and dump one progress row; returns the row.

        Args:
            itr: The iteration just finished.
            traj_infos: Evaluation TrajInfos to summarise (None: the training window).
            eval_time: Seconds this log point spent evaluating.
            prefix: Prefix of the runner and common columns.
            pre_training: The evaluation row before any sampling (no snapshot, CumSteps 0).
        """
        if not pre_training:
            self.save_itr_snapshot(itr)
        update_counter = self.algo.update_counter
        columns = self.diagnostics_columns(itr, traj_infos, eval_time, pre_training)
        return self.emit_row(itr, columns, traj_infos, update_counter, prefix, pre_training)

    def diagnostics_columns(
        self, itr: int, traj_infos: list[TrajInfo] | None, eval_time: float, pre_training: bool
    ) -> Row:
        """Hook: the row's ``Diagnostics/`` columns (unprefixed): the runner's, then common."""
        common = self.diagnostics.common_columns(
            itr, self.algo.update_counter, int(self.algo.batch_size), eval_time, pre_training
        )
        return {**self.runner_columns(traj_infos), **common}

    def emit_row(
        self,
        itr: int,
        columns: Row,
        traj_infos: list[TrajInfo] | None,
        update_counter: int,
        prefix: str,
        pre_training: bool,
    ) -> Row:
        """Record and dump one progress row: ``columns`` (prefixed), then the statistics.

        Also prints the console line after it and marks the log point in the diagnostics.
        """
        row = {prefix + key: value for key, value in columns.items()}
        row.update(self.diagnostics.stat_columns(traj_infos))
        record_row(row)
        if not pre_training:
            self.diagnostics.console_line(itr, log_point=True)
        close_window = pre_training or self.on_log_schedule(itr)
        self.diagnostics.mark_logged(itr, update_counter, pre_training, close_window)
        return row

    def save_itr_snapshot(self, itr: int) -> None:
        """Hook: write a snapshot if the logger's snapshot mode asks for one."""
        if logger.get_snapshot_mode() == "none" or logger.get_snapshot_dir() is None:
            return
        logger.log("saving snapshot...")
        logger.save_itr_params(itr, self.get_itr_snapshot(itr))
        logger.log("saved")
        mode, gap = logger.get_snapshot_mode(), logger.get_snapshot_gap()
        if logger.snapshot_file_names(itr, mode, gap):
            self.last_snapshot_itr = itr

    # -- the end of the run -----------------------------------------------------------------

    def log_end_of_run(self, error: BaseException | None) -> None:
        """Say how the run ended (see :func:`~rlpyt.runners.end_of_run.end_of_run_line`).

        All but success also say where the last snapshot is (:meth:`last_snapshot_note`).
        """
        target_reached = self.target_reached_itr is not None
        line, color = end_of_run_line(
            error, self.current_itr, self.n_itr, target_reached, self.last_snapshot_note
        )
        logger.log(line, color=color)

    def last_snapshot_note(self, finite: bool = False) -> str:
        """Where the newest snapshot of the run folder is and how to continue from it.

        Args:
            finite: Call it the last snapshot with finite parameters (the divergence guard
                checks every iteration before its snapshot, so the newest one is).
        """
        itr = self.last_snapshot_itr if self.last_snapshot_itr is not None else self._start_itr - 1
        return snapshot_note(itr, self.iteration_name, self.resume_hint, finite)

    def shutdown(self) -> None:
        """Hook: close the progress bar and stop the sampler (idempotent)."""
        self.progress.close()
        self.sampler.shutdown()

    # -- snapshots and resume -------------------------------------------------------------

    def get_itr_snapshot(self, itr: int) -> dict:
        """Everything needed to resume exactly after iteration ``itr`` (see ``make_snapshot``)."""
        cum_steps = (itr + 1) * self.itr_batch_size
        state = self.runner_state()
        return make_snapshot(itr, cum_steps, self.agent, self.algo, self.sampler, state)

    def runner_state(self) -> dict:
        """Hook: counters and windows the diagnostics carry between log points, and the seed."""
        return dict(self.diagnostics.state_dict(), seed=self.seed)

    def adopt_snapshot_seed(self, snapshot: dict | None) -> None:
        """Without a seed of its own, a resumed run takes the one its snapshot recorded.

        Evaluations derive their seeds from the run seed, so a script that left ``seed=None``
        still logs the evaluations of the run it continues.
        """
        if snapshot is not None and self.seed is None:
            self.seed = snapshot["runner_state"].get("seed")

    def load_resume_snapshot(self, path: str | None) -> dict | None:
        """Read and check the snapshot file ``path`` (None: a fresh start, returns None)."""
        if path is None:
            return None
        snapshot = load_snapshot(path)
        check_resumable(snapshot, path)
        try:
            self.snapshot_itr(snapshot)  # a snapshot of another kind of runner fails here
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
        return snapshot

    def snapshot_itr(self, snapshot: dict) -> int:
        """Hook: the iteration (of ``iteration_column``) after which ``snapshot`` was taken."""
        return int(snapshot["itr"])

    def resume(self, snapshot: dict) -> None:
        """Load a snapshot after ``startup``; training continues at the next iteration."""
        itr = self.snapshot_itr(snapshot)
        restore_components(snapshot, self.agent, self.algo, self.sampler)
        self.diagnostics.load_state_dict(
            snapshot["runner_state"],
            itr,
            self.algo.update_counter,
            window_open=not self.on_log_schedule(itr),
        )
        self._start_itr = itr + 1
        self.progress.advance(self._start_itr * self.itr_batch_size)
        logger.drop_rows_after(itr, key=self.iteration_column)
        logger.log(f"Resumed from the snapshot of {self.iteration_name} {itr}.")


def flush_denormals(affinity: Mapping[str, object]) -> bool:
    """Flush denormal floats to zero in this training process, unless the affinity says no.

    Called by the runners where they set torch's threads. Adam's moment estimates of weights
    whose gradients stay at zero (a dead ReLU unit's inputs, for one) decay geometrically into
    the denormal range (below 1.2e-38), where x86 arithmetic is many times slower: on the
    CartPole DQN, fused Adam steps take 4x their time on normal numbers, a fifth of each update.
    Flushed (torch's FTZ/DAZ switch for this thread), they become 0. Updates are unchanged: the
    Adam step of such a weight is below a float's resolution of the weight (the CartPole DQN's
    weights after 15,000 updates are bitwise equal either way). TensorFlow and XLA flush by
    default on the CPU as well.

    Args:
        affinity: The runner's affinity dict (or the async optimizer's); its key
            ``flush_denormal`` (default True) False leaves the process's setting alone.

    Returns:
        True when flushing is on now (False also where the CPU has no such switch).
    """
    if not affinity.get("flush_denormal", True):
        return False
    return bool(torch.set_flush_denormal(True))


def _cpu_affinity() -> list[int] | str:
    try:
        return psutil.Process().cpu_affinity()
    except (AttributeError, OSError):
        return "n/a"
