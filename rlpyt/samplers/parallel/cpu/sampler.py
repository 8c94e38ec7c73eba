"""CpuSampler: each worker steps its envs with its own agent copy over shared parameters.

Box: Sampler (master side); the runner calls it like every sampler. The master initializes the
agent with ``share_memory=True`` before starting the workers, so every worker's model reads the
parameters the master trains (or, when training on a GPU, the CPU copy that
``agent.sync_shared_memory()`` refreshes before every batch and evaluation). A worker runs
``batch_T`` steps of its whole block of envs between two synchronizations with the master (it
acquires its ``start`` semaphore, the master releases it), which is why it pays off even for
cheap envs: the master and workers meet once per batch, not once per step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rlpyt.samplers.collections import Samples, TrajInfo
from rlpyt.samplers.parallel.base import ParallelSamplerBase
from rlpyt.samplers.parallel.cpu.collectors import CpuEvalCollector, CpuResetCollector

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent
    from rlpyt.samplers.base import CollectorClass, EvalCollectorClass


class CpuSampler(ParallelSamplerBase):
    """Parallel sampler with the agent in every worker (arguments: see ParallelSamplerBase).

    Defaults: ``CollectorCls=CpuResetCollector``, ``eval_CollectorCls=CpuEvalCollector``.
    """

    def __init__(
        self,
        EnvCls: Callable[..., Env],  # noqa: N803
        env_kwargs: dict,
        batch_T: int,  # noqa: N803
        batch_B: int,  # noqa: N803
        CollectorCls: CollectorClass = CpuResetCollector,  # noqa: N803
        max_decorrelation_steps: int = 100,
        TrajInfoCls: type[TrajInfo] = TrajInfo,  # noqa: N803
        eval_n_envs: int = 0,
        eval_CollectorCls: EvalCollectorClass | None = CpuEvalCollector,  # noqa: N803
        eval_env_kwargs: dict | None = None,
        eval_max_steps: int | None = None,
        eval_max_trajectories: int | None = None,
        *,
        start_method: str | None = None,
        worker_timeout: float = 600.0,
    ):
        super().__init__(
            EnvCls=EnvCls,
            env_kwargs=env_kwargs,
            batch_T=batch_T,
            batch_B=batch_B,
            CollectorCls=CollectorCls,
            max_decorrelation_steps=max_decorrelation_steps,
            TrajInfoCls=TrajInfoCls,
            eval_n_envs=eval_n_envs,
            eval_CollectorCls=eval_CollectorCls,
            eval_env_kwargs=eval_env_kwargs,
            eval_max_steps=eval_max_steps,
            eval_max_trajectories=eval_max_trajectories,
            start_method=start_method,
            worker_timeout=worker_timeout,
        )

    def _agent_init(self, agent: Agent, env: Env, global_B: int, env_ranks: list[int]) -> None:  # noqa: N803
        agent.initialize(env.spaces, share_memory=True, global_B=global_B, env_ranks=env_ranks)

    def _worker_agent(self) -> Agent:
        return self.agent

    def obtain_samples(self, itr: int) -> tuple[Samples, list[TrajInfo]]:
        """Refresh the shared parameters, then sample (see ParallelSamplerBase)."""
        self.agent.sync_shared_memory()
        return super().obtain_samples(itr)

    def evaluate_agent(self, itr: int) -> list[TrajInfo]:
        """Refresh the shared parameters, then evaluate (see ParallelSamplerBase)."""
        self.agent.sync_shared_memory()
        return super().evaluate_agent(itr)
