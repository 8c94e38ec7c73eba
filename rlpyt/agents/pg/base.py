"""The policy-gradient agent skeleton (A2C, PPO) and its ``agent_info`` records.

Every PG agent is one of two skeletons, :class:`PgAgent` (feed-forward) or
:class:`RecurrentPgAgent` (recurrent: combined with ``RecurrentAgentMixin``, or with
``AlternatingRecurrentAgentMixin`` for the alternating samplers), parameterised by

- a distribution mixin (``CategoricalPgMixin`` in ``categorical.py``, ``GaussianPgMixin`` in
  ``gaussian.py``): makes the distribution for the env spaces (``make_distribution``), names the
  ``DistInfoCls`` the model's outputs fill, and may transform the model inputs
  (``_model_inputs``, e.g. one-hot);
- an env-kind function (``rlpyt.agents.model_keywords``, named by the concrete agents of
  ``atari.py``, ``mujoco.py``, ``classic.py`` in ``env_model_kwargs_fn``): the model keywords
  that depend on the env spaces;
- ``default_model_cls``, the model class built when ``ModelCls`` is None.

The model maps ``(observation, prev_action, prev_reward[, init_rnn_state])`` to
``(*dist_params, value[, next_rnn_state])``, where ``dist_params`` are the fields of
``DistInfoCls`` in order (``prob [..., A]``; or ``mean, log_std [..., A]``) and ``value [...]``,
with leading dims ``[]``, ``[B]`` or ``[T, B]``; rnn state fields are ``[N, B, H]``.

Records (what samplers store per step): ``AgentInfo(dist_info, value [T, B])``; recurrent agents
add ``prev_rnn_state`` (``[T, B, N, H]`` fields in the samples buffer): the state before the step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import torch

from rlpyt.agents.base import AgentStep, BaseAgent
from rlpyt.agents.recurrent import recorded_rnn_state
from rlpyt.utils.collections import namedarraytuple

AgentInfo = namedarraytuple("AgentInfo", ["dist_info", "value"])
AgentInfoRnn = namedarraytuple("AgentInfoRnn", ["dist_info", "value", "prev_rnn_state"])


class PgAgent(BaseAgent):
    """Feed-forward policy-gradient agent; the model returns ``(*dist_params, value)``.

    Combine with a distribution mixin (see the module docstring).
    """

    DistInfoCls: ClassVar[Callable[..., Any]]  # from the distribution mixin

    def __call__(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[Any, torch.Tensor]:
        """Training forward pass: ``(dist_info, value [...])`` on the model's device."""
        inputs = self._model_inputs((observation, prev_action, prev_reward))
        *dist_params, value = self.model(*inputs)
        return self.DistInfoCls(*dist_params), value

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """Sample actions: ``AgentStep(action, AgentInfo(dist_info, value))`` on the CPU."""
        inputs = self._model_inputs((observation, prev_action, prev_reward))
        *dist_params, value = self.model(*inputs)
        dist_info = self.DistInfoCls(*dist_params)
        action = self.distribution.sample(dist_info)
        agent_info = AgentInfo(dist_info=dist_info, value=value)
        return AgentStep(action=self._to_cpu(action), agent_info=self._to_cpu(agent_info))

    @torch.no_grad()
    def value(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """State value ``[...]`` on the CPU (the sampler's bootstrap value)."""
        *_dist_params, value = self.model(
            *self._model_inputs((observation, prev_action, prev_reward))
        )
        return self._to_cpu(value)


class RecurrentPgAgent(BaseAgent):
    """Recurrent policy-gradient agent; the model returns ``(*dist_params, value, rnn_state)``.

    Combine with a distribution mixin and a recurrent-state mixin (``RecurrentAgentMixin`` or
    ``AlternatingRecurrentAgentMixin``), which provides ``prev_rnn_state`` and
    ``advance_rnn_state``.
    """

    DistInfoCls: ClassVar[Callable[..., Any]]  # from the distribution mixin
    # From the recurrent-state mixin, which precedes this class in every agent's bases:
    prev_rnn_state: Any
    advance_rnn_state: Callable[[Any], None]

    def __call__(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: tuple[torch.Tensor, ...] | None,
    ) -> tuple[Any, torch.Tensor, Any]:
        """Training forward pass over ``[T, B]``: ``(dist_info, value, next_rnn_state)``.

        Starts from ``init_rnn_state`` (``[N, B, H]`` fields, or None for zeros); all outputs
        stay on the model's device.
        """
        inputs = self._model_inputs((observation, prev_action, prev_reward, init_rnn_state))
        *dist_params, value, next_rnn_state = self.model(*inputs)
        return self.DistInfoCls(*dist_params), value, next_rnn_state

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """Sample actions and advance the recurrent state; outputs on the CPU.

        ``agent_info.prev_rnn_state`` is the state before this step, ``[B, N, H]`` fields.
        """
        prev_rnn_state = self.prev_rnn_state
        inputs = self._model_inputs((observation, prev_action, prev_reward, prev_rnn_state))
        *dist_params, value, rnn_state = self.model(*inputs)
        dist_info = self.DistInfoCls(*dist_params)
        action = self.distribution.sample(dist_info)
        agent_info = AgentInfoRnn(
            dist_info=dist_info,
            value=value,
            prev_rnn_state=recorded_rnn_state(prev_rnn_state, rnn_state),
        )
        self.advance_rnn_state(rnn_state)  # stays on the device
        return AgentStep(action=self._to_cpu(action), agent_info=self._to_cpu(agent_info))

    @torch.no_grad()
    def value(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """State value ``[...]`` on the CPU from the current state, which is not advanced."""
        prev_rnn_state = self.prev_rnn_state
        inputs = self._model_inputs((observation, prev_action, prev_reward, prev_rnn_state))
        *_dist_params, value, _rnn_state = self.model(*inputs)
        return self._to_cpu(value)
