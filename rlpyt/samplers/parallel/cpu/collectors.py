"""Collectors that step the agent themselves (serial sampling and CPU worker processes).

``CpuResetCollector`` resets an env as soon as its trajectory ends, mid-batch.
``CpuWaitResetCollector`` freezes a finished env for the rest of the batch and resets it between
batches (so every column of a batch holds at most one episode end; for recurrent agents and
algorithms that need whole-batch validity masks). Both share ``CpuCollectorBase``'s batch loop.
``CpuEvalCollector`` runs evaluation episodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlpyt.agents.base import AgentInputs
from rlpyt.samplers.collectors import (
    BaseEvalCollector,
    DecorrelatingStartCollector,
    select_unbiased,
    step_envs,
    step_envs_waiting,
    trajectory_ended,
)
from rlpyt.utils.buffer import buffer_from_example, numpify_buffer, torchify_buffer


class CpuCollectorBase(DecorrelatingStartCollector):
    """The batch loop of the CPU collectors; subclasses choose how envs step (``_step_envs``)."""

    def collect_batch(self, agent_inputs: AgentInputs, traj_infos: list, itr: int) -> tuple:
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
        completed: list = []
        self.agent.sample_mode(itr)
        for t in range(self.batch_T):
            env_buf.observation[t] = observation
            act_pyt, agent_info = self.agent.step(obs_pyt, act_pyt, rew_pyt)
            action = act_pyt.numpy()
            # Numpy rows are cheaper to index per env; detached (agents may hand out parameters).
            agent_info = numpify_buffer(agent_info)
            env_infos = self._step_envs(
                action, observation, reward, env_buf.done[t], agent_info, traj_infos, completed
            )
            write_env_infos(env_buf.env_info, t, env_infos)
            agent_buf.action[t] = action
            env_buf.reward[t] = reward
            if agent_info:
                agent_buf.agent_info[t] = agent_info
        # The carried action must be a buffer of our own: act_pyt is the agent's output tensor.
        agent_inputs = AgentInputs(observation, np.array(action), reward)
        if "bootstrap_value" in agent_buf:
            value = self.agent.value(*torchify_buffer(agent_inputs))
            agent_buf.bootstrap_value[0] = value.numpy()
        return agent_inputs, traj_infos, completed

    def _step_envs(self, *args: Any) -> list:
        """Step the envs once; takes the arguments of :func:`step_envs` after ``collector``."""
        raise NotImplementedError


class CpuResetCollector(CpuCollectorBase):
    """Steps agent and envs for ``batch_T`` steps; resets envs mid-batch on ``traj_done``."""

    mid_batch_reset = True

    def _step_envs(self, *args: Any) -> list:
        """One step of every env: :func:`step_envs`, resetting the agent's state on ``done``."""
        return step_envs(self, *args, reset_agent=self.agent.reset_one)


class CpuWaitResetCollector(CpuCollectorBase):
    """Like CpuResetCollector, but an env that is ``done`` waits for the next batch.

    After ``done`` at step t, later steps of that column record the null action, zero reward,
    ``done=True``, and the last observation; the env is not stepped. Between batches
    (``reset_if_needed``) such envs are reset if their trajectory ended (``traj_done``), their
    recurrent state is reset, and they restart with null prev action and zero prev reward.
    """

    mid_batch_reset = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.need_reset = np.zeros(len(self.envs), dtype=bool)
        self.need_env_reset = np.zeros(len(self.envs), dtype=bool)
        self.null_action = None

    def reset_if_needed(self, agent_inputs: AgentInputs) -> None:
        """Reset the envs that finished in the last batch (runs between batches)."""
        if self.null_action is None:
            self.null_action = self.envs[0].action_space.null_value()
        for b in np.flatnonzero(self.need_reset):
            if self.need_env_reset[b]:
                agent_inputs.observation[b] = self.envs[b].reset()
            agent_inputs.prev_action[b] = self.null_action
            agent_inputs.prev_reward[b] = 0
            if self.agent is not None:
                self.agent.reset_one(idx=b)
        self.need_reset[:] = False
        self.need_env_reset[:] = False

    def collect_batch(self, agent_inputs: AgentInputs, traj_infos: list, itr: int) -> tuple:
        """Reset the envs that finished last batch, then fill this collector's slice."""
        self.reset_if_needed(agent_inputs)
        return super().collect_batch(agent_inputs, traj_infos, itr)

    def _step_envs(self, *args: Any) -> list:
        """One step of every env that is not waiting: :func:`step_envs_waiting`."""
        return step_envs_waiting(self, *args)


