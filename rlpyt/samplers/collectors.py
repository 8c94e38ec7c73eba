"""Collector bases: step a group of envs (and, for CPU collectors, the agent) into a batch.

Collectors write in place into their slice ``samples_np[:, envs]`` of the samples buffer. A
training collector carries its state between batches: the agent inputs of the next step
(observation, prev_action, prev_reward, each ``[B_local, ...]``) and the live TrajInfos.

Episode starts: after ``start_envs`` the first ``prev_action`` is the action space's null value
and ``prev_reward`` 0. Across later episode boundaries within training, the agent sees, and the
buffer records, the previous step's action and reward (the ``[T + 1, B]`` layout makes
``prev_action[t + 1]`` the very array slot of ``action[t]``); the recurrent state is reset on
``done``. Every sampler follows this rule, so training sees what sampling saw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlpyt.agents.base import AgentInputs
from rlpyt.samplers.collections import TrajInfo
from rlpyt.samplers.noise import (  # noqa: F401  (kept for rlpyt's import path)
    NOISE_STREAM,
    SamplingNoise,
    install_sampling_noise,
)
from rlpyt.utils.buffer import buffer_func, torchify_buffer


class BaseCollector:
    """Holds a group of envs and the slice of the samples buffer they write.

    Args:
        rank: Worker rank (0 in serial sampling).
        envs: This collector's environments, ``B_local`` of them.
        samples_np: Samples buffer slice ``[T, B_local]`` (numpy).
        batch_T: Time steps per batch.
        TrajInfoCls: Callable making a fresh TrajInfo.
        agent: Agent stepped by the collector (CPU collectors); None for GPU collectors.
        sync: Shared control flags of parallel samplers.
        step_buffer_np: ``[B_local]`` step buffer shared with an action server (GPU).
        global_B: Total envs over all workers.
        env_ranks: Global indexes of this collector's envs.
        seed: Base seed; decorrelation draws come from ``(seed, env_rank)`` so they do not
            depend on how envs are split over workers.
    """

    mid_batch_reset = True

    def __init__(
        self,
        rank: int,
        envs: list,
        samples_np: Any,
        batch_T: int,  # noqa: N803
        TrajInfoCls: Any,  # noqa: N803
        agent: Any = None,
        sync: Any = None,
        step_buffer_np: Any = None,
        global_B: int = 1,  # noqa: N803
        env_ranks: list[int] | None = None,
        seed: int | None = None,
    ):
        self.rank = rank
        self.envs = envs
        self.samples_np = samples_np
        self.batch_T = batch_T
        self.TrajInfoCls = TrajInfoCls
        self.agent = agent
        self.sync = sync
        self.step_buffer_np = step_buffer_np
        self.global_B = global_B
        self.env_ranks = list(range(len(envs))) if env_ranks is None else list(env_ranks)
        self.seed = seed

    def start_agent(self) -> None:
        """Prepare the agent owned by this collector (CPU collectors).

        With a seed, the agent's training-time action noise comes from
        :func:`install_sampling_noise`, so the samples do not depend on the worker split.
        """
        if self.agent is not None:
            self.agent.collector_initialize(global_B=self.global_B, env_ranks=self.env_ranks)
            if self.seed is not None:
                install_sampling_noise(self.agent, self.seed, self.global_B, self.env_ranks)
            self.agent.reset()
            self.agent.sample_mode(itr=0)

    def collect_batch(self, agent_inputs: Any, traj_infos: list, itr: int) -> Any:
        """Fill the buffer slice for one iteration."""
        raise NotImplementedError

    def reset_if_needed(self, agent_inputs: Any) -> None:
        """Reset envs between batches (wait-reset collectors)."""


class DecorrelatingStartCollector(BaseCollector):
    """Starts envs out of phase with a random number of random actions."""

    def start_envs(self, max_decorrelation_steps: int = 0) -> tuple[Any, list]:
        """Reset every env, then decorrelate; returns ``(agent_inputs, traj_infos)``.

        Args:
            max_decorrelation_steps: Env b takes ``1..max`` random actions (0: none); the
                count comes from a generator seeded by ``(seed, env_rank)``.
        """
        traj_infos = [self.TrajInfoCls() for _ in self.envs]
        observations = [env.reset() for env in self.envs]
        for b, env in enumerate(self.envs):
            if max_decorrelation_steps <= 0:
                continue
            rng = np.random.default_rng(
                None if self.seed is None else [self.seed, self.env_ranks[b]]
            )
            for _ in range(int(rng.integers(1, max_decorrelation_steps + 1))):
                action = env.action_space.sample()
                o, r, d, env_info = env.step(action)
                traj_infos[b].step(observations[b], action, r, d, None, env_info)
                if trajectory_ended(env_info, d):
                    o = env.reset()
                    traj_infos[b] = self.TrajInfoCls()
                observations[b] = o
        return self._initial_inputs(observations), traj_infos

    def _initial_inputs(self, observations: list) -> AgentInputs:
        """Agent inputs ``[B_local, ...]`` after a start: null prev action, zero prev reward."""
        env_buf = self.samples_np.env
        observation = buffer_func(env_buf.observation[0], np.copy)
        for b, o in enumerate(observations):
            observation[b] = o
        prev_action = np.copy(self.samples_np.agent.prev_action[0])
        prev_action[:] = self.envs[0].action_space.null_value()
        prev_reward = np.zeros_like(env_buf.prev_reward[0])
        return AgentInputs(observation, prev_action, prev_reward)


class BaseEvalCollector:
    """Runs evaluation episodes and returns only complete trajectories, without length bias.

    Bias: stopping all envs once N trajectories are done over-represents short episodes. Here
    each env runs its own quota of episodes (``ceil(max_trajectories / n_envs)``, or as many as
    fit in ``max_T`` steps) and the result keeps, from every env, the same number of its first
    complete episodes — an unbiased sample of episodes.

    Args:
        rank: Worker rank.
        envs: Evaluation envs.
        TrajInfoCls: Callable making a fresh TrajInfo.
        traj_infos_queue: Queue for parallel collectors (None in serial).
        max_T: Step budget per env.
        agent: Agent (CPU/serial eval collectors).
        sync: Parallel control flags.
        step_buffer_np: Step buffer (GPU eval collectors).
        max_trajectories: Total trajectories wanted (None: as many as fit in max_T).
    """

    def __init__(
        self,
        rank: int,
        envs: list,
        TrajInfoCls: Any,  # noqa: N803
        traj_infos_queue: Any = None,
        max_T: int = 1000,  # noqa: N803
        agent: Any = None,
        sync: Any = None,
        step_buffer_np: Any = None,
        max_trajectories: int | None = None,
    ):
        self.rank = rank
        self.envs = envs
        self.TrajInfoCls = TrajInfoCls
        self.traj_infos_queue = traj_infos_queue
        self.max_T = int(max_T)
        self.agent = agent
        self.sync = sync
        self.step_buffer_np = step_buffer_np
        self.max_trajectories = max_trajectories

    def quota(self) -> int | None:
        """Episodes each env should complete (None: unlimited within max_T)."""
        if self.max_trajectories is None:
            return None
        return -(-int(self.max_trajectories) // len(self.envs))

    def collect_evaluation(self, itr: int) -> list:
        """Run the evaluation; returns the selected TrajInfos (see :func:`select_unbiased`)."""
        return select_unbiased(self.collect_per_env(itr))

    def collect_per_env(self, itr: int) -> list[list]:
        """Run the evaluation; returns each env's complete TrajInfos, in order.

        Parallel samplers gather these lists from all workers and select over all envs.
        """
        raise NotImplementedError


def select_unbiased(completed: list[list]) -> list:
    """From per-env lists of complete trajectories, keep the first k of each env.

    ``k`` is the smallest count over envs that completed at least one episode (envs with
    none are left out); this keeps every env's contribution equal in number, so short episodes
    are not over-represented.
    """
    counts = [len(c) for c in completed if c]
    if not counts:
        return []
    k = min(counts)
    return [traj for c in completed if c for traj in c[:k]]


def torch_inputs(agent_inputs: Any) -> Any:
    """Zero-copy torch views of numpy agent inputs."""
    return torchify_buffer(agent_inputs)


def trajectory_ended(env_info: Any, done: Any) -> Any:
    """Whether the trajectory ended: ``env_info.traj_done`` if the record has it, else ``done``.

    Atari envs report a lost life as ``done`` without ending the game (the trajectory). No
    exception is raised for records without the field (this runs once per env step).
    """
    fields = getattr(env_info, "_fields", None)
    if fields is None or "traj_done" not in fields:
        return done
    return env_info.traj_done


def agent_info_rows(traj_infos: list, agent_info: Any) -> Any:
    """``agent_info`` ``[B_local]`` when the TrajInfos' ``step`` may read its rows, else None.

    The base ``TrajInfo.step`` ignores ``agent_info``, and making one row per env costs more than
    its whole step, so it gets None; any subclass that overrides ``step`` gets its row.
    """
    if not traj_infos or agent_info is None or type(traj_infos[0]).step is TrajInfo.step:
        return None
    return agent_info


def step_envs(
    collector: Any,
    action: Any,
    observation: Any,
    reward: Any,
    done: Any,
    agent_info: Any,
    traj_infos: list,
    completed: list,
    *,
    reset_agent: Any = None,
) -> list:
    """Step each env of ``collector`` once, resetting it mid-batch when its trajectory ends.

    Writes the next observation, reward and done of env ``b`` into row ``b`` of the given
    ``[B_local]`` arrays (in place); ``reset_agent(idx=b)`` (if given) runs on ``done``.

    Returns:
        The env_info of every env, for ``write_env_infos``.
    """
    env_infos = []
    rows = agent_info_rows(traj_infos, agent_info)
    for b, env in enumerate(collector.envs):
        o, r, d, env_info = env.step(action[b])
        info_b = None if rows is None else rows[b]
        traj_infos[b].step(observation[b], action[b], r, d, info_b, env_info)
        if trajectory_ended(env_info, d):
            completed.append(traj_infos[b].terminate(o))
            traj_infos[b] = collector.TrajInfoCls()
            o = env.reset()
        if d and reset_agent is not None:
            reset_agent(idx=b)
        observation[b] = o
        reward[b] = r
        done[b] = d
        env_infos.append(env_info)
    return env_infos


def step_envs_waiting(
    collector: Any,
    action: Any,
    observation: Any,
    reward: Any,
    done: Any,
    agent_info: Any,
    traj_infos: list,
    completed: list,
) -> list:
    """Like :func:`step_envs`, but an env that is done waits (wait-reset collectors).

    A waiting env is not stepped: its row records the null action, zero reward and
    ``done=True``; its observation stays the last one. ``collector.need_reset`` /
    ``need_env_reset`` mark the envs that ``reset_if_needed`` restarts between batches.
    """
    env_infos: list = []
    rows = agent_info_rows(traj_infos, agent_info)
    for b, env in enumerate(collector.envs):
        if collector.need_reset[b]:
            action[b] = collector.null_action  # also the next prev_action
            reward[b] = 0
            done[b] = True
            env_infos.append(None)
            continue
        o, r, d, env_info = env.step(action[b])
        info_b = None if rows is None else rows[b]
        traj_infos[b].step(observation[b], action[b], r, d, info_b, env_info)
        if trajectory_ended(env_info, d):
            completed.append(traj_infos[b].terminate(o))
            traj_infos[b] = collector.TrajInfoCls()
            collector.need_env_reset[b] = True
        if d:
            collector.need_reset[b] = True
        observation[b] = o
        reward[b] = r
        done[b] = d
        env_infos.append(env_info)
    return env_infos
