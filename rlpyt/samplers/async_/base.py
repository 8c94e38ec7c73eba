"""AsyncSamplerMixin: the asynchronous samplers' two-step start and double-buffered batches.

Box: Sampler. Used only by :class:`~rlpyt.runners.async_rl.AsyncRl`, in two processes:

1. In the runner's master, before any process starts, :meth:`AsyncSamplerMixin.async_initialize`
   builds one throwaway env, initializes the agent with its model in shared memory (the
   optimizer publishes weights there) and allocates the *double buffer*: two full ``[T, B]``
   samples buffers in shared memory, one for the batch being sampled, one for the batch a
   memory copier is reading into the replay.
2. In the sampler process the runner forks, ``initialize(affinity)`` builds the envs and
   collectors (and the worker processes of the parallel samplers), then
   ``obtain_samples(itr, db_idx)`` fills half ``db_idx`` and ``evaluate_agent(itr)`` runs the
   evaluation envs, each after pulling the newest published weights
   (``agent.recv_shared_memory()``).

The classes form one chain per family: :class:`AsyncSamplerMixin` extends
:class:`~rlpyt.samplers.base.BaseSampler` (its keywords and checks) with the asynchronous
interface; :class:`~rlpyt.samplers.async_.serial_sampler.AsyncSerialSampler` adds
SerialSampler's sampling, and :class:`AsyncParallelSamplerMixin` that of
:class:`~rlpyt.samplers.parallel.base.ParallelSamplerBase`. The collectors pick the half from
the shared ``db_idx`` (:mod:`rlpyt.samplers.async_.collectors`). Everything stays on CPU unless
the affinity gives the sampler a ``cuda_idx``.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
from typing import TYPE_CHECKING, Any, cast

from rlpyt.envs.traj_info import TrajInfoFactory
from rlpyt.protocols import SharedMemoryAgent
from rlpyt.samplers.base import BaseSampler
from rlpyt.samplers.buffer import build_samples_buffer
from rlpyt.samplers.parallel.base import ParallelSamplerBase
from rlpyt.samplers.vector import make_example_env
from rlpyt.utils.launching.affinity import set_cpu_affinity, validate_affinity
from rlpyt.utils.launching.threads import decide_torch_threads, set_torch_threads

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent
    from rlpyt.samplers.collections import Samples, TrajInfo
    from rlpyt.samplers.parallel.worker_group import WorkerGroup
    from rlpyt.utils.collections import AttrDict


class AsyncSamplerMixin(BaseSampler):
    """The master-side start and the double-buffered batch of every asynchronous sampler.

    BaseSampler's keywords and checks, with the asynchronous runner's interface
    (:class:`rlpyt.protocols.AsyncSampler`) in place of the synchronous one: ``initialize``
    takes the sampler process's affinity, ``obtain_samples`` the half to fill. Each family
    (AsyncSerialSampler, :class:`AsyncParallelSamplerMixin`) implements those two, and
    :meth:`_build_first_half`, with its synchronous twin's sampling; they override the
    synchronous signatures, so an asynchronous sampler is not used where a BaseSampler is
    expected (AsyncRl takes an ``AsyncSampler``).
    """

    seed: int | None
    double_buffer: tuple[Samples, Samples]  # [T, B] numpy, in shared memory
    double_buffer_pyt: tuple[Samples, Samples]  # torch views of the same memory
    samples_np: Samples  # the half being written
    samples_pyt: Samples  # torch views of it
    traj_info_factory: TrajInfoFactory

    def busy_processes(self, affinity: dict) -> int:
        """Processes that keep a CPU busy while this sampler samples: its own (it steps envs).

        The optimizer's thread decision subtracts them from the CPUs it shares with them.
        """
        return 1

    def async_initialize(
        self,
        agent: Agent,
        bootstrap_value: bool = False,
        traj_info_kwargs: dict | None = None,
        seed: int | None = None,
    ) -> tuple[tuple[Samples, Samples], AttrDict]:
        """In the master: initialize the agent in shared memory, allocate the double buffer.

        Args:
            agent: The agent (a :class:`rlpyt.protocols.SharedMemoryAgent`, as every
                ``BaseAgent``); its model goes to shared memory (``share_memory=True``).
            bootstrap_value: Record ``agent.bootstrap_value [1, B]``.
            traj_info_kwargs: Keywords of every TrajInfo (e.g. ``discount``).
            seed: Env ``i`` gets ``seed + i``; None: unseeded.

        Returns:
            ``(double_buffer, examples)``: the two halves (torch views of the shared ``[T, B]``
            numpy buffers) and the example step, for ``algo.async_initialize``.

        Raises:
            TypeError: the agent cannot share its model (it lacks ``recv_shared_memory`` ...).
        """
        if not isinstance(agent, SharedMemoryAgent):
            raise TypeError(
                f"{type(self).__name__} needs an agent that shares its model between processes "
                f"(async_cpu, send_shared_memory, recv_shared_memory: a BaseAgent); got "
                f"{type(agent).__name__}."
            )
        self.seed = seed
        B = self.batch_spec.B
        self.global_B = B
        env = make_example_env(self.EnvCls, self.env_kwargs)
        try:
            agent.initialize(env.spaces, share_memory=True, global_B=B, env_ranks=list(range(B)))
            examples = self._build_first_half(agent, env, bootstrap_value)
            second_pyt, second_np, _ = build_samples_buffer(
                agent, env, self.batch_spec, bootstrap_value, True, True, examples=examples
            )
        finally:
            env.close()
        self.double_buffer = (self.samples_np, second_np)
        self.double_buffer_pyt = (self.samples_pyt, second_pyt)
        self.db_idx = mp.RawValue(ctypes.c_int, 0)  # the half being written; collectors read it
        self.agent: Agent = agent
        self.traj_info_factory = TrajInfoFactory(self.TrajInfoCls, **(traj_info_kwargs or {}))
        return self.double_buffer_pyt, examples

    def _build_first_half(self, agent: Agent, env: Env, bootstrap_value: bool) -> AttrDict:
        """Check that shared memory has room, allocate half 0 (``samples_np``, ``samples_pyt``).

        Returns:
            The example step (as ``build_samples_buffer`` returns it).
        """
        raise NotImplementedError

    def _refuse_synchronous_call(self, args: tuple, kwargs: dict) -> None:
        """Raise if ``initialize`` got the synchronous samplers' arguments."""
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.initialize(affinity) runs in AsyncRl's sampler process; "
                "the agent was initialized by async_initialize. Use it with AsyncRl runners."
            )

    def _shared_agent(self) -> SharedMemoryAgent:
        """The agent, which ``async_initialize`` checked is a ``SharedMemoryAgent``."""
        return cast(SharedMemoryAgent, self.agent)

    def _select_half(self, itr: int, db_idx: int) -> None:
        """Pull the newest weights, then point ``samples_np`` and the collectors at ``db_idx``."""
        self._shared_agent().recv_shared_memory()
        self.agent.sample_mode(itr)
        self.db_idx.value = int(db_idx)
        self.samples_np = self.double_buffer[db_idx]
        self.samples_pyt = self.double_buffer_pyt[db_idx]

    def _prepare_evaluation(self, itr: int) -> None:
        """Pull the newest weights, then switch the agent to evaluation."""
        self._shared_agent().recv_shared_memory()
        self.agent.eval_mode(itr)

    def state_dict(self) -> dict:
        """Nothing: the envs live in the sampler process.

        A resumed asynchronous run restarts its envs (asynchronous sampling is not
        reproducible step for step in any case); counters, weights and replay resume exactly.
        """
        return {}

    def load_state_dict(self, state: dict) -> None:
        """Nothing to load (see :meth:`state_dict`)."""


