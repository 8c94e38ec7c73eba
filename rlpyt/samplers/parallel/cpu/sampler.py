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

from typing import TYPE_CHECKING

from rlpyt.samplers.collections import Samples, TrajInfo
from rlpyt.samplers.parallel.base import ParallelSamplerBase
from rlpyt.samplers.parallel.cpu.collectors import CpuEvalCollector, CpuResetCollector
from rlpyt.utils.hyperparams import hyperparam

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent


class CpuSampler(ParallelSamplerBase):
    """Parallel sampler with the agent in every worker."""

    CollectorCls = hyperparam(CpuResetCollector)
    eval_CollectorCls = hyperparam(CpuEvalCollector)

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
