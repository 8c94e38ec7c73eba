"""Collector bases: step a group of envs (and, for CPU collectors, the agent) into a batch.

Box: Collector. Samplers (the serial one in the calling process, parallel ones in their
workers) build one training collector per group of envs and call ``start_envs``,
``start_agent``, then ``collect_batch`` per iteration and ``reset_if_needed`` between batches.
Collectors write in place into their slice ``samples_np[:, envs]`` of the samples buffer. A
training collector carries its state between batches: the agent inputs of the next step
(observation, prev_action, prev_reward, each ``[B_local, ...]``) and the live TrajInfos.
Every collector steps its envs through the one episode step,
:meth:`rlpyt.samplers.episode.EpisodeStepper.step_envs`; :class:`WaitResetMixin` is the
wait-reset policy of both the CPU and the GPU wait-reset collectors.

Episode starts: after ``start_envs`` the first ``prev_action`` is the action space's null value
and ``prev_reward`` 0. Across later episode boundaries within training, the agent sees, and the
buffer records, the previous step's action and reward (the ``[T + 1, B]`` layout makes
``prev_action[t + 1]`` the very array slot of ``action[t]``); the recurrent state is reset on
``done``. Every sampler follows this rule, so training sees what sampling saw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from rlpyt.agents.base import AgentInputs
from rlpyt.envs.base import Env
from rlpyt.envs.traj_info import TrajInfo, TrajInfoRows
from rlpyt.protocols import Agent
from rlpyt.samplers.collections import Samples, StepBuffer
from rlpyt.samplers.episode import EpisodeStepper, trajectory_ended
from rlpyt.samplers.evaluation import (  # noqa: F401  (kept for rlpyt's import path)
    BaseEvalCollector,
    select_unbiased,
)
from rlpyt.samplers.noise import (  # noqa: F401  (kept for rlpyt's import path)
    NOISE_STREAM,
    SamplingNoise,
    install_sampling_noise,
)
from rlpyt.utils.buffer import buffer_func
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.hyperparams import REQUIRED, Hyperparams, hyperparam


class BaseCollector(EpisodeStepper, Hyperparams):
    """Holds a group of envs and the slice of the samples buffer they write.

    The keywords are the plumbing a sampler passes (declared once, here; collector classes
    add none).
    """

    rank: int = hyperparam(REQUIRED, "Worker rank (0 in serial sampling).")
    envs: list[Env] = hyperparam(REQUIRED, "This collector's environments, ``B_local`` of them.")
    samples_np: Samples = hyperparam(
        REQUIRED, "Samples buffer slice ``[T, B_local]`` (numpy) this collector writes."
    )
    batch_T: int = hyperparam(REQUIRED, "Time steps per batch.")
    TrajInfoCls: Callable[[], TrajInfo] = hyperparam(REQUIRED, "Callable making a fresh TrajInfo.")
    agent: Agent | None = hyperparam(
        None, "Agent stepped by the collector (CPU collectors); None for GPU collectors."
    )
    sync: AttrDict | None = hyperparam(None, "Shared control flags of parallel samplers.")
    step_buffer_np: StepBuffer | None = hyperparam(
        None, "``[B_local]`` step buffer shared with an action server (GPU)."
    )
    global_B: int = hyperparam(1, "Total envs over all workers.")
    env_ranks: list[int] = hyperparam(  # a list once __post_init__ has resolved None
        None,
        "Global indexes of this collector's envs (None: ``0..B_local-1``).",
        type=list[int] | None,
    )
    seed: int | None = hyperparam(
        None,
        "Base seed; decorrelation draws come from ``(seed, env_rank)`` so they do not depend "
        "on how envs are split over workers.",
    )

    mid_batch_reset = True

    def __post_init__(self) -> None:
        """``env_ranks`` as a list of its own (default: the envs' local indexes)."""
        super().__post_init__()
        ranks = self.env_ranks
        self.env_ranks = list(range(len(self.envs))) if ranks is None else list(ranks)

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

    def collect_batch(
        self, agent_inputs: AgentInputs, traj_infos: TrajInfoRows, itr: int
    ) -> tuple[AgentInputs, TrajInfoRows, list[TrajInfo]]:
        """Fill the buffer slice for one iteration.

        Returns:
            ``(agent_inputs, traj_infos, completed_traj_infos)``.
        """
        raise NotImplementedError

    def reset_if_needed(self, agent_inputs: AgentInputs) -> None:
        """Reset envs between batches (wait-reset collectors; others have nothing to do)."""


class DecorrelatingStartCollector(BaseCollector):
    """Starts envs out of phase with a random number of random actions."""

    def start_envs(self, max_decorrelation_steps: int = 0) -> tuple[AgentInputs, TrajInfoRows]:
        """Reset every env, then decorrelate; returns ``(agent_inputs, traj_infos)``.

        Args:
            max_decorrelation_steps: Env b takes ``1..max`` random actions (0: none); the
                count comes from a generator seeded by ``(seed, env_rank)``.
        """
        traj_infos = self._new_traj_infos()
        observations = self._reset_all()
        self._decorrelate(observations, traj_infos, max_decorrelation_steps)
        return self._initial_inputs(observations), traj_infos

    def _new_traj_infos(self) -> TrajInfoRows:
        """A fresh TrajInfo per env (vector collectors keep them as one batch)."""
        return [self.TrajInfoCls() for _ in self.envs]

    def _reset_all(self) -> Any:
        """Reset every env; returns their first observations (a list, one per env)."""
        return [env.reset() for env in self.envs]

    def _decorrelate(
        self, observations: Any, traj_infos: TrajInfoRows, max_decorrelation_steps: int
    ) -> None:
        """Env b takes ``1..max`` random actions, drawn from ``(seed, env_rank)``; in place."""
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

    def _initial_inputs(self, observations: list[Any]) -> AgentInputs:
        """Agent inputs ``[B_local, ...]`` after a start: null prev action, zero prev reward."""
        env_buf = self.samples_np.env
        observation = buffer_func(env_buf.observation[0], np.copy)
        for b, o in enumerate(observations):
            observation[b] = o
        prev_action = np.copy(self.samples_np.agent.prev_action[0])
        prev_action[:] = self.envs[0].action_space.null_value()
        prev_reward = np.zeros_like(env_buf.prev_reward[0])
        return AgentInputs(observation, prev_action, prev_reward)


class WaitResetMixin(DecorrelatingStartCollector):
    """The wait-reset policy: an env that is ``done`` waits for the next batch.

    Put first among a training collector's bases (``CpuWaitResetCollector``,
    ``GpuWaitResetCollector``). After ``done`` at step t, later steps of that column record the
    null action (also the next ``prev_action``), zero reward, ``done=True`` and the last
    observation; the env is not stepped. Between batches (:meth:`reset_if_needed`) such envs
    are reset if their trajectory ended (``traj_done``), the agent's recurrent state of the
    env is reset, and they restart with null prev action and zero prev reward. So every column
    of a batch holds at most one episode end (for recurrent agents and algorithms that need
    whole-batch validity masks).

    State (``[B_local]`` bool, saved for resume by ``rlpyt.samplers.state``): ``need_reset``
    (env waits), ``need_env_reset`` (its trajectory ended, so the env itself must be reset).
    Within a batch the episode step reads two Python lists instead, which cost less per step
    than numpy lookups: ``_waiting`` (the envs that are done, in order) and ``_stepping`` (the
    others, rebuilt when ``_waiting`` grew). Every batch starts with :meth:`reset_if_needed`,
    which empties both, so they never outlive the flags they mirror.
    """

    mid_batch_reset = False
    need_reset: np.ndarray
    need_env_reset: np.ndarray
    null_action: Any
    _waiting: list[int]
    _stepping: list[int]

    def start_envs(self, max_decorrelation_steps: int = 0) -> tuple[AgentInputs, TrajInfoRows]:
        """Start the envs (see the collector); none waits yet."""
        self.need_reset = np.zeros(len(self.envs), dtype=bool)
        self.need_env_reset = np.zeros(len(self.envs), dtype=bool)
        self.null_action = self.envs[0].action_space.null_value()
        self._waiting, self._stepping = [], []
        return super().start_envs(max_decorrelation_steps)

    def collect_batch(
        self, agent_inputs: AgentInputs, traj_infos: TrajInfoRows, itr: int
    ) -> tuple[AgentInputs, TrajInfoRows, list[TrajInfo]]:
        """Reset the envs that finished last batch, then fill this collector's slice."""
        self.reset_if_needed(agent_inputs)
        return super().collect_batch(agent_inputs, traj_infos, itr)

    def reset_if_needed(self, agent_inputs: AgentInputs) -> None:
        """Restart the envs that wait (runs between batches).

        Args:
            agent_inputs: The carried agent inputs ``[B_local, ...]`` (for GPU collectors the
                step buffer's arrays, whose ``done`` rows are cleared too).
        """
        step_buffer = self.step_buffer_np
        if self.need_env_reset.any():
            self._reset_rows(self.need_env_reset, agent_inputs.observation)
        for b in np.flatnonzero(self.need_reset).tolist():
            agent_inputs.prev_action[b] = self.null_action
            agent_inputs.prev_reward[b] = 0
            if self.agent is not None:
                self.agent.reset_one(idx=b)
            if step_buffer is not None:
                step_buffer.done[b] = False
        self.need_reset[:] = False
        self.need_env_reset[:] = False
        self._waiting, self._stepping = [], []

    def _reset_rows(self, mask: np.ndarray, observation: Any) -> None:
        """Reset the envs where ``mask``; write their first observations into ``observation``."""
        for b in np.flatnonzero(mask).tolist():
            observation[b] = self.envs[b].reset()

    def _envs_to_step(
        self, action: np.ndarray, reward: np.ndarray, done: np.ndarray
    ) -> Iterable[int]:
        """The envs that do not wait; waiting rows get null action, zero reward, ``done``."""
        waiting = self._waiting
        if not waiting:
            return range(len(self.envs))
        for b in waiting:
            action[b] = self.null_action  # also the next prev_action
            reward[b] = 0
            done[b] = True
        if len(waiting) + len(self._stepping) != len(self.envs):  # envs began to wait
            waits = set(waiting)
            self._stepping = [b for b in range(len(self.envs)) if b not in waits]
        return self._stepping

    def _waiting_rows(self) -> np.ndarray | None:
        """Vector step: the envs that wait (``need_reset``), or None while none does."""
        return self.need_reset if self.need_reset.any() else None

    def _restart_env(self, b: int, observation: Any) -> Any:
        """The env waits for the next batch to be reset; it keeps its last observation."""
        self.need_env_reset[b] = True
        return observation

    def _env_done(self, b: int) -> None:
        """The env waits from now on; the agent's state is reset with it, between batches."""
        self.need_reset[b] = True
        self._waiting.append(b)
