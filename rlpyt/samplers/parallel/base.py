"""ParallelSamplerBase: worker processes fill one shared ``[T, B]`` samples buffer.

Box: Sampler (master side). Called by the runner like every sampler (``initialize``,
``obtain_samples``, ``evaluate_agent``, ``shutdown``). The master builds one throwaway example
env, initializes the agent and allocates every buffer in shared memory (after checking /dev/shm
has room for all of them), then starts the workers through a
:class:`~rlpyt.samplers.parallel.worker_group.WorkerGroup`, with everything in their
``Process`` arguments (worker side: :mod:`rlpyt.samplers.parallel.worker`). Worker ``w`` steps
envs ``env_ranks[w]`` (a contiguous block of global indexes) and writes in place into
``samples_np[:, block]``.

Per batch: the master sets ``ctrl.itr`` and releases each worker's ``start`` semaphore (the
worker acquires it); each worker fills its columns and puts one ``batch`` report (its completed
TrajInfos) on the report queue; the master gathers one report per worker. GPU samplers
additionally serve actions per time step in between (see ``gpu/action_server.py``). Invariant:
between ``obtain_samples`` calls, no worker touches the samples buffer, so the algorithm may
read it freely.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import gc
import multiprocessing as mp
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from multiprocessing.context import BaseContext
from typing import TYPE_CHECKING

from rlpyt.samplers.base import EVAL_SEED_OFFSET, BaseSampler
from rlpyt.samplers.buffer import build_samples_buffer, get_example_outputs
from rlpyt.samplers.collections import Samples, TrajInfo, TrajInfoFactory
from rlpyt.samplers.evaluation import select_unbiased
from rlpyt.samplers.noise import SamplingNoise
from rlpyt.samplers.parallel.worker import GET_STATE, NO_STATE_OP, SET_STATE, sampling_process
from rlpyt.samplers.parallel.worker_group import WorkerGroup
from rlpyt.samplers.vector import make_example_env
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.hyperparams import POSITIVE, described, hyperparam
from rlpyt.utils.launching.affinity import validate_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.shared_memory import check_shared_memory, nbytes_of

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent

START_METHODS = ("fork", "forkserver", "spawn")


@described(f"one of {START_METHODS} or None")
def check_start_method(owner: str, name: str, value: str | None) -> str | None:
    """``value`` if it is one of :data:`START_METHODS` or None, else raise ValueError."""
    if value is not None and value not in START_METHODS:
        raise ValueError(f"{name} must be one of {START_METHODS} or None.")
    return value


class ParallelSamplerBase(BaseSampler):
    """Common machinery of the parallel samplers: BaseSampler's keywords and two of their own."""

    start_method: str | None = hyperparam(
        None,
        "``fork``, ``forkserver`` or ``spawn``; None: ``fork`` where the OS has it (Linux), else "
        "the platform default. Everything workers need goes in their Process arguments, so all "
        "three work; spawn needs a picklable ``EnvCls`` and agent and an ``if __name__ == "
        '"__main__":`` guard in the script.',
        check_start_method,
        keyword_only=True,
    )
    worker_timeout: float = hyperparam(
        600.0,
        "Seconds the master waits for a worker making no progress (one batch of a CPU worker, "
        "one time step of a GPU worker) before raising TimeoutError.",
        POSITIVE,
        keyword_only=True,
    )

    gpu = False
    alternating = False

    def __post_init__(self) -> None:
        """The checks of BaseSampler; no workers until ``initialize``."""
        super().__post_init__()
        self.worker_timeout = float(self.worker_timeout)
        self.workers: WorkerGroup | None = None  # set when the workers start
        self._shut_down = False

    # -- start-up ------------------------------------------------------------------------------

    def initialize(
        self,
        agent: Agent,
        affinity: dict | None = None,
        seed: int | None = None,
        bootstrap_value: bool = False,
        traj_info_kwargs: dict | None = None,
        *,
        world_size: int = 1,
        rank: int = 0,
        worker_process: Callable[..., None] | None = None,
    ) -> AttrDict:
        """Build the agent and shared buffers, start the workers, wait until they are ready.

        Args:
            agent: The agent (initialized here).
            affinity: Dict with ``workers_cpus`` (one CPU or CPU tuple per worker; its length
                is the number of workers), ``set_affinity`` (pin workers; default True when
                ``workers_cpus`` is given), ``worker_torch_threads`` (default 1), and for
                GPU samplers ``cuda_idx``; None: one worker per allowed CPU, unpinned (GPU
                samplers with ``cuda_idx`` leave the master a core: ``_sampler_affinity``).
            seed: Sampler seed: env ``i`` gets ``seed + i`` (global index), as in serial.
            bootstrap_value: Record the value of the state after the batch.
            traj_info_kwargs: Keywords of every TrajInfo (e.g. ``discount``).
            world_size: Number of parallel runners (each with its own sampler).
            rank: This runner's rank among them.
            worker_process: Unused (rlpyt's keyword).

        Returns:
            The example records used to allocate the buffers (for ``algo.initialize``).
        """
        del worker_process
        self._check_agent(agent, affinity)
        self.affinity = dict(affinity or {})
        validate_affinity(self.affinity)
        self.affinity = self._sampler_affinity(self.affinity)
        self.seed = seed
        B = self.batch_spec.B
        self.global_B = B * world_size
        env_ranks = list(range(rank * B, (rank + 1) * B))
        self.n_worker = self._get_n_worker(self.affinity)
        self._layout(env_ranks)
        env = make_example_env(self.EnvCls, self.env_kwargs)
        try:
            self._agent_init(agent, env, self.global_B, env_ranks)
            examples = self._build_buffers(agent, env, bootstrap_value)
        finally:
            env.close()
        self.agent = agent
        self.traj_info_factory = TrajInfoFactory(self.TrajInfoCls, **(traj_info_kwargs or {}))
        self._start_workers()
        self._prepare_master_agent(agent)
        return examples

    def _check_agent(self, agent: Agent, affinity: dict | None) -> None:
        """Hook: refuse an agent or affinity this sampler cannot run, before anything starts."""

    def _prepare_master_agent(self, agent: Agent) -> None:
        """Hook: after the workers are ready, prepare the master's agent (GPU samplers)."""

    def _sampler_affinity(self, affinity: dict) -> dict:
        """Hook: the affinity the workers are laid out from (GPU samplers keep a master core)."""
        return affinity

    def _get_n_worker(self, affinity: dict) -> int:
        workers_cpus = affinity.get("workers_cpus")
        n_worker = len(workers_cpus) if workers_cpus else len(allowed_cpus())
        return max(1, min(n_worker, self.batch_spec.B))

    def _layout(self, env_ranks: list[int]) -> None:
        """Which global env (and eval env) indexes each worker steps."""
        self.worker_env_ranks = split_ranks(env_ranks, self.n_worker)
        self.worker_eval_ranks = split_ranks(list(range(self.eval_n_envs)), self.n_worker)

    def _agent_init(self, agent: Agent, env: Env, global_B: int, env_ranks: list[int]) -> None:  # noqa: N803
        raise NotImplementedError

    def _build_buffers(self, agent: Agent, env: Env, bootstrap_value: bool) -> AttrDict:
        """Check that /dev/shm has room for every shared buffer, then allocate the samples."""
        examples = get_example_outputs(agent, env)
        check_shared_memory(nbytes_of(examples) * self._shared_rows())
        self.samples_pyt, self.samples_np, examples = build_samples_buffer(
            agent,
            env,
            self.batch_spec,
            bootstrap_value,
            agent_shared=True,
            env_shared=True,
            examples=examples,
        )
        return examples

    def _shared_rows(self) -> int:
        """Env-step records the shared buffers hold: ``(T + 1) * B`` (an upper bound).

        Every field of the samples buffer has at most ``T + 1`` rows per env; GPU samplers add
        their step buffers.
        """
        T, B = self.batch_spec
        return (T + 1) * B

    def _start_workers(self) -> None:
        ctx = mp.get_context(self.start_method or default_start_method())
        self.ctx = ctx
        workers = WorkerGroup(ctx, self.n_worker, self.worker_env_ranks, self.worker_timeout)
        self.workers = workers
        self.ctrl = AttrDict(
            quit=workers.quit,
            do_eval=ctx.RawValue(ctypes.c_bool, False),
            itr=ctx.RawValue(ctypes.c_long, 0),
            stop_eval=ctx.RawValue(ctypes.c_bool, False),
            state_op=ctx.RawValue(ctypes.c_int, NO_STATE_OP),
        )
        self._build_parallel_ctrl(ctx, workers)
        self._shut_down = False
        atexit.register(self.shutdown)
        try:
            workers.start(
                sampling_process, self._common_kwargs(workers), self._worker_kwargs_list(workers)
            )
            workers.gather("ready")
        except BaseException:
            self.shutdown()
            raise

    def _build_parallel_ctrl(self, ctx: BaseContext, workers: WorkerGroup) -> None:
        """Per-worker sync objects (``self.syncs``); GPU samplers add their semaphores."""
        self.syncs = [AttrDict(start=s) for s in workers.start_semaphores]

    def _common_kwargs(self, workers: WorkerGroup) -> dict:
        return dict(
            EnvCls=self.EnvCls,
            env_kwargs=self.env_kwargs,
            agent=self._worker_agent(),
            batch_T=self.batch_spec.T,
            CollectorCls=self.CollectorCls,
            TrajInfoCls=self.traj_info_factory,
            eval_CollectorCls=self.eval_CollectorCls,
            eval_env_kwargs=self.eval_env_kwargs,
            eval_max_T=self._eval_max_T(),
            eval_max_trajectories=self.eval_max_trajectories,
            eval_n_envs=self.eval_n_envs,
            eval_seed_offset=EVAL_SEED_OFFSET,
            max_decorrelation_steps=self.max_decorrelation_steps,
            seed=self.seed,
            global_B=self.global_B,
            torch_threads=int(self.affinity.get("worker_torch_threads") or 1),
            ctrl=self.ctrl,
            report_queue=workers.report_queue,
            parent_pid=os.getpid(),
        )

    def _worker_agent(self) -> Agent | None:
        return None

    def _eval_max_T(self) -> int:  # noqa: N802
        if self.eval_n_envs <= 0:
            return 0
        return max(1, int(self.eval_max_steps or 0) // self.eval_n_envs)

    def _worker_kwargs_list(self, workers: WorkerGroup) -> list[dict]:
        workers_cpus = self.affinity.get("workers_cpus")
        pin = bool(workers_cpus) and self.affinity.get("set_affinity", True)
        first = [ranks[0] - self.worker_env_ranks[0][0] for ranks in self.worker_env_ranks]
        kwargs_list = []
        for w, (env_ranks, eval_ranks) in enumerate(
            zip(self.worker_env_ranks, self.worker_eval_ranks, strict=True)
        ):
            block = slice(first[w], first[w] + len(env_ranks))
            kwargs = dict(
                rank=w,
                env_ranks=env_ranks,
                eval_env_ranks=eval_ranks,
                samples_np=self.samples_np[:, block],
                sync=self.syncs[w],
                state_queue=workers.state_queues[w],
                step_buffer_np=None,
                eval_step_buffer_np=None,
                cpus=workers_cpus[w] if pin and workers_cpus else None,
            )
            kwargs_list.append(self._add_worker_buffers(kwargs, w, block))
        return kwargs_list

    def _add_worker_buffers(self, kwargs: dict, w: int, block: slice) -> dict:
        return kwargs

    # -- sampling -----------------------------------------------------------------------------

    def obtain_samples(self, itr: int) -> tuple[Samples, list[TrajInfo]]:
        """Have every worker fill its columns of the batch.

        Returns:
            ``(samples_pyt, traj_infos)``: torch views of the ``[T, B]`` shared buffer and the
            TrajInfos completed during the batch (worker by worker).
        """
        workers = self._running()
        self.ctrl.itr.value = int(itr)
        self.ctrl.do_eval.value = False
        with self._shutdown_on_error():
            workers.release_all()
            self._serve_batch(itr)
            reports = workers.gather("batch")
        return self.samples_pyt, [traj_info for report in reports for traj_info in report]

    def _serve_batch(self, itr: int) -> None:
        """GPU samplers compute the actions here while the workers step."""

    def evaluate_agent(self, itr: int) -> list[TrajInfo]:
        """Run the evaluation envs in the workers; returns complete, unbiased TrajInfos.

        Each eval env runs its quota of episodes (see ``BaseEvalCollector``) within
        ``eval_max_steps // eval_n_envs`` steps; the selection is made over all envs together.
        """
        if self.eval_n_envs <= 0:
            raise RuntimeError("evaluate_agent needs eval_n_envs > 0 in the sampler.")
        workers = self._running()
        self.ctrl.itr.value = int(itr)
        self.ctrl.do_eval.value = True
        self.ctrl.stop_eval.value = False
        with self._shutdown_on_error():
            workers.release_all()
            self._serve_evaluation(itr)
            reports = workers.gather("eval")
        self.ctrl.do_eval.value = False
        return select_unbiased([per_env for report in reports for per_env in report])

    def _serve_evaluation(self, itr: int) -> None:
        """GPU samplers compute the evaluation actions here."""

    # -- exact resume -------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """State for exact resume (see :mod:`rlpyt.samplers.state`).

        ``workers``: every worker's collector state, in rank order; ``sampling_noise``: the
        master agent's noise generator (GPU samplers). Runs between batches, like every
        sampler call. Envs that cannot be pickled are left out with a warning; a resumed run
        then restarts them and is no longer exact.
        """
        group = self._running()
        with self._shutdown_on_error():
            self.ctrl.state_op.value = GET_STATE
            group.release_all()
            workers = group.gather("state")
            self.ctrl.state_op.value = NO_STATE_OP
        errors = sorted({s["envs_error"] for s in workers if "envs_error" in s})
        if errors:
            warnings.warn(
                f"Envs cannot be pickled ({'; '.join(errors)}); resume will not be exact.",
                stacklevel=2,
            )
        state: dict = {"workers": workers}
        noise = self.agent.distribution
        if isinstance(noise, SamplingNoise):
            state["sampling_noise"] = noise.state_dict()
        return state

    def load_state_dict(self, state: dict) -> None:
        """Hand each worker its saved collector state (call after ``initialize``).

        Raises:
            ValueError: the snapshot comes from a sampler with another number of workers.
        """
        workers = state.get("workers")
        if workers is None:  # a snapshot without sampler state: workers keep their start
            return
        if len(workers) != self.n_worker:
            raise ValueError(
                f"The snapshot's sampler had {len(workers)} workers, this one has "
                f"{self.n_worker}: resume with the same number of workers (affinity "
                "workers_cpus) for an exact continuation."
            )
        group = self._running()
        with self._shutdown_on_error():
            for state_queue, worker_state in zip(group.state_queues, workers, strict=True):
                state_queue.put(worker_state)
            self.ctrl.state_op.value = SET_STATE
            group.release_all()
            group.gather("state_loaded")
            self.ctrl.state_op.value = NO_STATE_OP
        noise = self.agent.distribution
        if isinstance(noise, SamplingNoise) and "sampling_noise" in state:
            noise.load_state_dict(state["sampling_noise"])

    @contextlib.contextmanager
    def _shutdown_on_error(self) -> Iterator[None]:
        """Shut down on any exception, then let it go on.

        An exception mid-protocol (a worker error, Ctrl-C) leaves the workers out of step.
        """
        try:
            yield
        except BaseException:
            self.shutdown()
            raise

    def _running(self) -> WorkerGroup:
        """The worker group; raises RuntimeError if shut down or never initialized."""
        if self.workers is None or self._shut_down:
            raise RuntimeError("The sampler is shut down (or was never initialized).")
        return self.workers

    # -- shut-down ----------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stop and join every worker; release queues and semaphores. Idempotent.

        Also registered with ``atexit`` at start-up, so it runs on a normal exit too.
        """
        if self._shut_down:
            return
        self._shut_down = True
        atexit.unregister(self.shutdown)
        if self.workers is not None:
            self.workers.stop()
        # Drop the semaphores so that named ones (spawn/forkserver) are unlinked right away.
        self.syncs, self.ctrl = [], AttrDict()
        if self.workers is not None:
            self.workers.start_semaphores, self.workers.wake_on_stop = [], []
        gc.collect()


def default_start_method() -> str:
    """The default start method: fork where available (Linux), else the platform default."""
    if sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods():
        return "fork"
    return mp.get_start_method(allow_none=False)


def split_ranks(ranks: list[int], n_worker: int) -> list[list[int]]:
    """Contiguous blocks of ``ranks``, as even as possible (the first ones get the extras)."""
    n, extra = divmod(len(ranks), n_worker)
    blocks, start = [], 0
    for w in range(n_worker):
        size = n + (1 if w < extra else 0)
        blocks.append(ranks[start : start + size])
        start += size
    return blocks
