"""TrainingDiagnostics: what a runner measures between log points, and the columns it logs.

Box: Runner. A runner holds one :class:`TrainingDiagnostics` (made in ``startup``). Every
iteration it hands over the completed TrajInfos, the OptInfo and the sampling/optimization
times; at a log point they give the columns of one progress row. The console line (progress,
steps/s, ETA) is printed after every row when stdout is a terminal, and between rows at most
every ``CONSOLE_LINE_SECONDS``.

Invariant: the column names, their order and their values are rlpyt's log format
(``progress.csv``, read by viskit): the runner's own columns, then the common ``Diagnostics/``
block (:meth:`TrainingDiagnostics.common_columns`), then five statistics per TrajInfo field and
per OptInfo field (:meth:`TrainingDiagnostics.stat_columns`).

Windows: a row's OptInfo statistics, NewCompletedTrajs and ReplayRatio cover the iterations
since the previous row on the log schedule (every ``log_interval_itrs``). A row off the
schedule (the last iteration of a budget between log points) leaves that window open, and the
snapshot carries it, so a run continued from that row logs the uninterrupted run's rows.
"""

from __future__ import annotations

import math
import sys
import time
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rlpyt.envs.traj_info import TrajInfo
from rlpyt.utils.logging import logger

if TYPE_CHECKING:
    from rlpyt.protocols import OptInfo

CONSOLE_LINE_SECONDS = 5.0  # between tabular dumps, at most one progress line this often

Row = dict[str, float]
"""One progress row (or part of one): column name -> value, in column order."""


