"""AsyncSerialSampler: AsyncRl's sampler process steps every env and the agent itself.

Box: Sampler. The asynchronous twin of :class:`~rlpyt.samplers.serial.sampler.SerialSampler`
(same envs, seeding, collectors and evaluation), writing into the double buffer
(:mod:`rlpyt.samplers.async_.base`). The sampler process keeps a model of its own (on CPU
unless the sampler affinity has a ``cuda_idx``) and copies the optimizer's published weights
into it before every batch and evaluation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlpyt.samplers.async_.base import AsyncSamplerMixin, pin_sampler_process
from rlpyt.samplers.async_.collectors import DbCpuResetCollector
from rlpyt.samplers.buffer import build_samples_buffer, get_example_outputs
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.samplers.vector import collector_class, make_envs
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.hyperparams import hyperparam
from rlpyt.utils.shared_memory import check_shared_memory, nbytes_of

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent
    from rlpyt.samplers.collections import TrajInfo


class AsyncSerialSampler(AsyncSamplerMixin, SerialSampler):
    """Serial sampling in AsyncRl's sampler process."""

    CollectorCls = hyperparam(DbCpuResetCollector)

    def initialize(self, affinity: dict | None = None, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """In the sampler process: pin it, give the agent its own model, build envs/collectors.

        Args:
            affinity: ``master_cpus``, ``set_affinity``, ``master_torch_threads`` and
                ``cuda_idx`` (the sampler's model on that GPU; None: CPU).
            *args: Refused: the synchronous samplers' ``initialize(agent, ...)`` arguments.
            **kwargs: Refused, likewise.
        """
        self._refuse_synchronous_call(args, kwargs)
        affinity = dict(affinity or {})
        pin_sampler_process(affinity)
        agent, B = self._shared_agent(), self.batch_spec.B
        agent.to_device(affinity.get("cuda_idx"))
        agent.async_cpu(share_memory=False)  # a model apart from the one the optimizer publishes
        self.envs = make_envs(self.EnvCls, self.env_kwargs, B, self.seed)
        self.collector = collector_class(self.CollectorCls, self.envs)(
            rank=0,
            envs=self.envs,
            samples_np=self.double_buffer,
            batch_T=self.batch_spec.T,
            TrajInfoCls=self.traj_info_factory,
            agent=agent,
            sync=AttrDict(db_idx=self.db_idx),
            global_B=B,
            env_ranks=list(range(B)),
            seed=self.seed,
        )
        if self.eval_n_envs > 0:
            self._initialize_eval(agent, self.seed)
        self.agent_inputs, self.traj_infos = self.collector.start_envs(self.max_decorrelation_steps)
        self.collector.start_agent()

    def obtain_samples(self, itr: int, db_idx: int = 0) -> list[TrajInfo]:  # type: ignore[override]
        """In the sampler process: pull new weights, collect one batch into half ``db_idx``.

        Returns:
            The TrajInfos completed during the batch.
        """
        self._select_half(itr, db_idx)
        _, traj_infos = super().obtain_samples(itr)
        return traj_infos

    def evaluate_agent(self, itr: int) -> list[TrajInfo]:
        """In the sampler process: pull new weights, run the evaluation collector."""
        self._prepare_evaluation(itr)
        return super().evaluate_agent(itr)

    def _build_first_half(self, agent: Agent, env: Env, bootstrap_value: bool) -> AttrDict:
        """Check /dev/shm has room for both halves, then allocate half 0 in shared memory."""
        examples = get_example_outputs(agent, env)
        T, B = self.batch_spec
        check_shared_memory(2 * nbytes_of(examples) * (T + 1) * B)
        self.samples_pyt, self.samples_np, examples = build_samples_buffer(
            agent, env, self.batch_spec, bootstrap_value, True, True, examples=examples
        )
        return examples
