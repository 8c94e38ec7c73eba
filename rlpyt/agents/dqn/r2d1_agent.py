"""R2D1 agents: a recurrent Q-network, its target copy and epsilon-greedy actions.

Box: Agent. Samplers call ``initialize`` and ``step`` (one step of all their envs, carrying
the recurrent state between calls); ``R2D1`` calls the agent itself over replayed sequences,
``agent(observation, prev_action, prev_reward, init_rnn_state) -> (q, rnn_state)``
(differentiable, on the model's device), ``target(...)`` likewise without gradients, and
``update_target()``. Everything else (epsilon schedule, target handling, ``state_dict`` =
``{"model", "target"}``, devices) is ``DqnAgent``'s.

Recurrent state: fields ``[N, B, H]`` (cuDNN layout; ``N = 1`` for the one-layer models).
``step`` records the state each step started from in ``agent_info.prev_rnn_state`` as
``[B, N, H]`` fields, so a samples buffer holds ``[T, B, N, H]``; ``R2D1`` stores those rows
in its sequence replay every ``store_rnn_state_interval`` steps, and each replayed sequence
starts from the state the sampler's agent had at its first step.

Composition: :class:`R2d1AgentBase` (the forward passes) with ``RecurrentAgentMixin``
(:class:`R2d1Agent`, one state for all envs) or ``AlternatingRecurrentAgentMixin``
(:class:`R2d1AlternatingAgent`, two env groups, for ``AlternatingSampler``); env-family
functions give the model keywords (``AtariR2d1Agent`` in ``atari/atari_r2d1_agent.py``,
``ClassicR2d1Agent`` in ``classic.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import torch

from rlpyt.agents.base import AgentStep
from rlpyt.agents.dqn.dqn_agent import DqnAgent
from rlpyt.agents.recurrent import (
    AlternatingRecurrentAgentMixin,
    RecurrentAgentMixin,
    recorded_rnn_state,
)
from rlpyt.utils.collections import namedarraytuple

AgentInfo = namedarraytuple("AgentInfo", ["q", "prev_rnn_state"])


class R2d1AgentBase(DqnAgent):
    """Recurrent deep-Q agent; the model returns ``(q [..., A], next_rnn_state)``.

    Combine with a recurrent-state mixin (see the module docstring).
    """

    agent_info_cls: ClassVar[Any] = AgentInfo
    # From the recurrent-state mixin, which precedes this class in every agent's bases:
    prev_rnn_state: Any
    advance_rnn_state: Callable[[Any], None]

    def __call__(  # type: ignore[override]
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: tuple[torch.Tensor, ...] | None,
    ) -> tuple[torch.Tensor, Any]:
        """Training forward pass over ``[T, B]`` from ``init_rnn_state`` (None: zeros).

        Args:
            observation: ``[T, B, *obs_shape]``.
            prev_action: ``[T, B]`` integer actions (one-hot coded here).
            prev_reward: ``[T, B]``.
            init_rnn_state: ``RnnState`` with ``[N, B, H]`` fields, or None.

        Returns:
            ``q [T, B, A]`` and the state after the last step, on the model's device.
        """
        inputs = self._model_inputs((observation, prev_action, prev_reward, init_rnn_state))
        return self.model(*inputs)

    @torch.no_grad()
    def target(  # type: ignore[override]
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: tuple[torch.Tensor, ...] | None,
    ) -> tuple[torch.Tensor, Any]:
        """As :meth:`__call__` with the target model, without gradients."""
        inputs = self._model_inputs((observation, prev_action, prev_reward, init_rnn_state))
        return self.target_model(*inputs)

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """Epsilon-greedy actions from the carried state, which then advances.

        Returns:
            ``AgentStep(action [B], AgentInfo(q [B, A], prev_rnn_state))`` on the CPU, where
            ``prev_rnn_state`` is the state before this step (``[B, N, H]`` fields).
        """
        prev_rnn_state = self.prev_rnn_state
        inputs = self._model_inputs((observation, prev_action, prev_reward, prev_rnn_state))
        q, rnn_state = self.model(*inputs)
        q = self._to_cpu(q)
        action = self.distribution.sample(q)
        agent_info = AgentInfo(
            q=q, prev_rnn_state=self._to_cpu(recorded_rnn_state(prev_rnn_state, rnn_state))
        )
        self.advance_rnn_state(rnn_state)  # stays on the device
        return AgentStep(action=action, agent_info=agent_info)

    def _model_inputs(self, inputs: tuple) -> tuple:
        # Move first, then one-hot: the integer actions are the smaller tensor to move.
        observation, prev_action, prev_reward, rnn_state = self._to_device(inputs)
        return observation, self.distribution.to_onehot(prev_action), prev_reward, rnn_state


class R2d1Agent(RecurrentAgentMixin, R2d1AgentBase):
    """R2D1 agent with one recurrent state for all its envs (serial, CPU and GPU samplers).

    ``ModelCls`` is required (no default model); ``AtariR2d1Agent`` and ``ClassicR2d1Agent``
    name theirs.
    """


class R2d1AlternatingAgent(AlternatingRecurrentAgentMixin, R2d1AgentBase):
    """R2D1 agent for the alternating samplers: one recurrent state per env group."""