class TrainingDiagnostics:
    """Counters, timers, the training-trajectory window and the OptInfo values of a run.

    Args:
        opt_info_fields: The algorithm's OptInfo field names (each logged as five statistics).
        itr_batch_size: Env steps per iteration over all processes, ``T * B * world_size``.
        n_itr: Iterations of the run (for the console line's progress and ETA).
        world_size: Data-parallel processes (replay ratios count every process's updates).
        traj_window: Completed training TrajInfos kept for logging (the last ``traj_window``;
            None keeps all of them).
    """

    def __init__(
        self,
        opt_info_fields: Sequence[str],
        itr_batch_size: int,
        n_itr: int,
        world_size: int = 1,
        traj_window: int | None = None,
    ):
        self.itr_batch_size = itr_batch_size
        self.n_itr = n_itr
        self.world_size = world_size
        self.traj_infos: deque[TrajInfo] = deque(maxlen=traj_window)
        self.opt_infos: dict[str, list] = {key: [] for key in opt_info_fields}
        self.start_time = self.last_time = self.last_line_time = time.time()
        self.session_start_time = self.start_time  # (re)start of this process: the ETA's base
        self.cum_completed_trajs = 0
        self.new_completed_trajs = 0
        self.last_update_counter = 0
        self.last_logged_itr = -1
        self.start_itr = 0
        self.cum_sample_time = self.cum_optim_time = self.cum_eval_time = 0.0

    # -- between log points ---------------------------------------------------------------

    def store(self, itr: int, traj_infos: Sequence[TrajInfo], opt_info: OptInfo | None) -> None:
        """Keep an iteration's completed TrajInfos and OptInfo values until the next log."""
        self.cum_completed_trajs += len(traj_infos)
        self.new_completed_trajs += len(traj_infos)
        self.traj_infos.extend(traj_infos)
        for key, values in zip(self.opt_infos, opt_info or (), strict=False):
            self.opt_infos[key].extend(values if isinstance(values, list) else [values])
        self.console_line(itr)

    def add_times(self, sample_seconds: float, optim_seconds: float) -> None:
        """Account one iteration's sampling and optimization time."""
        self.cum_sample_time += sample_seconds
        self.cum_optim_time += optim_seconds

    def add_eval_time(self, seconds: float) -> None:
        """Account one evaluation's time."""
        self.cum_eval_time += seconds

    progress_bar_drawn = False  # the runner's progress bar is on the terminal

    def console_line(self, itr: int, log_point: bool = False) -> None:
        """Log progress, steps/s (since the last row) and ETA after iteration ``itr``.

        Args:
            itr: The iteration just finished.
            log_point: Called right after a progress row: print the line if stdout is a
                terminal (a log file has the table). Between rows (False): print at most every
                ``CONSOLE_LINE_SECONDS``, and not at all while the progress bar draws.

        The ETA is the remaining iterations at the rate since this process started (or
        resumed), so time spent before a resume does not count.
        """
        now = time.time()
        if not log_point and self.progress_bar_drawn:
            return  # the progress bar shows it continuously
        due = (
            stdout_is_terminal() if log_point else now - self.last_line_time >= CONSOLE_LINE_SECONDS
        )
        if not due:
            return
        self.last_line_time = now
        session_itrs = max(itr + 1 - self.start_itr, 1)
        session_elapsed = now - self.session_start_time
        rate = (itr - self.last_logged_itr) * self.itr_batch_size / max(now - self.last_time, 1e-9)
        eta = (self.n_itr - itr - 1) * session_elapsed / session_itrs
        logger.log(
            f"itr {itr + 1}/{self.n_itr} | {(itr + 1) * self.itr_batch_size:,} steps | "
            f"{rate:,.0f} steps/s | ETA {format_seconds(eta)}",
            with_prefix=False,
        )

    # -- at a log point ---------------------------------------------------------------------

    def window_columns(self) -> Row:
        """MinibatchRl's own columns: trajectories completed since the last log, window size."""
        return {
            "NewCompletedTrajs": self.new_completed_trajs,
            "StepsInTrajWindow": sum(info["Length"] for info in self.traj_infos),
        }

    def eval_columns(self, eval_traj_infos: Sequence[TrajInfo]) -> Row:
        """MinibatchRlEval's own columns: the evaluation's size and the time split."""
        return {
            "StepsInEval": sum(info["Length"] for info in eval_traj_infos),
            "TrajsInEval": len(eval_traj_infos),
            "CumEvalTime": self.cum_eval_time,
            "CumTrainTime": time.time() - self.start_time - self.cum_eval_time,
        }

    def common_columns(
        self,
        itr: int,
        update_counter: int,
        algo_batch_size: int,
        eval_time: float = 0.0,
        pre_training: bool = False,
    ) -> Row:
        """The common block: counters, rates (NaN at the first row) and replay ratios.

        Args:
            itr: The iteration just finished.
            update_counter: The algorithm's gradient steps so far.
            algo_batch_size: Samples per gradient step (0: replay ratios are 0 or NaN).
            eval_time: Seconds of evaluation since the last log (not training time).
            pre_training: The evaluation row before any sampling (CumSteps 0: no env step is
                sampled yet).
        """
        new_time = time.time()
        train_time = max(new_time - self.last_time - eval_time, 1e-9)
        new_samples = 0 if pre_training else self.itr_batch_size * (itr - self.last_logged_itr)
        new_updates = update_counter - self.last_update_counter
        cum_steps = 0 if pre_training else (itr + 1) * self.itr_batch_size
        first = itr == 0 or pre_training
        sample_ratio = algo_batch_size * self.world_size
        return {
            "Iteration": itr,
            "CumTime (s)": new_time - self.start_time,
            "CumSteps": cum_steps,
            "CumCompletedTrajs": self.cum_completed_trajs,
            "CumUpdates": update_counter,
            "StepsPerSecond": math.nan if first else new_samples / train_time,
            "UpdatesPerSecond": math.nan if first else new_updates / train_time,
            "ReplayRatio": _ratio(new_updates * sample_ratio, new_samples),
            "CumReplayRatio": _ratio(update_counter * sample_ratio, cum_steps),
            "CumSampleTime (s)": self.cum_sample_time,
            "CumOptimTime (s)": self.cum_optim_time,
        }

    def stat_columns(self, traj_infos: Sequence[TrajInfo] | None = None) -> Row:
        """Five statistics per public TrajInfo field and per OptInfo field.

        Args:
            traj_infos: The trajectories to summarise (evaluation ones); None: the window of
                training trajectories. No TrajInfo columns when there are none.
        """
        traj_infos = list(self.traj_infos) if traj_infos is None else traj_infos
        row: Row = {}
        if traj_infos:
            for key in traj_infos[0]:
                if not key.startswith("_"):
                    row.update(logger.misc_stat_columns(key, [info[key] for info in traj_infos]))
        for key, values in self.opt_infos.items():
            row.update(logger.misc_stat_columns(key, values))
        return row

    def mark_logged(
        self, itr: int, update_counter: int, pre_training: bool = False, close_window: bool = True
    ) -> None:
        """Start the next log interval (after the row is written).

        Args:
            itr: The row's iteration.
            update_counter: The algorithm's gradient steps so far.
            pre_training: The evaluation row before any sampling.
            close_window: False for a row off the log schedule: the window stays open and the
                next row on the schedule covers it whole.
        """
        if not close_window:
            return
        self.opt_infos = {key: [] for key in self.opt_infos}
        self.new_completed_trajs = 0
        self.last_time = self.last_line_time = time.time()
        self.last_update_counter = update_counter
        if not pre_training:
            self.last_logged_itr = itr

    # -- snapshots ----------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """What the diagnostics carry between log points (the snapshot's ``runner_state``)."""
        return dict(
            cum_completed_trajs=self.cum_completed_trajs,
            traj_infos=list(self.traj_infos),
            cum_time=time.time() - self.start_time,
            cum_sample_time=self.cum_sample_time,
            cum_optim_time=self.cum_optim_time,
            cum_eval_time=self.cum_eval_time,
            window=dict(
                opt_infos={key: list(values) for key, values in self.opt_infos.items()},
                new_completed_trajs=self.new_completed_trajs,
                last_update_counter=self.last_update_counter,
                last_logged_itr=self.last_logged_itr,
            ),
        )

    def load_state_dict(
        self, state: dict, itr: int, update_counter: int, window_open: bool = False
    ) -> None:
        """Continue after the log point of iteration ``itr`` from :meth:`state_dict`'s dict.

        Args:
            state: What :meth:`state_dict` returned at the row of ``itr``.
            itr: The snapshot's iteration.
            update_counter: The algorithm's gradient steps at ``itr``.
            window_open: ``itr`` is off the log schedule: continue the window the snapshot
                holds (snapshots without one start a new window).
        """
        self.cum_completed_trajs = state["cum_completed_trajs"]
        self.traj_infos.extend(state["traj_infos"])
        self.start_time = time.time() - state["cum_time"]
        self.last_time = self.last_line_time = self.session_start_time = time.time()
        self.cum_sample_time = state["cum_sample_time"]
        self.cum_optim_time = state["cum_optim_time"]
        self.cum_eval_time = state["cum_eval_time"]
        self.last_update_counter = update_counter
        self.start_itr = itr + 1
        self.last_logged_itr = itr
        window = state.get("window")
        if window_open and window is not None:
            self.opt_infos = {key: list(window["opt_infos"].get(key, [])) for key in self.opt_infos}
            self.new_completed_trajs = window["new_completed_trajs"]
            self.last_update_counter = window["last_update_counter"]
            self.last_logged_itr = window["last_logged_itr"]


def record_row(row: Row) -> None:
    """Record a row's values in the logger and dump them (one line of progress.csv)."""
    for key, value in row.items():
        logger.record_tabular(key, value)
    logger.dump_tabular(with_prefix=False)


def stdout_is_terminal() -> bool:
    """True if ``sys.stdout`` (where the logger prints) is an interactive terminal."""
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (ValueError, OSError):  # a closed stream
        return False


def format_seconds(seconds: float) -> str:
    """``H:MM:SS`` of a duration."""
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours:d}:{rest // 60:02d}:{rest % 60:02d}"


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else math.nan
