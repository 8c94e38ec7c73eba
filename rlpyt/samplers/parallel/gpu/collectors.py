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

Box: Collector (GPU worker side). These collectors need the worker's semaphores, so they stay
here; they import only shared modules of ``rlpyt/samplers`` and ``wait_for_master``. Their envs
step through the one episode step (``rlpyt.samplers.episode``); the wait-reset policy is
``rlpyt.samplers.collectors.WaitResetMixin``, as for the CPU collectors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rlpyt.agents.base import AgentInputs
from rlpyt.envs.traj_info import TrajInfo, TrajInfoRows
from rlpyt.samplers.collections import StepBuffer
from rlpyt.samplers.collectors import DecorrelatingStartCollector, WaitResetMixin
from rlpyt.samplers.episode import write_env_infos
from rlpyt.samplers.evaluation import BaseEvalCollector, evaluation_rng
from rlpyt.samplers.parallel.worker import wait_for_master

if TYPE_CHECKING:
    from rlpyt.utils.collections import AttrDict


class GpuResetCollector(DecorrelatingStartCollector):
    """Steps envs with actions from the action server; resets envs mid-batch on ``traj_done``.

    The action server resets the agent's recurrent state of envs that are ``done``.
    """

    mid_batch_reset = True
    sync: AttrDict
    step_buffer_np: StepBuffer  # [B_local] numpy, shared with the action server

    def start_envs(self, max_decorrelation_steps: int = 0) -> tuple[AgentInputs, TrajInfoRows]:
        """Reset and decorrelate; the agent inputs then live in the step buffer."""
        agent_inputs, traj_infos = super().start_envs(max_decorrelation_steps)
        step = self.step_buffer_np
        step.observation[:] = agent_inputs.observation
        step.action[:] = agent_inputs.prev_action
        step.reward[:] = agent_inputs.prev_reward
        step.done[:] = False
        return AgentInputs(step.observation, step.action, step.reward), traj_infos

    def collect_batch(
        self, agent_inputs: AgentInputs, traj_infos: TrajInfoRows, itr: int
    ) -> tuple[AgentInputs, TrajInfoRows, list[TrajInfo]]:
        """Fill this worker's ``[T, B_local]`` columns, one server round trip per step.

        Returns:
            ``(agent_inputs, traj_infos, completed_traj_infos)``.
        """
        agent_buf, env_buf = self.samples_np.agent, self.samples_np.env
        step = self.step_buffer_np
        agent_buf.prev_action[0] = step.action
        env_buf.prev_reward[0] = step.reward
        completed: list[TrajInfo] = []
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

    def _step_envs(self, t: int, traj_infos: TrajInfoRows, completed: list[TrajInfo]) -> None:
        """Step the envs with the server's actions; record the env fields of ``samples_np[t]``."""
        env_buf, step = self.samples_np.env, self.step_buffer_np
        agent_info = self.samples_np.agent.agent_info[t]
        env_infos = self.step_envs(
            step.action, step.observation, step.reward, step.done, agent_info, traj_infos, completed
        )
        write_env_infos(env_buf.env_info, t, env_infos)
        env_buf.reward[t] = step.reward
        env_buf.done[t] = step.done


class GpuWaitResetCollector(WaitResetMixin, GpuResetCollector):
    """Like GpuResetCollector, but an env that is ``done`` waits for the next batch.

    See :class:`~rlpyt.samplers.collectors.WaitResetMixin` for the rows a waiting env records
    and the restart between batches (here through the step buffer, whose ``done`` rows are
    cleared). The action server resets recurrent states of such envs after the batch.
    """

    mid_batch_reset = False

    def _step_envs(self, t: int, traj_infos: TrajInfoRows, completed: list[TrajInfo]) -> None:
        """As GpuResetCollector; the action row is written again (waiting envs: null action)."""
        super()._step_envs(t, traj_infos, completed)
        self.samples_np.agent.action[t] = self.step_buffer_np.action


class GpuEvalCollector(BaseEvalCollector):
    """Evaluation episodes with actions from the action server (eval step buffer block).

    Every step the worker publishes its eval envs' observations and waits for the actions,
    until the server sets ``stop_eval`` (no env active anywhere) or ``max_T`` steps ran. Each
    env stops at its quota of episodes (``eval_active`` turns False); the agent inputs follow
    the training rule (previous action and reward carry over episode boundaries).
    """

    sync: AttrDict
    step_buffer_np: StepBuffer  # [B_local eval envs] numpy, shared with the action server

    def collect_per_env(self, itr: int) -> list[list[TrajInfo]]:
        """Run evaluation episodes; returns each env's complete TrajInfos.

        The envs are seeded for ``itr`` first and any global draw of theirs comes from the
        generators reseeded for it (see :mod:`rlpyt.samplers.evaluation`).
        """
        with evaluation_rng(self.seed, itr, self.rank):
            return self._run_episodes(itr)

    def _run_episodes(self, itr: int) -> list[list[TrajInfo]]:
        step = self.step_buffer_np
        self.active = self.sync.eval_active  # shared: the action server reads which envs run
        traj_infos = self._new_traj_infos()
        completed: list[list[TrajInfo]] = [[] for _ in self.envs]
        self.seed_envs(itr)
        self._write_rows(step.observation, self._reset_all())
        step.action[:] = self.envs[0].action_space.null_value()
        step.reward[:] = 0
        step.done[:] = False
        self.active[:] = True
        for _ in range(self.max_T):
            self.sync.eval_obs_ready.release()
            wait_for_master(self.sync.eval_act_ready, self.sync.quit, self.sync.parent_pid)
            if self.sync.stop_eval.value:
                break
            self.step_envs(
                step.action, step.observation, step.reward, step.done, None, traj_infos, completed
            )
        return completed
