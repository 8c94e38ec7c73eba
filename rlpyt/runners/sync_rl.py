"""SyncRl and SyncRlEval: synchronous data-parallel training over several processes.

Box: Runner. A launch script builds sampler, agent and algorithm once and calls ``train()``, as
for :class:`~rlpyt.runners.minibatch_rl.MinibatchRl`. Every rank runs that same training loop
with a full replica (its own sampler and envs, seeded ``seed + 100 * rank``); the agent's model
is wrapped in DistributedDataParallel, so each gradient step averages the gradients of all ranks
and the parameters stay identical everywhere. Batch sizes are per rank (weak scaling): one
iteration is ``T * B * world_size`` env steps, which ``CumSteps`` counts.

Two ways to start (:mod:`rlpyt.runners.sync_ranks`): the master's (``affinity`` is a list
with one affinity per rank; the calling process is rank 0 and starts the others on this
machine) or torchrun's (each torchrun process is one rank; ``affinity`` is a list indexed by
``LOCAL_RANK``, or one dict for all ranks, or None). Only rank 0 logs and writes snapshots; the
trajectory infos of every rank are gathered to it each iteration; SyncRlEval evaluates in rank 0
while the others wait at a barrier. Snapshots hold each rank's sampler, algorithm and RNG state,
so every rank resumes exactly. A rank that fails ends the run on every rank
(docs/distributed.md).
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, TypeVar

import torch
import torch.distributed as dist

from rlpyt.envs.traj_info import TrajInfo
from rlpyt.protocols import OptInfo, RecurrentAgent
from rlpyt.runners.diagnostics import Row
from rlpyt.runners.divergence import DivergenceError
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlBase, MinibatchRlEval
from rlpyt.runners.snapshot import get_rng_state, set_rng_state, snapshot_to_resume
from rlpyt.runners.sync_ranks import (
    RankError,
    RankGroup,
    destroy_process_group,
    init_process_group,
    make_store,
    run_rank,
    torchrun_env,
)
from rlpyt.utils.hyperparams import hyperparam
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context
from rlpyt.utils.seed import make_seed

RANK_SEED_STRIDE = 100  # rank r trains with seed + 100 * r

T = TypeVar("T")

if TYPE_CHECKING:
    from multiprocessing.queues import Queue


class SyncRlMixin(MinibatchRlBase):
    """What makes a MinibatchRl runner one rank of a synchronous data-parallel run.

    It overrides hooks of :class:`~rlpyt.runners.minibatch_rl.MinibatchRlBase`, its base;
    SyncRl and SyncRlEval put it before MinibatchRl and MinibatchRlEval, so its ``super()``
    calls reach their hooks (their common base comes last in the method order).

    Class attributes (set on the class or the instance before ``train()``):
        collective_timeout: Seconds a collective waits for the other ranks before raising (a
            rank that is alive but stuck; failed ranks are noticed at once).
        start_method: Start method of the ranks the master starts ("spawn": clean processes,
            like torchrun's).
        startup_timeout: Seconds the master waits for its ranks to start.
    """

    affinity = hyperparam(
        doc="A list with one affinity dict per rank (``make_affinity(..., gpu_per_run=n)``); "
        "under torchrun a list indexed by ``LOCAL_RANK``, one dict for every rank, or None.",
        type=list | dict | None,
    )

    collective_timeout: float = 1800.0
    start_method: str = "spawn"
    startup_timeout: float = 300.0

    _ranks: RankGroup | None = None
    _joined: tuple | None = None  # (rank, world_size, seed, port, report_queue): started rank
    _rank_states: list | None = None
    _muted = False
    # The list of rank affinities given as ``affinity`` (None: torchrun with one dict for every
    # rank); ``affinity`` becomes this rank's entry (_rank_affinities).
    affinities: list[dict] | None = None
    _cuda = False  # this rank trains on a GPU (set by _set_rank)

    # -- the two ways in ------------------------------------------------------------------------

    def iter_train(self, resume_from: str | bool | None = None) -> Iterator[Row]:
        """Train as one rank, yielding the rows rank 0 logs (other ranks yield empty dicts).

        Args:
            resume_from: As :meth:`TrainingRunnerBase.iter_train`; resolved by rank 0 and used
                by every rank (the snapshot file must be readable by all of them).

        Raises:
            RankError: (the master's start, rank 0) another rank raised or died; its traceback.
        """
        error: BaseException | None = None
        try:
            resume_path = self._join_process_group(resume_from)
            yield from super().iter_train(resume_path)
        except (RankError, DivergenceError) as exc:  # complete as it is (every rank diverges)
            error = exc
            raise
        except Exception as exc:  # e.g. a collective failed: find the rank that caused it
            error = exc
            failure = self._ranks.failure() if self._ranks is not None else None
            if failure is not None:
                raise failure from exc
            raise
        except BaseException as exc:  # Ctrl-C, GeneratorExit: stop the ranks, no waiting
            error = exc
            raise
        finally:
            self._leave_process_group(error is None)

    def join_as_rank(
        self, rank: int, world_size: int, seed: int, port: int, reports: Queue
    ) -> None:
        """Called in a rank process the master started, before ``train()``."""
        self._joined = (rank, world_size, seed, port, reports)

    def _join_process_group(self, resume_from: str | bool | None) -> str | None:
        """Become a rank (starting the others if this is the master); the resume file."""
        torchrun = torchrun_env()
        if self._joined is not None:
            rank, world_size, seed, port, reports = self._joined
            self._set_rank(rank, world_size, seed, self._rank_affinities()[rank])
            reports.put(("ready", rank, None))
            init_process_group(rank, world_size, self._nccl(), self.collective_timeout, port)
            return str(resume_from) if resume_from else None  # resolved by the master
        if torchrun is not None:
            return self._join_torchrun(*torchrun, resume_from)
        return self._start_ranks(resume_from)

    def _join_torchrun(
        self, rank: int, world_size: int, local_rank: int, resume_from: str | bool | None
    ) -> str | None:
        affinity = self.affinity
        if isinstance(affinity, list | tuple):
            affinity = self._rank_affinities(local_rank + 1)[local_rank]
        self._set_rank(rank, world_size, 0, dict(affinity or {}))
        init_process_group(rank, world_size, self._nccl(), self.collective_timeout)
        seed = self.seed if rank == 0 and self.seed is not None else make_seed()
        self.seed = self._from_rank0(lambda: seed) + RANK_SEED_STRIDE * rank
        return self._from_rank0(lambda: snapshot_to_resume(resume_from))

    def _start_ranks(self, resume_from: str | bool | None) -> str | None:
        affinities = self._rank_affinities()
        world_size = len(affinities)
        seed = make_seed() if self.seed is None else self.seed
        resume_path = snapshot_to_resume(resume_from)  # refused here, before any process
        self._set_rank(0, world_size, seed, affinities[0])
        store = make_store(world_size, self.collective_timeout)
        if world_size > 1:
            ctx = mp.get_context(self.start_method)
            ranks = RankGroup(ctx, world_size - 1, self.startup_timeout)
            common = dict(
                runner=self,
                report_queue=ranks.report_queue,
                port=store.port,
                world_size=world_size,
                seed=seed,
                resume_path=resume_path,
            )
            try:
                ranks.start(run_rank, common, [dict(rank=r) for r in range(1, world_size)])
            finally:
                self._ranks = ranks  # after start: the ranks' copies of the runner lack it
            ranks.gather("ready")  # a rank that fails to start raises here, not a hang
        init_process_group(0, world_size, self._nccl(), self.collective_timeout, store=store)
        return resume_path

    def _set_rank(self, rank: int, world_size: int, seed: int, affinity: dict) -> None:
        self.rank, self.world_size = rank, world_size
        self.seed = seed + RANK_SEED_STRIDE * rank
        self.affinity = affinity
        cuda_idx = affinity.get("cuda_idx")
        self._cuda = cuda_idx is not None
        if self._cuda:
            torch.cuda.set_device(cuda_idx)
        if rank > 0:  # only rank 0 writes the run folder and the console
            logger.disable()
            self._muted = True

    def _nccl(self) -> bool:
        """NCCL when every rank has a GPU of its own; gloo for CPU ranks or a shared GPU."""
        if not self._cuda:
            return False
        affinities = self.affinities
        if affinities is None:  # torchrun with one affinity for all: each rank's GPU assumed
            return True
        gpus = [a.get("cuda_idx") for a in affinities]
        return None not in gpus and len(set(gpus)) == len(gpus)

    def _rank_affinities(self, at_least: int = 1) -> list[dict]:
        """The affinity list (kept as ``affinities``; ``affinity`` becomes this rank's)."""
        if self.affinities is None:
            given: object = self.affinity
            if not isinstance(given, list | tuple) or not given:
                raise TypeError(
                    f"{type(self).__name__} takes a list of affinities, one per rank (got "
                    f"{type(given).__name__}): e.g. make_affinity(n_cpu_core=2, n_gpu=0, "
                    "gpu_per_run=2) for 2 CPU ranks, or [dict(cuda_idx=0), dict(cuda_idx=1)]; "
                    "under torchrun a single dict or None is used by every rank."
                )
            self.affinities = [dict(a or {}) for a in given]
        affinities = self.affinities
        if len(affinities) < at_least:
            raise ValueError(
                f"The affinity list has {len(affinities)} entries but LOCAL_RANK "
                f"{at_least - 1} needs one: give one affinity per process of a node."
            )
        return affinities

    def _leave_process_group(self, success: bool) -> None:
        """Finish: the master collects its ranks' "done" (or stops them); leave the group."""
        try:
            if success and dist.is_available() and dist.is_initialized():
                # Every rank leaves the group together: a rank that tears its group down while
                # another still finishes can abort in C++ ("terminate called without an active
                # exception").
                dist.barrier()
            if self._ranks is not None:
                if success:
                    self._ranks.gather("done")
                self._ranks.stop()
        finally:
            self._ranks = None
            destroy_process_group()
            if self._muted:
                logger.enable()
                self._muted = False

    # -- collectives ----------------------------------------------------------------------------

    def _from_rank0(self, compute: Callable[[], T]) -> T:
        """``compute()`` on rank 0, sent to every rank; an error there is raised everywhere."""
        message: list[Any] = [None]
        error: Exception | None = None
        if self.rank == 0:
            try:
                message = [("ok", compute())]
            except Exception as exc:
                error = exc
                message = [("error", f"{type(exc).__name__}: {exc}")]
        dist.broadcast_object_list(message, src=0)
        kind, value = message[0]
        if error is not None:
            raise error
        if kind == "error":
            raise RuntimeError(f"Rank 0 failed before training: {value}")
        return value

    def _gather(self, obj: object) -> list | None:
        """Every rank's ``obj`` in rank order on rank 0 (None elsewhere)."""
        if self.world_size == 1:
            return [obj]
        out = [None] * self.world_size if self.rank == 0 else None
        dist.gather_object(obj, out, dst=0)
        return out

    # -- hooks of the training loop ---------------------------------------------------------------

    def find_divergence(self, opt_info: OptInfo | None) -> str | None:
        """MinibatchRl's check on every rank, then agreed: all ranks stop when one diverges.

        Losses differ between ranks, so each checks its own; one all-reduce of a flag per
        iteration, and the findings are gathered only when there is one.
        """
        found = super().find_divergence(opt_info)
        if self.world_size == 1:
            return found
        device = torch.device("cuda") if self._nccl() else torch.device("cpu")  # NCCL: CUDA only
        flag = torch.tensor([0.0 if found is None else 1.0], device=device)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        if flag.item() == 0.0:
            return None
        findings: list[str | None] = [None] * self.world_size
        dist.all_gather_object(findings, found)
        rank, quantity = next((r, q) for r, q in enumerate(findings) if q is not None)
        return f"{quantity} (rank {rank})"

    def store_diagnostics(
        self, itr: int, traj_infos: list[TrajInfo], opt_info: OptInfo | None
    ) -> None:
        """Gather every rank's completed TrajInfos to rank 0, which keeps them for its log."""
        if self._ranks is not None:
            self._ranks.check()  # a rank that failed outside a collective
        gathered = self._gather(traj_infos)
        if self.rank == 0 and gathered is not None:
            all_infos = [info for infos in gathered for info in infos]
            super().store_diagnostics(itr, all_infos, opt_info)

    def log_diagnostics(
        self,
        itr: int,
        traj_infos: list[TrajInfo] | None = None,
        eval_time: float = 0.0,
        prefix: str = "Diagnostics/",
        pre_training: bool = False,
    ) -> Row:
        """Rank 0 logs and snapshots (with every rank's state); other ranks return ``{}``."""
        if not pre_training and self._from_rank0(lambda: self._snapshot_due(itr)):
            own = None if self.rank == 0 else self._rank_state()
            self._rank_states = self._gather(own)
        if self.rank != 0:
            return {}
        return super().log_diagnostics(itr, traj_infos, eval_time, prefix, pre_training)

    def startup(self) -> int:
        """MinibatchRl's start-up, then every rank takes rank 0's agent state.

        DDP makes the trained models equal; this also makes the rest equal (target networks,
        which each rank built from its own seed), before the first update.
        """
        n_itr = super().startup()
        if self.world_size > 1:
            for tensor in _tensors(self.agent.state_dict()):
                dist.broadcast(tensor, src=0)  # state dict tensors share the models' storage
            self.agent.sync_shared_memory()
        return n_itr

    def record_config(self) -> None:
        """Only rank 0 records the resolved configuration."""
        if self.rank == 0:
            super().record_config()

    # -- snapshots ------------------------------------------------------------------------------

    @staticmethod
    def _snapshot_due(itr: int) -> bool:
        mode = logger.get_snapshot_mode()
        if mode == "none" or logger.get_snapshot_dir() is None:
            return False
        return bool(logger.snapshot_file_names(itr, mode, logger.get_snapshot_gap()))

    def _rank_state(self) -> dict:
        """What differs between ranks: sampler, algorithm (e.g. a replay), RNG states."""
        return dict(
            sampler_state=self.sampler.state_dict(),
            algo_state_dict=self.algo.state_dict(),
            rnn_state=(
                self.agent.sampling_rnn_state if isinstance(self.agent, RecurrentAgent) else None
            ),
            rng_state=get_rng_state(),
        )

    def get_itr_snapshot(self, itr: int) -> dict:
        """MinibatchRl's snapshot (rank 0's states) plus ``world_size`` and ``rank_states``."""
        snapshot = super().get_itr_snapshot(itr)
        snapshot.update(world_size=self.world_size, rank_states=self._rank_states)
        return snapshot

    def resume(self, snapshot: dict) -> None:
        """Every rank loads the snapshot; ranks above 0 then take their own states from it."""
        saved = snapshot.get("world_size", 1)
        if saved != self.world_size:
            raise ValueError(
                f"The snapshot was written by a run of {saved} ranks; resume it with the same "
                f"number of ranks (this run has {self.world_size})."
            )
        super().resume(snapshot)
        if self.rank > 0:
            state = snapshot["rank_states"][self.rank]
            self.algo.load_state_dict(state["algo_state_dict"])
            self.sampler.load_state_dict(state["sampler_state"])
            if state["rnn_state"] is not None and isinstance(self.agent, RecurrentAgent):
                self.agent.sampling_rnn_state = state["rnn_state"]
            set_rng_state(state["rng_state"])


class SyncRl(SyncRlMixin, MinibatchRl):
    """MinibatchRl over several ranks; the log summarises every rank's training trajectories.

    ``n_steps`` counts all ranks' steps; the sampler's batch is per rank.
    """


class SyncRlEval(SyncRlMixin, MinibatchRlEval):
    """MinibatchRlEval over several ranks; rank 0 evaluates while the others wait.

    ``n_steps`` counts all ranks' steps; rank 0's sampler needs ``eval_n_envs > 0``.
    """

    def evaluate_agent(self, itr: int) -> tuple[list[TrajInfo], float]:
        """Rank 0 evaluates; every rank then meets at a barrier."""
        result = super().evaluate_agent(itr) if self.rank == 0 else ([], 0.0)
        if self.world_size > 1:
            dist.barrier()
        return result


def sync_logger_context(*args: Any, **kwargs: Any) -> Any:
    """``logger_context(*args, **kwargs)`` on rank 0, a no-op context on other torchrun ranks.

    Train scripts run under torchrun open the run folder with this, so only rank 0 writes it.
    Outside torchrun it is ``logger_context``.
    """
    env = torchrun_env()
    if env is not None and env[0] != 0:
        return nullcontext()
    return logger_context(*args, **kwargs)


def _tensors(state: object) -> Iterator[torch.Tensor]:
    """The tensors of a (nested) state dict, in its order."""
    if isinstance(state, torch.Tensor):
        yield state
    elif isinstance(state, dict):
        for value in state.values():
            yield from _tensors(value)
