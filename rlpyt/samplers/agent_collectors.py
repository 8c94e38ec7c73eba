"""Collectors that step the agent themselves: the serial sampler's and every CPU worker's.

Box: Collector. ``SerialSampler`` (in the calling process) and ``CpuSampler`` (in each worker)
build one of these over their envs and call ``collect_batch`` per iteration. Invariant: per
time step, one ``agent.step`` over the collector's ``[B_local]`` envs, then the one episode step
(:meth:`~rlpyt.samplers.episode.EpisodeStepper.step_envs`), then the rows of ``samples_np[t]``.

``CpuResetCollector`` resets an env as soon as its trajectory ends, mid-batch.
``CpuWaitResetCollector`` freezes a finished env for the rest of the batch and resets it between
batches (:class:`~rlpyt.samplers.collectors.WaitResetMixin`). Both share ``CpuCollectorBase``'s
batch loop. (rlpyt's import path of these classes is ``rlpyt.samplers.parallel.cpu.collectors``.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from rlpyt.agents.base import AgentInputs
from rlpyt.envs.traj_info import TrajInfo, TrajInfoRows
from rlpyt.samplers.collectors import DecorrelatingStartCollector, WaitResetMixin
from rlpyt.samplers.episode import write_env_infos
from rlpyt.utils.buffer import buffer_func, numpify_buffer, torchify_buffer

if TYPE_CHECKING:
    from rlpyt.agents.pg.base import PgAgent, RecurrentPgAgent
    from rlpyt.protocols import Agent


class CpuCollectorBase(DecorrelatingStartCollector):
    """The batch loop of the agent-stepping collectors (mid-batch reset unless mixed in)."""

    agent: Agent

    def collect_batch(
        self, agent_inputs: AgentInputs, traj_infos: TrajInfoRows, itr: int
    ) -> tuple[AgentInputs, TrajInfoRows, list[TrajInfo]]:
        """Fill this collector's ``[T, B_local]`` slice.

        Args:
            agent_inputs: Carried ``AgentInputs`` numpy arrays ``[B_local, ...]`` (updated in
                place).
            traj_infos: Live TrajInfo per env (replaced when a trajectory completes).
            itr: Iteration (for the agent's sampling schedule).

        Returns:
            ``(agent_inputs, traj_infos, completed_traj_infos)``.
        """
        agent_buf, env_buf = self.samples_np.agent, self.samples_np.env
        observation, action, reward = agent_inputs
        obs_pyt, act_pyt, rew_pyt = torchify_buffer(agent_inputs)
        agent_buf.prev_action[0] = action
        env_buf.prev_reward[0] = reward
        completed: list[TrajInfo] = []
        truncations = self._start_truncations()
        self.agent.sample_mode(itr)
        for t in range(self.batch_T):
            env_buf.observation[t] = observation
            act_pyt, agent_info = self.agent.step(obs_pyt, act_pyt, rew_pyt)
            action = act_pyt.numpy()
            # Numpy rows are cheaper to index per env; detached (agents may hand out parameters).
            agent_info = numpify_buffer(agent_info)
            env_infos = self.step_envs(
                action, observation, reward, env_buf.done[t], agent_info, traj_infos, completed
            )
            if truncations:
                self._record_timeout_values(t, truncations, action, reward)
            write_env_infos(env_buf.env_info, t, env_infos)
            agent_buf.action[t] = action
            env_buf.reward[t] = reward
            if agent_info:
                agent_buf.agent_info[t] = agent_info
        # The carried action must be a buffer of our own: act_pyt is the agent's output tensor.
        agent_inputs = AgentInputs(observation, np.array(action), reward)
        if "bootstrap_value" in agent_buf:  # asked for by policy gradients: PG agents' value()
            pg_agent = cast("PgAgent | RecurrentPgAgent", self.agent)
            value = pg_agent.value(*torchify_buffer(agent_inputs))
            agent_buf.bootstrap_value[0] = value.numpy()
        return agent_inputs, traj_infos, completed

    def _start_truncations(self) -> list[tuple[int, Any]] | None:
        """Start a batch's ``timeout_value`` rows (NaN) if the samples record them.

        They are recorded (policy gradients' buffers have the field) where the agent is
        feed-forward: its value of a final observation needs no recurrent state.

        Returns:
            The list the episode step fills with truncated envs, or None.
        """
        agent_buf = self.samples_np.agent
        if "timeout_value" not in agent_buf or self.agent.recurrent:
            self._truncations = None
            return None
        agent_buf.timeout_value[:] = np.nan
        self._truncations = []
        return self._truncations

    def _record_timeout_values(
        self,
        t: int,
        truncations: list[tuple[int, Any]],
        action: np.ndarray,
        reward: np.ndarray,
    ) -> None:
        """``timeout_value[t, b]`` = V(final observation of env b) where a time limit cut.

        One value call per truncated env (per-env work at episode ends only), so the value does
        not depend on which other envs of the worker were cut at the same step.
        """
        pg_agent = cast("PgAgent", self.agent)
        timeout_value = self.samples_np.agent.timeout_value
        for b, final in truncations:
            inputs = AgentInputs(
                buffer_func(final, lambda array: np.asarray(array)[None]),
                action[b : b + 1],
                reward[b : b + 1],
            )
            timeout_value[t, b] = pg_agent.value(*torchify_buffer(inputs)).numpy()[0]
        truncations.clear()


class CpuResetCollector(CpuCollectorBase):
    """Steps agent and envs for ``batch_T`` steps; resets envs mid-batch on ``traj_done``.

    On ``done`` the agent's recurrent state of that env is reset at once.
    """

    mid_batch_reset = True


class CpuWaitResetCollector(WaitResetMixin, CpuCollectorBase):
    """Like CpuResetCollector, but an env that is ``done`` waits for the next batch.

    See :class:`~rlpyt.samplers.collectors.WaitResetMixin` for the rows a waiting env records
    and the restart between batches (with the agent's recurrent state of the env reset).
    """

    mid_batch_reset = False