def pin_sampler_process(affinity: dict) -> None:
    """Pin the sampler process to ``master_cpus`` (if asked) and set its torch threads."""
    cpus = affinity.get("master_cpus")
    if cpus and affinity.get("set_affinity", True):
        set_cpu_affinity(cpus)
    # The sampler process only runs the agent's forward passes; more threads contend with
    # the optimizer and the workers.
    requested = affinity.get("master_torch_threads") or 1
    set_torch_threads(decide_torch_threads(requested=requested, cpus=cpus or None))


class AsyncParallelSamplerMixin(AsyncSamplerMixin, ParallelSamplerBase):
    """The parallel asynchronous samplers: ParallelSamplerBase's workers, double-buffered.

    The workers it starts get both halves of the double buffer (their column block of each)
    and ``db_idx`` in their ``sync``. Subclasses say how the sampler process's agent gets its
    model (:meth:`_prepare_sampler_agent`).
    """

    def initialize(self, affinity: dict | None = None, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """In the sampler process: pin it, prepare the agent, start the workers.

        Args:
            affinity: The sampler's affinity (``master_cpus``, ``workers_cpus``, ``cuda_idx``,
                ``set_affinity``, ...), e.g. ``make_affinity(..., async_sample=True).sampler``.
            *args: Refused: the synchronous samplers' ``initialize(agent, ...)`` arguments.
            **kwargs: Refused, likewise.
        """
        self._refuse_synchronous_call(args, kwargs)
        self._check_agent(self.agent, affinity)
        self.affinity = dict(affinity or {})
        validate_affinity(self.affinity)
        pin_sampler_process(self.affinity)
        self.affinity = self._sampler_affinity(self.affinity)
        self.n_worker = self._get_n_worker(self.affinity)
        self._layout(list(range(self.batch_spec.B)))
        self._prepare_sampler_agent(self._shared_agent())
        self._start_workers()
        self._prepare_master_agent(self.agent)

    def obtain_samples(self, itr: int, db_idx: int = 0) -> list[TrajInfo]:  # type: ignore[override]
        """In the sampler process: pull new weights, have the workers fill half ``db_idx``.

        Returns:
            The TrajInfos completed during the batch (worker by worker).
        """
        self._select_half(itr, db_idx)
        _, traj_infos = super().obtain_samples(itr)
        return traj_infos

    def evaluate_agent(self, itr: int) -> list[TrajInfo]:
        """In the sampler process: pull new weights, run the evaluation envs in the workers."""
        self._prepare_evaluation(itr)
        return super().evaluate_agent(itr)

    def busy_processes(self, affinity: dict) -> int:
        """The workers, which step envs while the sampler process mostly waits for them."""
        return int(self._get_n_worker(self._sampler_affinity(dict(affinity))))

    def _prepare_sampler_agent(self, agent: SharedMemoryAgent) -> None:
        """Give the sampler process's agent the model it samples with (before workers start)."""
        raise NotImplementedError

    def _build_first_half(self, agent: Agent, env: Env, bootstrap_value: bool) -> AttrDict:
        return self._build_buffers(agent, env, bootstrap_value)

    def _shared_rows(self) -> int:
        """The synchronous sampler's shared rows, plus the double buffer's second half."""
        T, B = self.batch_spec
        return super()._shared_rows() + (T + 1) * B

    def _build_parallel_ctrl(self, ctx: BaseContext, workers: WorkerGroup) -> None:
        super()._build_parallel_ctrl(ctx, workers)
        for sync in self.syncs:
            sync.db_idx = self.db_idx

    def _add_worker_buffers(self, kwargs: dict, w: int, block: slice) -> dict:
        kwargs = super()._add_worker_buffers(kwargs, w, block)
        kwargs["samples_np"] = tuple(half[:, block] for half in self.double_buffer)
        return kwargs
