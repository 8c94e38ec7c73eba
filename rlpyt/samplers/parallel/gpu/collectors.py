"""Collectors of GPU-style samplers: workers step envs, the master's action server picks actions.

A worker and the action server talk through the worker's block of the shared ``[B]`` step
buffer and two semaphores per worker (see ``action_server.py``). Per time step ``t``:

1. worker: the step buffer holds the observation, the previous action and reward (the agent
   inputs) and ``done`` of the previous step; release ``obs_ready``;
2. master: acquire every ``obs_ready``, run the agent once over all envs, write the action into
   the step buffer and the agent fields of ``samples_np[t]``, release every ``act_ready``;
3. worker: acquire ``act_ready``, step its envs with the actions, record env fields, go to 1.

After the last step the worker publishes the final observation once more (``obs_ready``) so
the master can compute the bootstrap value and reset recurrent states; the master's last
``act_ready`` says it is done reading, and the worker reports the batch.
The step buffer is the collector's carried agent inputs, so nothing is copied between them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlpyt.agents.base import AgentInputs
from rlpyt.samplers.collectors import (
    BaseEvalCollector,
    DecorrelatingStartCollector,
    step_envs,
    step_envs_waiting,
    trajectory_ended,
)
from rlpyt.samplers.parallel.cpu.collectors import write_env_infos
from rlpyt.samplers.parallel.worker import wait_for_master


class GpuResetCollector(DecorrelatingStartCollector):
    """Steps envs with actions from the action server; resets envs mid-batch on ``traj_done``."""

    mid_batch_reset = True

    def start_envs(self, max_decorrelation_steps: int = 0) -> tuple[Any, list]:
        """Reset and decorrelate; the agent inputs then live in the step buffer."""
        agent_inputs, traj_infos = super().start_envs(max_decorrelation_steps)
        step = self.step_buffer_np
        step.observation[:] = agent_inputs.observation
        step.action[:] = agent_inputs.prev_action
        step.reward[:] = agent_inputs.prev_reward
        step.done[:] = False
        return AgentInputs(step.observation, step.action, step.reward), traj_infos

    def collect_batch(self, agent_inputs: Any, traj_infos: list, itr: int) -> tuple:
        """Fill this worker's ``[T, B_local]`` columns, one server round trip per step.

        Returns:
            ``(agent_inputs, traj_infos, completed_traj_infos)``.
        """
        agent_buf, env_buf = self.samples_np.agent, self.samples_np.env
        step = self.step_buffer_np
        agent_buf.prev_action[0] = step.action
        env_buf.prev_reward[0] = step.reward
        completed: list = []
        for t in range(self.batch_T):
            env_buf.observation[t] = step.observation
            self._exchange()
            self._step_envs(t, traj_infos, completed)
        # Final observation, for the bootstrap value and rnn resets; the server's release
        # says it has read the step buffer, so resets between batches may change it.
        self._exchange()
        return agent_inputs, traj_infos, completed

    def _exchange(self) -> None:
        """Hand the observations to the action server and wait for its actions."""
        self.sync.obs_ready.release()
        wait_for_master(self.sync.act_ready, self.sync.quit, self.sync.parent_pid)

    def _step_envs(self, t: int, traj_infos: list, completed: list) -> None:
        env_buf, step = self.samples_np.env, self.step_buffer_np
        agent_info = self.samples_np.agent.agent_info[t]
        observation, action, reward, done = step.observation, step.action, step.reward, step.done
        env_infos = step_envs(
            self, action, observation, reward, done, agent_info, traj_infos, completed
        )
        write_env_infos(env_buf.env_info, t, env_infos)
        env_buf.reward[t] = reward
        env_buf.done[t] = done


class GpuWaitResetCollector(GpuResetCollector):
    """Like GpuResetCollector, but an env that is ``done`` waits for the next batch.

    As ``CpuWaitResetCollector``: after ``done`` the column records the null action, zero
    reward, ``done=True`` and the last observation, and the env is not stepped; envs are reset
    between batches (``reset_if_needed``), restarting with null prev action and zero prev
    reward. The action server resets recurrent states of such envs after the batch.
    """

    mid_batch_reset = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.need_reset = np.zeros(len(self.envs), dtype=bool)
        self.need_env_reset = np.zeros(len(self.envs), dtype=bool)
        self.null_action = None

    def reset_if_needed(self, agent_inputs: Any) -> None:
        """Reset the envs that finished in the last batch (between batches)."""
        if self.null_action is None:
            self.null_action = self.envs[0].action_space.null_value()
        step = self.step_buffer_np
        for b in np.flatnonzero(self.need_reset):
            if self.need_env_reset[b]:
                step.observation[b] = self.envs[b].reset()
            step.action[b] = self.null_action
            step.reward[b] = 0
            step.done[b] = False
        self.need_reset[:] = False
        self.need_env_reset[:] = False

    def collect_batch(self, agent_inputs: Any, traj_infos: list, itr: int) -> tuple:
        """Fill this worker's columns (see GpuResetCollector.collect_batch)."""
        self.reset_if_needed(agent_inputs)
        return super().collect_batch(agent_inputs, traj_infos, itr)

    def _step_envs(self, t: int, traj_infos: list, completed: list) -> None:
        agent_buf, env_buf, step = self.samples_np.agent, self.samples_np.env, self.step_buffer_np
        agent_info = agent_buf.agent_info[t]
        observation, action, reward, done = step.observation, step.action, step.reward, step.done
        env_infos = step_envs_waiting(
            self, action, observation, reward, done, agent_info, traj_infos, completed
        )
        write_env_infos(env_buf.env_info, t, env_infos)
        agent_buf.action[t] = action
        env_buf.reward[t] = reward
        env_buf.done[t] = done


