"""MinibatchRl and MinibatchRlEval: synchronous training in one process.

The loop alternates ``sampler.obtain_samples(itr)`` and ``algo.optimize_agent(itr, samples)``
and logs every ``log_interval_itrs``. The sampler may use worker processes; training always
happens here. ``MinibatchRlEval`` also evaluates the agent before training and at every log.
"""

from __future__ import annotations

import math
import time
from collections import deque
from typing import Any

import psutil
import torch

from rlpyt.runners.base import BaseRunner
from rlpyt.runners.snapshot import get_rng_state, load_snapshot, set_rng_state
from rlpyt.utils.launching.affinity import set_cpu_affinity
from rlpyt.utils.logging import logger
from rlpyt.utils.seed import make_seed, set_seed

CONSOLE_LINE_SECONDS = 5.0  # at most one progress line this often between tabular dumps


class MinibatchRlBase(BaseRunner):
    """Shared start-up, snapshots and diagnostics of the synchronous runners.

    Args:
        algo: The algorithm (``optimize_agent``).
        agent: The agent (initialized by the sampler).
        sampler: Any synchronous sampler.
        n_steps: Total env steps (floats like ``1e6`` accepted); rounded up to whole logging
            intervals.
        seed: Global seed (random if None); the sampler's envs get ``seed + 1 + index``.
        affinity: Dict with any of ``cuda_idx``, ``master_cpus``, ``master_torch_threads``,
            ``workers_cpus``, ``worker_torch_threads``, ``set_affinity``, ``alternating``.
        log_interval_steps: Env steps between tabular logs.
    """

    def __init__(
        self,
        algo: Any,
        agent: Any,
        sampler: Any,
        n_steps: float,
        seed: int | None = None,
        affinity: dict | None = None,
        log_interval_steps: float = 1e5,
    ):
        self.algo = algo
        self.agent = agent
        self.sampler = sampler
        self.n_steps = int(n_steps)
        self.seed = seed
        self.affinity = dict() if affinity is None else affinity
        self.log_interval_steps = int(log_interval_steps)
        self.rank = 0
        self.world_size = 1
        self._start_itr = 0

    # -- start-up and shut-down -----------------------------------------------------------

    def startup(self) -> int:
        """Pin the master, seed, initialize sampler, agent device and algorithm; returns n_itr."""
        self._set_master_affinity()
        if self.seed is None:
            self.seed = make_seed()
        set_seed(self.seed)
        examples = self.sampler.initialize(
            agent=self.agent,
            affinity=self.affinity,
            seed=self.seed + 1,
            bootstrap_value=getattr(self.algo, "bootstrap_value", False),
            traj_info_kwargs=self.get_traj_info_kwargs(),
            rank=self.rank,
            world_size=self.world_size,
        )
        self.itr_batch_size = self.sampler.batch_spec.size * self.world_size
        n_itr = self.get_n_itr()
        self.agent.to_device(self.affinity.get("cuda_idx", None))
        if self.world_size > 1:
            self.agent.data_parallel()
        self.algo.initialize(
            agent=self.agent,
            n_itr=n_itr,
            batch_spec=self.sampler.batch_spec,
            mid_batch_reset=self.sampler.mid_batch_reset,
            examples=examples,
            world_size=self.world_size,
            rank=self.rank,
        )
        self.initialize_logging()
        return n_itr

    def _set_master_affinity(self) -> None:
        master_cpus = self.affinity.get("master_cpus")
        if master_cpus is not None and self.affinity.get("set_affinity", True):
            set_cpu_affinity(master_cpus)
        threads = self.affinity.get("master_torch_threads")
        if threads is None and master_cpus is not None:
            threads = len(master_cpus)
        if threads is not None:
            torch.set_num_threads(int(threads))
        logger.log(
            f"Runner master CPU affinity: {_cpu_affinity()}; torch threads: "
            f"{torch.get_num_threads()}."
        )

    def get_traj_info_kwargs(self) -> dict:
        """TrajInfo keywords: the algorithm's discount for DiscountedReturn."""
        return dict(discount=getattr(self.algo, "discount", 1))

    def get_n_itr(self) -> int:
        """Iterations: ``n_steps`` over the batch size, rounded up to whole log intervals."""
        self.log_interval_itrs = max(self.log_interval_steps // self.itr_batch_size, 1)
        n_itr = max(self.n_steps // self.itr_batch_size, 1)
        n_itr = math.ceil(n_itr / self.log_interval_itrs) * self.log_interval_itrs
        self.n_itr = n_itr
        logger.log(f"Running {n_itr} iterations of minibatch RL.")
        return n_itr

    def shutdown(self) -> None:
        """Stop the sampler (idempotent)."""
        logger.log("Training complete.")
        self.sampler.shutdown()

    # -- snapshots and resume -------------------------------------------------------------

    def get_itr_snapshot(self, itr: int) -> dict:
        """Everything needed to resume exactly after iteration ``itr``.

        rlpyt's keys (``itr``, ``cum_steps``, ``agent_state_dict``, ``optimizer_state_dict``)
        plus ``algo_state_dict``, ``sampler_state``, ``runner_state``, ``rnn_state`` and
        ``rng_state``.
        """
        return dict(
            itr=itr,
            cum_steps=(itr + 1) * self.itr_batch_size,
            agent_state_dict=self.agent.state_dict(),
            optimizer_state_dict=self.algo.optim_state_dict(),
            algo_state_dict=self.algo.state_dict(),
            sampler_state=self.sampler.state_dict(),
            runner_state=self.runner_state(),
            rnn_state=getattr(self.agent, "sampling_rnn_state", None),
            rng_state=get_rng_state(),
        )

    def save_itr_snapshot(self, itr: int) -> None:
        """Write a snapshot if the logger's snapshot mode asks for one."""
        if logger.get_snapshot_mode() == "none" or logger.get_snapshot_dir() is None:
            return
        logger.log("saving snapshot...")
        logger.save_itr_params(itr, self.get_itr_snapshot(itr))
        logger.log("saved")

    def runner_state(self) -> dict:
        """Counters and windows the diagnostics carry between log points."""
        return dict(
            cum_completed_trajs=self._cum_completed_trajs,
            traj_infos=list(self._traj_infos),
            cum_time=time.time() - self._start_time,
            cum_sample_time=self._cum_sample_time,
            cum_optim_time=self._cum_optim_time,
            cum_eval_time=self._cum_eval_time,
        )

    def resume(self, snapshot: dict) -> None:
        """Load a snapshot after ``startup``; training continues at the next iteration."""
        self.agent.load_state_dict(snapshot["agent_state_dict"])
        self.algo.load_state_dict(snapshot["algo_state_dict"])
        self.sampler.load_state_dict(snapshot["sampler_state"])
        if snapshot.get("rnn_state") is not None:
            self.agent.sampling_rnn_state = snapshot["rnn_state"]
        state = snapshot["runner_state"]
        self._cum_completed_trajs = state["cum_completed_trajs"]
        self._traj_infos.extend(state["traj_infos"])
        self._start_time = time.time() - state["cum_time"]
        self._last_time = time.time()
        self._cum_sample_time = state["cum_sample_time"]
        self._cum_optim_time = state["cum_optim_time"]
        self._cum_eval_time = state["cum_eval_time"]
        self._last_update_counter = self.algo.update_counter
        self._start_itr = snapshot["itr"] + 1
        self._last_logged_itr = snapshot["itr"]
        logger.drop_rows_after(snapshot["itr"])
        set_rng_state(snapshot["rng_state"])
        logger.log(f"Resumed from the snapshot of iteration {snapshot['itr']}.")

    def _maybe_resume(self, resume_from: Any) -> None:
        if not resume_from:
            return
        path = logger.get_snapshot_dir() if resume_from is True else resume_from
        if path is None:
            raise ValueError(
                "train(resume_from=True) resumes from the current run folder: call it inside "
                "logger_context(..., resume=True), or pass the snapshot path."
            )
        self.resume(load_snapshot(path))

    # -- diagnostics ------------------------------------------------------------------------

    def initialize_logging(self) -> None:
        """Reset the diagnostics accumulators."""
        self._opt_infos: dict[str, list] = {k: [] for k in self.algo.opt_info_fields}
        self._start_time = self._last_time = self._last_line_time = time.time()
        self._cum_completed_trajs = 0
        self._new_completed_trajs = 0
        self._last_update_counter = 0
        self._last_logged_itr = -1
        self._cum_sample_time = self._cum_optim_time = self._cum_eval_time = 0.0
        self._traj_infos: deque = deque(maxlen=getattr(self, "log_traj_window", None))

    def store_diagnostics(self, itr: int, traj_infos: list, opt_info: Any) -> None:
        """Keep completed TrajInfos and OptInfo values until the next log point."""
        self._cum_completed_trajs += len(traj_infos)
        self._new_completed_trajs += len(traj_infos)
        self._traj_infos.extend(traj_infos)
        for key, values in zip(self.algo.opt_info_fields, opt_info or (), strict=False):
            self._opt_infos[key].extend(values if isinstance(values, list) else [values])
        self._console_line(itr)

    def _console_line(self, itr: int) -> None:
        now = time.time()
        if now - self._last_line_time < CONSOLE_LINE_SECONDS:
            return
        self._last_line_time = now
        done_itrs = itr + 1 - self._start_itr
        elapsed = max(now - self._last_time, 1e-9)
        run_elapsed = max(now - self._start_time, 1e-9)
        rate = (itr - self._last_logged_itr) * self.itr_batch_size / elapsed
        eta = (self.n_itr - itr - 1) * run_elapsed / max(done_itrs, 1)
        logger.log(
            f"itr {itr + 1}/{self.n_itr} | {(itr + 1) * self.itr_batch_size:,} steps | "
            f"{rate:,.0f} steps/s | ETA {_format_seconds(eta)}",
            with_prefix=False,
        )

    def log_diagnostics(
        self,
        itr: int,
        traj_infos: list | None = None,
        eval_time: float = 0.0,
        prefix: str = "Diagnostics/",
        pre_training: bool = False,
    ) -> None:
        """Record the diagnostics columns and the statistics, then dump one progress row.

        ``pre_training``: the evaluation row before any sampling (CumSteps 0; rlpyt wrongly
        reported one batch there).
        """
        if not pre_training:
            self.save_itr_snapshot(itr)
        new_time = time.time()
        train_time = max(new_time - self._last_time - eval_time, 1e-9)
        new_itrs = 0 if pre_training else itr - self._last_logged_itr
        new_updates = self.algo.update_counter - self._last_update_counter
        new_samples = self.itr_batch_size * new_itrs
        cum_steps = 0 if pre_training else (itr + 1) * self.itr_batch_size
        first = itr == 0 or pre_training
        with logger.tabular_prefix(prefix):
            self._record_runner_columns(traj_infos, eval_time)
            logger.record_tabular("Iteration", itr)
            logger.record_tabular("CumTime (s)", new_time - self._start_time)
            logger.record_tabular("CumSteps", cum_steps)
            logger.record_tabular("CumCompletedTrajs", self._cum_completed_trajs)
            logger.record_tabular("CumUpdates", self.algo.update_counter)
            logger.record_tabular("StepsPerSecond", math.nan if first else new_samples / train_time)
            logger.record_tabular(
                "UpdatesPerSecond", math.nan if first else new_updates / train_time
            )
            logger.record_tabular(
                "ReplayRatio",
                _ratio(new_updates * self._algo_batch_size() * self.world_size, new_samples),
            )
            logger.record_tabular(
                "CumReplayRatio",
                _ratio(
                    self.algo.update_counter * self._algo_batch_size() * self.world_size, cum_steps
                ),
            )
            logger.record_tabular("CumSampleTime (s)", self._cum_sample_time)
            logger.record_tabular("CumOptimTime (s)", self._cum_optim_time)
        self._log_infos(traj_infos)
        logger.dump_tabular(with_prefix=False)
        self._last_time = time.time()
        self._last_line_time = self._last_time
        self._last_update_counter = self.algo.update_counter
        if not pre_training:
            self._last_logged_itr = itr

    def _algo_batch_size(self) -> int:
        try:
            return int(self.algo.batch_size)
        except AttributeError:
            return 0

    def _record_runner_columns(self, traj_infos: list | None, eval_time: float) -> None:
        """Columns before the common block (differ between runners)."""

    def _log_infos(self, traj_infos: list | None = None) -> None:
        """Five statistics per TrajInfo field and per OptInfo field."""
        traj_infos = list(self._traj_infos) if traj_infos is None else traj_infos
        if traj_infos:
            for key in traj_infos[0]:
                if not key.startswith("_"):
                    logger.record_tabular_misc_stat(key, [info[key] for info in traj_infos])
        for key, values in self._opt_infos.items():
            logger.record_tabular_misc_stat(key, values)
        self._opt_infos = {k: [] for k in self._opt_infos}

    # -- the loop pieces ------------------------------------------------------------------------

    def sample_and_optimize(self, itr: int) -> tuple[list, Any]:
        """One iteration: sample a batch, train on it; returns ``(traj_infos, opt_info)``."""
        logger.set_iteration(itr)
        with logger.prefix(f"itr #{itr} "):
            t0 = time.time()
            self.agent.sample_mode(itr)
            samples, traj_infos = self.sampler.obtain_samples(itr)
            t1 = time.time()
            self.agent.train_mode(itr)
            opt_info = self.algo.optimize_agent(itr, samples)
            self._cum_sample_time += t1 - t0
            self._cum_optim_time += time.time() - t1
        return traj_infos, opt_info

    def is_log_itr(self, itr: int) -> bool:
        """True at the end of every logging interval."""
        return (itr + 1) % self.log_interval_itrs == 0


class MinibatchRl(MinibatchRlBase):
    """Synchronous training; training trajectories (the last ``log_traj_window``) are logged.

    Args: as MinibatchRlBase, plus ``log_traj_window=100``.
    """

    def __init__(self, *args: Any, log_traj_window: int = 100, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.log_traj_window = int(log_traj_window)

    def train(self, resume_from: str | bool | None = None) -> None:
        """Run the training.

        Args:
            resume_from: Continue a run from a snapshot: a snapshot file, a run folder, or
                True for the current logger's run folder (use with
                ``logger_context(..., resume=True)``).
        """
        n_itr = self.startup()
        try:
            self._maybe_resume(resume_from)
            for itr in range(self._start_itr, n_itr):
                traj_infos, opt_info = self.sample_and_optimize(itr)
                self.store_diagnostics(itr, traj_infos, opt_info)
                if self.is_log_itr(itr):
                    self.log_diagnostics(itr)
        finally:
            self.shutdown()

    def _record_runner_columns(self, traj_infos: list | None, eval_time: float) -> None:
        logger.record_tabular("NewCompletedTrajs", self._new_completed_trajs)
        logger.record_tabular("StepsInTrajWindow", sum(i["Length"] for i in self._traj_infos))
        self._new_completed_trajs = 0


class MinibatchRlEval(MinibatchRlBase):
    """Synchronous training with offline evaluation before training and at every log point."""

    def train(self, resume_from: str | bool | None = None) -> None:
        """Run the training (see MinibatchRl.train for ``resume_from``)."""
        n_itr = self.startup()
        try:
            self._maybe_resume(resume_from)
            if self._start_itr == 0:
                with logger.prefix("itr #0 "):
                    eval_traj_infos, eval_time = self.evaluate_agent(0)
                    self.log_diagnostics(0, eval_traj_infos, eval_time, pre_training=True)
            for itr in range(self._start_itr, n_itr):
                traj_infos, opt_info = self.sample_and_optimize(itr)
                self.store_diagnostics(itr, traj_infos, opt_info)
                if self.is_log_itr(itr):
                    eval_traj_infos, eval_time = self.evaluate_agent(itr)
                    self.log_diagnostics(itr, eval_traj_infos, eval_time)
        finally:
            self.shutdown()

    def evaluate_agent(self, itr: int) -> tuple[list, float]:
        """Evaluate (skipped before ``min_itr_learn`` except at itr 0); returns infos, seconds."""
        if 0 < itr < getattr(self.algo, "min_itr_learn", 0) - 1:
            return [], 0.0
        logger.log("Evaluating agent...")
        t0 = time.time()
        self.agent.eval_mode(itr)
        traj_infos = self.sampler.evaluate_agent(itr)
        eval_time = time.time() - t0
        self._cum_eval_time += eval_time
        logger.log(f"Evaluation: {len(traj_infos)} trajectories in {eval_time:.1f} s.")
        return traj_infos, eval_time

    def _record_runner_columns(self, traj_infos: list | None, eval_time: float) -> None:
        traj_infos = traj_infos or []
        logger.record_tabular("StepsInEval", sum(i["Length"] for i in traj_infos))
        logger.record_tabular("TrajsInEval", len(traj_infos))
        logger.record_tabular("CumEvalTime", self._cum_eval_time)
        logger.record_tabular("CumTrainTime", time.time() - self._start_time - self._cum_eval_time)

    def _log_infos(self, traj_infos: list | None = None) -> None:
        super()._log_infos(traj_infos if traj_infos is not None else [])


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else math.nan


def _format_seconds(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours:d}:{rest // 60:02d}:{rest % 60:02d}"


def _cpu_affinity() -> Any:
    try:
        return psutil.Process().cpu_affinity()
    except (AttributeError, OSError):
        return "n/a"
