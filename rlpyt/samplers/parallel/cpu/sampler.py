"""CpuSampler: each worker steps its envs with its own agent copy over shared parameters.

The master initializes the agent with ``share_memory=True`` before starting the workers, so
every worker's model reads the parameters the master trains (or, when training on a GPU, the
CPU copy that ``agent.sync_shared_memory()`` refreshes before every batch and evaluation).
A worker runs ``batch_T`` steps of its whole block of envs between two synchronizations with
the master, which is why it pays off even for cheap envs: the master and workers meet once per
batch, not once per step.
"""

from __future__ import annotations

from typing import Any

from rlpyt.samplers.parallel.base import ParallelSamplerBase
from rlpyt.samplers.parallel.cpu.collectors import CpuEvalCollector, CpuResetCollector


class CpuSampler(ParallelSamplerBase):
    """Parallel sampler with the agent in every worker (arguments: see ParallelSamplerBase).

    Defaults: ``CollectorCls=CpuResetCollector``, ``eval_CollectorCls=CpuEvalCollector``.
    """

    def __init__(
        self,
        *args: Any,
        CollectorCls: Any = CpuResetCollector,  # noqa: N803
        eval_CollectorCls: Any = CpuEvalCollector,  # noqa: N803
        **kwargs: Any,
    ):
        super().__init__(
            *args, CollectorCls=CollectorCls, eval_CollectorCls=eval_CollectorCls, **kwargs
        )

    def _agent_init(self, agent: Any, env: Any, global_B: int, env_ranks: list[int]) -> None:  # noqa: N803
        agent.initialize(env.spaces, share_memory=True, global_B=global_B, env_ranks=env_ranks)

    def _worker_agent(self) -> Any:
        return self.agent

    def obtain_samples(self, itr: int) -> tuple[Any, list]:
        """Refresh the shared parameters, then sample (see ParallelSamplerBase)."""
        self.agent.sync_shared_memory()
        return super().obtain_samples(itr)

    def evaluate_agent(self, itr: int) -> list:
        """Refresh the shared parameters, then evaluate (see ParallelSamplerBase)."""
        self.agent.sync_shared_memory()
        return super().evaluate_agent(itr)
