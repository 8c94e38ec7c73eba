"""MinibatchRl and MinibatchRlEval: sample a batch, optimize, log; training in one process.

Box: Runner. A launch script builds sampler, agent and algorithm and calls ``train()``.
:class:`MinibatchRlBase` gives the one wrapper of :class:`rlpyt.runners.base.TrainingRunnerBase`
its synchronous rows: per iteration ``sample_and_optimize``, the divergence check, and every
``log_interval_itrs`` (and at the last iteration) ``evaluate_agent`` -> ``log_diagnostics``
(which also calls ``save_itr_snapshot``). MinibatchRl and MinibatchRlEval differ in
``evaluate_agent``, ``evaluate_before_training`` (MinibatchRlEval logs an itr-0 row) and
``runner_columns``; SyncRl (:mod:`rlpyt.runners.sync_rl`) runs these rows on every rank of a
data-parallel run. The sampler may use worker processes; training always happens in this
process.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import torch

from rlpyt.envs.traj_info import TrajInfo
from rlpyt.protocols import OptInfo, Sampler
from rlpyt.runners.base import TrainingRunnerBase
from rlpyt.runners.diagnostics import Row
from rlpyt.runners.progress import TARGET_COLUMN, TrainingProgressBar, target_reached
from rlpyt.utils.hyperparams import STEPS, hyperparam
from rlpyt.utils.launching.threads import process_cpus
from rlpyt.utils.logging import logger


class MinibatchRlBase(TrainingRunnerBase[Sampler]):
    """The synchronous training rows: sample a batch, optimize, check, log; in one process."""

    sampler = hyperparam(doc="Any synchronous sampler.", type=Sampler)
    affinity = hyperparam(
        doc="Dict with any of ``cuda_idx``, ``master_cpus``, ``master_torch_threads``, "
        "``workers_cpus``, ``worker_torch_threads``, ``set_affinity``, ``alternating``, and "
        "``flush_denormal`` (default True: denormal floats flush to zero in the training "
        "process, see ``rlpyt.runners.base.flush_denormals``); None: {}."
    )

    def training_rows(self, n_itr: int) -> Iterator[Row]:
        """Per iteration: sample, optimize, check; at log points evaluate and log a row."""
        if self._start_itr == 0 and (row := self.evaluate_before_training()) is not None:
            yield row
        for itr in range(self._start_itr, n_itr):
            traj_infos, opt_info = self.sample_and_optimize(itr)
            self.check_divergence(itr, opt_info)
            self.store_diagnostics(itr, traj_infos, opt_info)
            if self.is_log_itr(itr):
                eval_traj_infos, eval_time = self.evaluate_agent(itr)
                row = self.log_diagnostics(itr, eval_traj_infos, eval_time)
                yield row
                if self.stop_at_target(itr, row):
                    break

    def sample_and_optimize(self, itr: int) -> tuple[list[TrajInfo], OptInfo | None]:
        """One iteration: sample a batch, train on it; returns ``(traj_infos, opt_info)``."""
        logger.set_iteration(itr)
        self.current_itr = itr
        with logger.prefix(f"itr #{itr} "):
            t0 = time.time()
            self.agent.sample_mode(itr)
            samples, traj_infos = self.sampler.obtain_samples(itr)
            t1 = time.time()
            self.agent.train_mode(itr)
            self.thread_governor.adapt()
            opt_info = self.algo.optimize_agent(itr, samples)
            self.diagnostics.add_times(t1 - t0, time.time() - t1)
        self.progress.advance(self.itr_batch_size)
        return traj_infos, opt_info

    def stop_at_target(self, itr: int, row: Row) -> bool:
        """True (and say so) when the row's trailing average return reached ``target_reward``."""
        self.progress.show_row(row)
        if self.target_reward is None:
            return False
        reached = target_reached(row, self.target_reward)
        if self.world_size > 1:  # rank 0 holds the logged row; every rank must stop together
            decision = [reached]
            torch.distributed.broadcast_object_list(decision, src=0)
            reached = bool(decision[0])
        if not reached:
            return False
        self.target_reached_itr = itr
        if TARGET_COLUMN in row:
            logger.log(
                f"Target reward reached: {TARGET_COLUMN} {row[TARGET_COLUMN]:.4g} >= "
                f"{self.target_reward:g} after iteration {itr}; stopping early."
            )
        return True

    # -- hooks ----------------------------------------------------------------------------------

    def evaluate_before_training(self) -> Row | None:
        """Hook: a row logged before the first iteration (None: no such row)."""
        return None

    def evaluate_agent(self, itr: int) -> tuple[list[TrajInfo] | None, float]:
        """Hook: evaluate at a log point; returns ``(traj_infos, seconds)``.

        This runner does not evaluate: ``(None, 0.0)``, and the log summarises the window of
        training trajectories.
        """
        return None, 0.0

    def ranks_beside(self) -> int:
        """Hook: CPUs that the other ranks of this run keep busy on this process's CPUs.

        Zero for one rank, and for ranks pinned to CPUs of their own (``master_cpus``); else
        the ranks on this machine share its CPUs equally.
        """
        if self.world_size <= 1 or self.master_affinity()["cpus"] is not None:
            return 0
        local_ranks = int(os.environ.get("LOCAL_WORLD_SIZE", self.world_size))
        n_cpus = len(process_cpus())
        return n_cpus - max(1, n_cpus // max(local_ranks, 1))

    # -- start-up -------------------------------------------------------------------------

    def startup(self) -> int:
        """Pin the master, seed, initialize sampler, agent device and algorithm; returns n_itr."""
        self._set_master_affinity()
        seed = self.seed_everything()
        examples = self.sampler.initialize(
            agent=self.agent,
            affinity=self.affinity,
            seed=seed + 1,
            bootstrap_value=self.algo.bootstrap_value,
            traj_info_kwargs=self.get_traj_info_kwargs(),
            rank=self.rank,
            world_size=self.world_size,
        )
        self.itr_batch_size = self.sampler.batch_spec.size * self.world_size
        n_itr = self.get_n_itr()
        self.agent.to_device(self.affinity.get("cuda_idx", None))
        self._set_master_threads(self.ranks_beside())
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
        self.warn_if_learning_never_starts()
        self.initialize_logging()
        self.record_config()
        self.progress = TrainingProgressBar(n_itr * self.itr_batch_size)
        self.diagnostics.progress_bar_drawn = self.progress.drawing
        return n_itr


class MinibatchRl(MinibatchRlBase):
    """Synchronous training; the last ``log_traj_window`` training trajectories are logged."""

    log_traj_window: int = hyperparam(
        100,
        "Completed training trajectories summarised at each log point.",
        STEPS,
        after="log_interval_steps",
    )

    def runner_columns(self, traj_infos: list[TrajInfo] | None) -> Row:
        """``NewCompletedTrajs`` and ``StepsInTrajWindow``."""
        return self.diagnostics.window_columns()


class MinibatchRlEval(MinibatchRlBase):
    """Synchronous training with offline evaluation before training and at every log point.

    The log summarises the evaluation trajectories; the sampler needs ``eval_n_envs > 0``.
    """

    log_traj_window = 0  # training trajectories are counted, not kept (the log shows eval ones)

    def evaluate_before_training(self) -> Row:
        """Evaluate the untrained agent and log its row (CumSteps 0)."""
        with logger.prefix("itr #0 "):
            traj_infos, eval_time = self.evaluate_agent(0)
            return self.log_diagnostics(0, traj_infos, eval_time, pre_training=True)

    def evaluate_agent(self, itr: int) -> tuple[list[TrajInfo], float]:
        """Evaluate (skipped before ``min_itr_learn`` except at itr 0); returns infos, seconds."""
        if 0 < itr < self.algo.min_itr_learn - 1:
            return [], 0.0
        logger.log("Evaluating agent...")
        t0 = time.time()
        self.agent.eval_mode(itr)
        traj_infos = self.sampler.evaluate_agent(itr)
        eval_time = time.time() - t0
        self.diagnostics.add_eval_time(eval_time)
        logger.log(f"Evaluation: {len(traj_infos)} trajectories in {eval_time:.1f} s.")
        return traj_infos, eval_time

    def runner_columns(self, traj_infos: list[TrajInfo] | None) -> Row:
        """``StepsInEval``, ``TrajsInEval``, ``CumEvalTime`` and ``CumTrainTime``."""
        return self.diagnostics.eval_columns(traj_infos or [])
