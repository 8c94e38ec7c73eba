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
Under the alternating samplers the worker's envs form two halves (even and odd batch columns),
each with its own semaphore pair in ``sync.halves``, and the worker steps one half while the
server computes the other half's actions (:meth:`GpuResetCollector._collect_halves`).

Box: Collector (GPU worker side). These collectors need the worker's semaphores, so they stay
here; they import only shared modules of ``rlpyt/samplers`` and ``wait_for_master``. Their envs
step through the one episode step (``rlpyt.samplers.episode``); the wait-reset policy is
``rlpyt.samplers.collectors.WaitResetMixin``, as for the CPU collectors.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from rlpyt.agents.base import AgentInputs
from rlpyt.envs.traj_info import TrajInfo, TrajInfoRows
from rlpyt.samplers.collections import StepBuffer
from rlpyt.samplers.collectors import DecorrelatingStartCollector, WaitResetMixin
from rlpyt.samplers.episode import write_env_infos
from rlpyt.samplers.evaluation import BaseEvalCollector, evaluation_rng
from rlpyt.samplers.parallel.worker import wait_for_master
from rlpyt.samplers.vector import VecCollectorMixin

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

    _half_rows: list[int] | None = None  # while a half steps: its local rows

    def collect_batch(
        self, agent_inputs: AgentInputs, traj_infos: TrajInfoRows, itr: int
    ) -> tuple[AgentInputs, TrajInfoRows, list[TrajInfo]]:
        """Fill this worker's ``[T, B_local]`` columns, one server round trip per step.

        With ``sync.halves`` (alternating samplers) the two halves of the envs take turns
        instead (:meth:`_collect_halves`).

        Returns:
            ``(agent_inputs, traj_infos, completed_traj_infos)``.
        """
        halves = self.sync.get("halves") if self.sync else None
        if halves:
            return self._collect_halves(halves, agent_inputs, traj_infos)
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

    def _collect_halves(
        self, halves: list[AttrDict], agent_inputs: AgentInputs, traj_infos: TrajInfoRows
    ) -> tuple[AgentInputs, TrajInfoRows, list[TrajInfo]]:
        """Step the two halves of the envs in turn, each with its own semaphore pair.

        Both halves publish their observations at once; then, per time step and half: wait
        for the half's actions, step its envs, publish its next observations. So this worker
        steps one half while the server computes the other half's actions. A half touches
        only its own rows of the step buffer and of ``samples_np`` (the server may be writing
        the other half's). After the last step the server's release of each half says it has
        read the step buffer. A vector env steps all its envs at once, so it waits for both
        halves' actions each step (same samples, no overlap).
        """
        agent_buf, env_buf = self.samples_np.agent, self.samples_np.env
        step = self.step_buffer_np
        agent_buf.prev_action[0] = step.action
        env_buf.prev_reward[0] = step.reward
        env_buf.observation[0] = step.observation
        live = [half for half in halves if len(range(len(self.envs))[half.rows])]
        completed: list[TrajInfo] = []
        for half in live:
            half.obs_ready.release()
        for t in range(self.batch_T):
            if isinstance(self, VecCollectorMixin):  # one vector step: both halves' actions
                self._wait_halves(live)
                self._step_envs(t, traj_infos, completed)
                if t + 1 < self.batch_T:
                    env_buf.observation[t + 1] = step.observation
                for half in live:
                    half.obs_ready.release()
                continue
            for half in live:
                self._wait_halves([half])
                self._step_half(t, half.rows, traj_infos, completed)
                if t + 1 < self.batch_T:
                    env_buf.observation[t + 1, half.rows] = step.observation[half.rows]
                half.obs_ready.release()
        self._wait_halves(live)
        return agent_inputs, traj_infos, completed

    def _wait_halves(self, halves: list[AttrDict]) -> None:
        for half in halves:
            wait_for_master(half.act_ready, self.sync.quit, self.sync.parent_pid)

    def _step_half(
        self, t: int, rows: slice, traj_infos: TrajInfoRows, completed: list[TrajInfo]
    ) -> None:
        """Step the envs of ``rows`` (local); record their env fields of ``samples_np[t]``."""
        env_buf, step = self.samples_np.env, self.step_buffer_np
        agent_info = self.samples_np.agent.agent_info[t]
        self._half_rows = list(range(len(self.envs))[rows])
        try:
            env_infos = self.step_envs(
                step.action,
                step.observation,
                step.reward,
                step.done,
                agent_info,
                traj_infos,
                completed,
            )
        finally:
            self._half_rows = None
        _write_half_env_infos(env_buf.env_info, t, env_infos, rows)
        env_buf.reward[t, rows] = step.reward[rows]
        env_buf.done[t, rows] = step.done[rows]

    def _envs_to_step(
        self, action: np.ndarray, reward: np.ndarray, done: np.ndarray
    ) -> Iterable[int]:
        """All envs, or while a half steps, that half's."""
        if self._half_rows is None:
            return super()._envs_to_step(action, reward, done)
        return self._half_rows

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


def _write_half_env_infos(env_info_buf: Any, t: int, env_infos: list, rows: slice) -> None:
    """Write the env_info records of the rows of one half into ``env_info_buf[t]``.

    Rows outside the half are left alone (their half may be stepping); a waiting env's row is
    zeroed, as :func:`~rlpyt.samplers.episode.write_env_infos` does.
    """
    if not env_info_buf:
        return
    fields = env_info_buf[t]
    for b in range(len(env_infos))[rows]:
        info = env_infos[b]
        fields[b] = 0 if info is None else info


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

    def _step_half(
        self, t: int, rows: slice, traj_infos: TrajInfoRows, completed: list[TrajInfo]
    ) -> None:
        """As GpuResetCollector; the half's action rows are written again (waiting envs)."""
        super()._step_half(t, rows, traj_infos, completed)
        self.samples_np.agent.action[t, rows] = self.step_buffer_np.action[rows]

    def _envs_to_step(
        self, action: np.ndarray, reward: np.ndarray, done: np.ndarray
    ) -> Iterable[int]:
        """The envs that do not wait; while a half steps, only that half's rows are touched.

        Waiting rows of the stepping half get the null action, zero reward and ``done``, as
        in :class:`~rlpyt.samplers.collectors.WaitResetMixin`.
        """
        rows = self._half_rows
        if rows is None:
            return super()._envs_to_step(action, reward, done)
        stepping = []
        for b in rows:
            if self.need_reset[b]:
                action[b] = self.null_action  # also the next prev_action
                reward[b] = 0
                done[b] = True
            else:
                stepping.append(b)
        return stepping


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
