"""GpuSampler: workers only step envs; the master runs one batched agent step for all envs.

Box: Sampler (master side). The runner calls it like every sampler. The agent stays in the
master (on the GPU when the runner's affinity has ``cuda_idx``, else on the CPU, which is often
the faster choice for small models too) and is never copied to the workers. Workers and master
exchange observations and actions through a shared ``[B]`` step buffer, one
``obs_ready``/``act_ready`` semaphore pair per worker: the worker releases ``obs_ready`` and the
master acquires it; the master releases ``act_ready`` and the worker acquires it (the full
protocol: ``action_server.py``). Evaluation uses a second pair, ``eval_obs_ready`` /
``eval_act_ready``, over its own ``[eval_n_envs]`` step buffer.
"""

from __future__ import annotations

import os
from multiprocessing.context import BaseContext
from typing import TYPE_CHECKING

from rlpyt.samplers.buffer import build_step_buffer
from rlpyt.samplers.noise import install_sampling_noise
from rlpyt.samplers.parallel.base import ParallelSamplerBase
from rlpyt.samplers.parallel.gpu.action_server import ActionServer
from rlpyt.samplers.parallel.gpu.collectors import GpuEvalCollector, GpuResetCollector
from rlpyt.samplers.parallel.worker_group import WorkerGroup
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.hyperparams import hyperparam
from rlpyt.utils.launching.affinity import master_core_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.shared_memory import np_mp_array

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent


class GpuSamplerBase(ParallelSamplerBase):
    """Parallel sampler whose agent runs in the master."""

    CollectorCls = hyperparam(GpuResetCollector)
    eval_CollectorCls = hyperparam(GpuEvalCollector)

    gpu = True

    def _sampler_affinity(self, affinity: dict) -> dict:
        """With ``cuda_idx``, the default worker layout leaves the master one core.

        See :func:`~rlpyt.utils.launching.affinity.master_core_affinity`: an explicit
        ``workers_cpus`` is used as given.
        """
        return master_core_affinity(affinity, allowed_cpus())

    def _prepare_master_agent(self, agent: Agent) -> None:
        """The master's agent steps every env: its noise rows, states and mode for serving."""
        env_ranks = [r for ranks in self.worker_env_ranks for r in ranks]
        agent.collector_initialize(global_B=self.global_B, env_ranks=env_ranks)
        if self.seed is not None and not self.alternating:
            install_sampling_noise(agent, self.seed, self.global_B, env_ranks)
        agent.reset()
        agent.sample_mode(itr=0)  # as CPU collectors leave their agents

    def _agent_init(self, agent: Agent, env: Env, global_B: int, env_ranks: list[int]) -> None:  # noqa: N803
        agent.initialize(env.spaces, share_memory=False, global_B=global_B, env_ranks=env_ranks)

    def _build_buffers(self, agent: Agent, env: Env, bootstrap_value: bool) -> AttrDict:
        examples = super()._build_buffers(agent, env, bootstrap_value)
        self.step_buffer_np, self.step_buffer_pyt = build_step_buffer(examples, self.batch_spec.B)
        if self.eval_n_envs > 0:
            self.eval_step_buffer_np, self.eval_step_buffer_pyt = build_step_buffer(
                examples, self.eval_n_envs
            )
            self.eval_active = np_mp_array(self.eval_n_envs, bool)  # [eval_n_envs]
        return examples

    def _shared_rows(self) -> int:
        """The samples buffer's rows plus the ``[B]`` and ``[eval_n_envs]`` step buffers'."""
        return super()._shared_rows() + self.batch_spec.B + self.eval_n_envs

    def _build_parallel_ctrl(self, ctx: BaseContext, workers: WorkerGroup) -> None:
        super()._build_parallel_ctrl(ctx, workers)
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
            workers.wake_on_stop += [sync.act_ready, sync.eval_act_ready]

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

    Training collectors: GpuResetCollector (the default) or GpuWaitResetCollector. The action
    server's ``_serve_batch`` / ``_serve_evaluation`` are the sampler's hooks; GpuSamplerBase
    allocates the step buffers and semaphores it serves through.
    """