class CpuEvalCollector(BaseEvalCollector):
    """Evaluation with the collector's own agent (serial, or in a CPU sampler worker).

    ``collect_evaluation`` also puts the selected TrajInfos on ``traj_infos_queue`` (if given),
    then ``None``.
    """

    def collect_evaluation(self, itr: int) -> list:
        """Run evaluation episodes (see BaseEvalCollector); returns the selected TrajInfos."""
        completed = run_evaluation(self, itr)
        if self.traj_infos_queue is not None:
            for traj_info in completed:
                self.traj_infos_queue.put(traj_info)
            self.traj_infos_queue.put(None)
        return completed

    def collect_per_env(self, itr: int) -> list[list]:
        """Run evaluation episodes; returns each env's complete TrajInfos."""
        return run_evaluation_per_env(self, itr)


def run_evaluation(collector: BaseEvalCollector, itr: int) -> list:
    """Evaluate and keep an unbiased selection (see ``select_unbiased``)."""
    return select_unbiased(run_evaluation_per_env(collector, itr))


def run_evaluation_per_env(collector: BaseEvalCollector, itr: int) -> list[list]:
    """Step the collector's agent and envs until each env met its quota or ``max_T`` ran out.

    Returns:
        Per env, its complete TrajInfos in order (at most the quota each).
    """
    envs, agent = collector.envs, collector.agent
    quota = collector.quota()
    traj_infos = [collector.TrajInfoCls() for _ in envs]
    done_per_env: list[list] = [[] for _ in envs]
    first_observations = [env.reset() for env in envs]
    observation = buffer_from_example(first_observations[0], len(envs))
    for b, o in enumerate(first_observations):
        observation[b] = o
    action = buffer_from_example(envs[0].action_space.null_value(), len(envs), fill=0)
    action[:] = envs[0].action_space.null_value()
    reward = np.zeros(len(envs), dtype="float32")
    obs_pyt, act_pyt, rew_pyt = torchify_buffer((observation, action, reward))
    agent.reset()
    agent.eval_mode(itr)
    active = np.ones(len(envs), dtype=bool)
    for _ in range(collector.max_T):
        act_pyt, agent_info = agent.step(obs_pyt, act_pyt, rew_pyt)
        action = act_pyt.numpy()
        for b in np.flatnonzero(active).tolist():
            o, r, d, env_info = envs[b].step(action[b])
            traj_infos[b].step(observation[b], action[b], r, d, agent_info[b], env_info)
            if trajectory_ended(env_info, d):
                done_per_env[b].append(traj_infos[b].terminate(o))
                traj_infos[b] = collector.TrajInfoCls()
                o = envs[b].reset()
                if quota is not None and len(done_per_env[b]) >= quota:
                    active[b] = False
            if d:
                agent.reset_one(idx=b)
            observation[b] = o
            reward[b] = r
        if not active.any():
            break
    # Envs stop at their quota, so every env contributes at most ``quota`` trajectories.
    return done_per_env


def write_env_infos(env_info_buf: Any, t: int, env_infos: list) -> None:
    """Write one time step's env_info records into ``env_info_buf[t]``.

    Args:
        env_info_buf: The ``[T, B_local]`` env_info buffer (a namedarraytuple, or None).
        t: Time index.
        env_infos: One record per env, None for an env not stepped (wait-reset).
    """
    if not env_info_buf:
        return
    fields = env_info_buf[t]
    flat = all(isinstance(field, np.ndarray) for field in fields)
    if flat and all(info is not None for info in env_infos):
        # One numpy assignment per field instead of one record assignment per env.
        for i, field in enumerate(fields):
            field[:] = [info[i] for info in env_infos]
        return
    for b, info in enumerate(env_infos):
        if info is not None:
            fields[b] = info
