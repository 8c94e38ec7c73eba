"""Policy-gradient agents with a diagonal Gaussian policy (continuous actions).

The model maps ``(observation, prev_action, prev_reward[, init_rnn_state])`` to
``(mu, log_std, value[, next_rnn_state])``. Shapes: ``observation [..., *obs_shape]``,
``prev_action [..., A]``, ``prev_reward [...]``, ``mu, log_std [..., A]``, ``value [...]`` with
leading ``[]``, ``[B]`` or ``[T, B]``; rnn state fields ``[N, B, H]``.

Sampled actions are recorded unclipped (the log-likelihood must match the sample); the env
clips them to its bounds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from rlpyt.agents.base import (
    AgentStep,
    AlternatingRecurrentAgentMixin,
    BaseAgent,
    RecurrentAgentMixin,
    recorded_rnn_state,
)
from rlpyt.agents.pg.base import AgentInfo, AgentInfoRnn
from rlpyt.distributions.gaussian import DistInfoStd, Gaussian


def check_action_space(action_space: Any) -> None:
    """Raise unless the action space is 1-D with symmetric bounds (``low == -high``)."""
    shape = tuple(action_space.shape)
    if len(shape) != 1:
        raise ValueError(
            f"Gaussian PG agents need a 1-D action space, got shape {shape}; flatten the "
            "action space in the env."
        )
    low = np.broadcast_to(np.asarray(action_space.low, dtype=np.float64), shape)
    high = np.broadcast_to(np.asarray(action_space.high, dtype=np.float64), shape)
    if not np.array_equal(low, -high):
        raise ValueError(
            f"Gaussian PG agents need symmetric action bounds (low == -high), got low={low}, "
            f"high={high}; rescale the actions in the env."
        )


class _GaussianMixin:
    """Builds the Gaussian distribution; forwards observation-normalization updates."""

    def initialize(
        self,
        env_spaces: Any,
        share_memory: bool = False,
        global_B: int = 1,
        env_ranks: list[int] | None = None,
    ) -> None:
        """Check the action space, build the model and ``Gaussian(dim=A)`` (std from the model)."""
        check_action_space(env_spaces.action)
        super().initialize(env_spaces, share_memory, global_B, env_ranks)  # type: ignore[misc]
        self.distribution = Gaussian(dim=int(env_spaces.action.shape[0]))

    def update_obs_rms(self, observation: torch.Tensor) -> None:
        """Update the model's observation statistics (A2C/PPO call this per batch).

        Args:
            observation: ``[T, B, *obs_shape]`` (or fewer leading dims).
        """
        self.bare_model.update_obs_rms(self._to_device(observation))  # type: ignore[attr-defined]


class GaussianPgAgent(_GaussianMixin, BaseAgent):
    """Feed-forward Gaussian policy agent; the model returns ``(mu, log_std, value)``."""

    def __call__(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[DistInfoStd, torch.Tensor]:
        """Training forward pass: ``(DistInfoStd(mean, log_std), value)`` on the device."""
        inputs = self._to_device((observation, prev_action, prev_reward))
        mu, log_std, value = self.model(*inputs)
        return DistInfoStd(mean=mu, log_std=log_std), value

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """Sample actions: ``AgentStep(action [..., A], AgentInfo(dist_info, value))``, CPU."""
        inputs = self._to_device((observation, prev_action, prev_reward))
        mu, log_std, value = self.model(*inputs)
        dist_info = DistInfoStd(mean=mu, log_std=log_std)
        action = self.distribution.sample(dist_info)
        agent_info = AgentInfo(dist_info=dist_info, value=value)
        return AgentStep(action=self._to_cpu(action), agent_info=self._to_cpu(agent_info))

    @torch.no_grad()
    def value(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """State value ``[...]`` on the CPU (the sampler's bootstrap value)."""
        _mu, _log_std, value = self.model(*self._to_device((observation, prev_action, prev_reward)))
        return self._to_cpu(value)


class RecurrentGaussianPgAgentBase(_GaussianMixin, BaseAgent):
    """Recurrent Gaussian policy agent; the model returns ``(mu, log_std, value, rnn_state)``.

    Combine with a recurrent-state mixin (see the two concrete classes below).
    """

    def __call__(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: Any,
    ) -> tuple[DistInfoStd, torch.Tensor, Any]:
        """Training forward pass over ``[T, B]``: ``(DistInfoStd, value, next_rnn_state)``.

        Starts from ``init_rnn_state`` (``[N, B, H]`` fields, or None for zeros); all outputs
        stay on the model's device.
        """
        inputs = self._to_device((observation, prev_action, prev_reward, init_rnn_state))
        mu, log_std, value, next_rnn_state = self.model(*inputs)
        return DistInfoStd(mean=mu, log_std=log_std), value, next_rnn_state

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """Sample actions and advance the recurrent state; outputs on the CPU.

        ``agent_info.prev_rnn_state`` is the state before this step, ``[B, N, H]`` fields.
        """
        prev_rnn_state = self.prev_rnn_state  # type: ignore[attr-defined]
        inputs = self._to_device((observation, prev_action, prev_reward, prev_rnn_state))
        mu, log_std, value, rnn_state = self.model(*inputs)
        dist_info = DistInfoStd(mean=mu, log_std=log_std)
        action = self.distribution.sample(dist_info)
        agent_info = AgentInfoRnn(
            dist_info=dist_info,
            value=value,
            prev_rnn_state=recorded_rnn_state(prev_rnn_state, rnn_state),
        )
        self.advance_rnn_state(rnn_state)  # type: ignore[attr-defined]  # stays on the device
        return AgentStep(action=self._to_cpu(action), agent_info=self._to_cpu(agent_info))

    @torch.no_grad()
    def value(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """State value ``[...]`` on the CPU from the current state, which is not advanced."""
        prev_rnn_state = self.prev_rnn_state  # type: ignore[attr-defined]
        inputs = self._to_device((observation, prev_action, prev_reward, prev_rnn_state))
        _mu, _log_std, value, _rnn_state = self.model(*inputs)
        return self._to_cpu(value)


class RecurrentGaussianPgAgent(RecurrentAgentMixin, RecurrentGaussianPgAgentBase):
    """Recurrent Gaussian policy agent with one recurrent state for all its envs."""


class AlternatingRecurrentGaussianPgAgent(
    AlternatingRecurrentAgentMixin, RecurrentGaussianPgAgentBase
):
    """Recurrent Gaussian policy agent for the alternating samplers (two env groups)."""