class GpuEvalCollector(BaseEvalCollector):
    """Evaluation episodes with actions from the action server (eval step buffer block).

    Every step the worker publishes its eval envs' observations and waits for the actions,
    until the server sets ``stop_eval`` (no env active anywhere) or ``max_T`` steps ran. Each
    env stops at its quota of episodes (``eval_active`` turns False); the agent inputs follow
    the training rule (previous action and reward carry over episode boundaries).
    """

    def collect_per_env(self, itr: int) -> list[list]:
        """Run evaluation episodes; returns each env's complete TrajInfos."""
        step, active = self.step_buffer_np, self.sync.eval_active
        quota = self.quota()
        traj_infos = [self.TrajInfoCls() for _ in self.envs]
        done_per_env: list[list] = [[] for _ in self.envs]
        for b, env in enumerate(self.envs):
            step.observation[b] = env.reset()
        step.action[:] = self.envs[0].action_space.null_value()
        step.reward[:] = 0
        step.done[:] = False
        active[:] = True
        for _ in range(self.max_T):
            self.sync.eval_obs_ready.release()
            wait_for_master(self.sync.eval_act_ready, self.sync.quit, self.sync.parent_pid)
            if self.sync.stop_eval.value:
                break
            for b in np.flatnonzero(active).tolist():
                self._step_env(b, traj_infos, done_per_env, quota)
        return done_per_env

    def _step_env(self, b: int, traj_infos: list, done_per_env: list, quota: int | None) -> None:
        step, env = self.step_buffer_np, self.envs[b]
        o, r, d, env_info = env.step(step.action[b])
        traj_infos[b].step(step.observation[b], step.action[b], r, d, None, env_info)
        if trajectory_ended(env_info, d):
            done_per_env[b].append(traj_infos[b].terminate(o))
            traj_infos[b] = self.TrajInfoCls()
            o = env.reset()
            if quota is not None and len(done_per_env[b]) >= quota:
                self.sync.eval_active[b] = False
        step.observation[b] = o
        step.reward[b] = r
        step.done[b] = d
