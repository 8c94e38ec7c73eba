"""GpuSampler: workers only step envs; the master runs one batched agent step for all envs.

The agent stays in the master (on the GPU when the runner's affinity has ``cuda_idx``, else on
the CPU, which is often the faster choice for small models too) and is never copied to the
workers. Workers and master exchange observations and actions through a shared ``[B]`` step
buffer, one ``obs_ready``/``act_ready`` semaphore pair per worker (see ``action_server.py``).
"""

from __future__ import annotations

import os
from typing import Any

from rlpyt.samplers.buffer import build_step_buffer
from rlpyt.samplers.collectors import install_sampling_noise
from rlpyt.samplers.parallel.base import ParallelSamplerBase
from rlpyt.samplers.parallel.gpu.action_server import ActionServer
from rlpyt.samplers.parallel.gpu.collectors import GpuEvalCollector, GpuResetCollector
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.shared_memory import np_mp_array


class GpuSamplerBase(ParallelSamplerBase):
    """Parallel sampler whose agent runs in the master (arguments: see ParallelSamplerBase).

    Defaults: ``CollectorCls=GpuResetCollector``, ``eval_CollectorCls=GpuEvalCollector``.
    """

    gpu = True

    def __init__(
        self,
        *args: Any,
        CollectorCls: Any = GpuResetCollector,  # noqa: N803
        eval_CollectorCls: Any = GpuEvalCollector,  # noqa: N803
        **kwargs: Any,
    ):
        super().__init__(
            *args, CollectorCls=CollectorCls, eval_CollectorCls=eval_CollectorCls, **kwargs
        )

    def initialize(self, agent: Any, *args: Any, **kwargs: Any) -> Any:
        """As ParallelSamplerBase.initialize; then prepares the master's agent for serving."""
        examples = super().initialize(agent, *args, **kwargs)
        env_ranks = [r for ranks in self.worker_env_ranks for r in ranks]
        agent.collector_initialize(global_B=self.global_B, env_ranks=env_ranks)
        if self.seed is not None and not self.alternating:
            install_sampling_noise(agent, self.seed, self.global_B, env_ranks)
        agent.reset()
        agent.sample_mode(itr=0)  # as CPU collectors leave their agents
        return examples

    def _agent_init(self, agent: Any, env: Any, global_B: int, env_ranks: list[int]) -> None:  # noqa: N803
        agent.initialize(env.spaces, share_memory=False, global_B=global_B, env_ranks=env_ranks)

    def _build_buffers(self, agent: Any, env: Any, bootstrap_value: bool) -> Any:
        examples = super()._build_buffers(agent, env, bootstrap_value)
        self.step_buffer_np, self.step_buffer_pyt = build_step_buffer(examples, self.batch_spec.B)
        if self.eval_n_envs > 0:
            self.eval_step_buffer_np, self.eval_step_buffer_pyt = build_step_buffer(
                examples, self.eval_n_envs
            )
            self.eval_active = np_mp_array(self.eval_n_envs, bool)
        return examples

    def _extra_nbytes(self, per_env_step: int) -> int:
        return per_env_step * (self.batch_spec.B + self.eval_n_envs)

    def _build_parallel_ctrl(self, ctx: Any) -> None:
        super()._build_parallel_ctrl(ctx)
        for sync in self.syncs:
            sync.update(
                obs_ready=ctx.Semaphore(0),
                act_ready=ctx.Semaphore(0),
                eval_obs_ready=ctx.Semaphore(0),
                eval_act_ready=ctx.Semaphore(0),
                quit=self.ctrl.quit,
                stop_eval=self.ctrl.stop_eval,
                parent_pid=os.getpid(),
            )
            # A worker blocked on these when the master stops must wake up to see `quit`.
            self.workers.wake_on_stop += [sync.act_ready, sync.eval_act_ready]

    def _add_worker_buffers(self, kwargs: dict, w: int, block: slice) -> dict:
        kwargs["step_buffer_np"] = self.step_buffer_np[block]
        eval_ranks = self.worker_eval_ranks[w]
        if eval_ranks:
            eval_block = slice(eval_ranks[0], eval_ranks[-1] + 1)
            kwargs["eval_step_buffer_np"] = self.eval_step_buffer_np[eval_block]
            kwargs["sync"] = AttrDict(kwargs["sync"], eval_active=self.eval_active[eval_block])
        return kwargs


class GpuSampler(ActionServer, GpuSamplerBase):
    """Parallel sampler with the agent in the master, one batched forward per time step.

    Arguments: see ParallelSamplerBase (collectors: GpuResetCollector / GpuWaitResetCollector,
    GpuEvalCollector).
    """

    def _serve_batch(self, itr: int) -> None:
        self.serve_actions(itr)

    def _serve_evaluation(self, itr: int) -> None:
        self.serve_actions_evaluation(itr)
