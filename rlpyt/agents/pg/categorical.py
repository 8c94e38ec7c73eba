"""Policy-gradient agents with a categorical policy (discrete actions).

The model maps ``(observation, prev_action one-hot, prev_reward[, init_rnn_state])`` to
``(pi, value[, next_rnn_state])``; the agent one-hot codes ``prev_action`` before the model.
Shapes: ``observation [..., *obs_shape]``, ``prev_action [...]`` integer, ``prev_reward [...]``,
``pi [..., A]``, ``value [...]`` with leading ``[]``, ``[B]`` or ``[T, B]``; rnn state fields
``[N, B, H]``.
"""

from __future__ import annotations

from typing import Any

import torch

from rlpyt.agents.base import (
    AgentStep,
    AlternatingRecurrentAgentMixin,
    BaseAgent,
    RecurrentAgentMixin,
    recorded_rnn_state,
)
from rlpyt.agents.pg.base import AgentInfo, AgentInfoRnn
from rlpyt.distributions.categorical import Categorical, DistInfo


class _CategoricalMixin:
    """Builds the Categorical distribution and one-hot codes ``prev_action`` on the device."""

    def initialize(
        self,
        env_spaces: Any,
        share_memory: bool = False,
        global_B: int = 1,
        env_ranks: list[int] | None = None,
    ) -> None:
        """Build the model (see :meth:`BaseAgent.initialize`) and ``Categorical(dim=n)``."""
        super().initialize(env_spaces, share_memory, global_B, env_ranks)  # type: ignore[misc]
        self.distribution = Categorical(dim=int(env_spaces.action.n))

    def _model_inputs(self, *inputs: Any) -> tuple:
        # Move first, then one-hot: the integer actions are the smaller tensor to move.
        observation, prev_action, *rest = self._to_device(inputs)  # type: ignore[attr-defined]
        return (observation, self.distribution.to_onehot(prev_action), *rest)


class CategoricalPgAgent(_CategoricalMixin, BaseAgent):
    """Feed-forward categorical policy agent; the model returns ``(pi, value)``."""

    def __call__(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[DistInfo, torch.Tensor]:
        """Training forward pass: ``(DistInfo(prob [..., A]), value [...])`` on the device."""
        pi, value = self.model(*self._model_inputs(observation, prev_action, prev_reward))
        return DistInfo(prob=pi), value

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """Sample actions: ``AgentStep(action [...] int64, AgentInfo(dist_info, value))``, CPU."""
        pi, value = self.model(*self._model_inputs(observation, prev_action, prev_reward))
        dist_info = DistInfo(prob=pi)
        action = self.distribution.sample(dist_info)
        agent_info = AgentInfo(dist_info=dist_info, value=value)
        return AgentStep(action=self._to_cpu(action), agent_info=self._to_cpu(agent_info))

    @torch.no_grad()
    def value(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """State value ``[...]`` on the CPU (the sampler's bootstrap value)."""
        _pi, value = self.model(*self._model_inputs(observation, prev_action, prev_reward))
        return self._to_cpu(value)


class RecurrentCategoricalPgAgentBase(_CategoricalMixin, BaseAgent):
    """Recurrent categorical policy agent; the model returns ``(pi, value, next_rnn_state)``.

    Combine with a recurrent-state mixin (see the two concrete classes below).
    """

    def __call__(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: Any,
    ) -> tuple[DistInfo, torch.Tensor, Any]:
        """Training forward pass over ``[T, B]``: ``(DistInfo(prob), value, next_rnn_state)``.

        Starts from ``init_rnn_state`` (``[N, B, H]`` fields, or None for zeros); all outputs
        stay on the model's device.
        """
        inputs = self._model_inputs(observation, prev_action, prev_reward, init_rnn_state)
        pi, value, next_rnn_state = self.model(*inputs)
        return DistInfo(prob=pi), value, next_rnn_state

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """Sample actions and advance the recurrent state; outputs on the CPU.

        ``agent_info.prev_rnn_state`` is the state before this step, ``[B, N, H]`` fields.
        """
        prev_rnn_state = self.prev_rnn_state  # type: ignore[attr-defined]
        inputs = self._model_inputs(observation, prev_action, prev_reward, prev_rnn_state)
        pi, value, rnn_state = self.model(*inputs)
        dist_info = DistInfo(prob=pi)
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
        inputs = self._model_inputs(
            observation,
            prev_action,
            prev_reward,
            self.prev_rnn_state,  # type: ignore[attr-defined]
        )
        _pi, value, _rnn_state = self.model(*inputs)
        return self._to_cpu(value)


class RecurrentCategoricalPgAgent(RecurrentAgentMixin, RecurrentCategoricalPgAgentBase):
    """Recurrent categorical policy agent with one recurrent state for all its envs."""


class AlternatingRecurrentCategoricalPgAgent(
    AlternatingRecurrentAgentMixin, RecurrentCategoricalPgAgentBase
):
    """Recurrent categorical policy agent for the alternating samplers (two env groups)."""
