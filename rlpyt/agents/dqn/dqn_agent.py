"""DqnAgent: a Q-network, its target copy and epsilon-greedy action selection.

Box: Agent. Samplers call ``initialize`` and ``step``; the DQN algorithm calls the agent itself
(``agent(*agent_inputs) -> q``, differentiable, on the model's device), ``target(...)`` for
bootstrap values, ``update_target(tau)`` every ``target_update_interval`` updates, and
``set_epsilon_itr_min_max`` (see ``rlpyt.agents.dqn.epsilon_greedy``).

Invariants: ``model`` and ``target_model`` are two instances of the same class and keywords;
only ``model`` is optimized (``parameters()``), put in shared memory for sampler workers, or
wrapped for data-parallel training; the target stays private to the training process (on the
training device). ``state_dict()`` is ``{"model": ..., "target": ...}`` and
``load_state_dict`` takes exactly that back; a flat model state dict is also accepted, the target
then being a copy of the model. The agent only declares its target (``model_names``,
``target_sources``, ``state_dict_keys``): ``rlpyt.agents.base.BaseAgent`` builds, moves, saves,
loads and updates it.

The model maps ``(observation, prev_action one-hot [..., A], prev_reward)`` to ``q [..., A]``
(leading dims ``[]``, ``[B]`` or ``[T, B]``); ``AgentInfo(q)`` is what samplers store per step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import torch

from rlpyt.agents.base import AgentStep, check_discrete_action_space, model_reads_prev_action
from rlpyt.agents.dqn.epsilon_greedy import EpsilonGreedyAgentMixin
from rlpyt.distributions.epsilon_greedy import EpsilonGreedy
from rlpyt.utils.collections import namedarraytuple

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces

AgentInfo = namedarraytuple("AgentInfo", ["q"])


class DqnAgent(EpsilonGreedyAgentMixin):
    """Deep-Q agent for discrete actions: greedy on the model's Q-values, epsilon exploration.

    ``ModelCls`` None: ``default_model_cls`` of the concrete agent (e.g. ``AtariDqnModel`` for
    ``AtariDqnAgent``). ``initial_model_state_dict``: an agent ``state_dict()`` (``{"model",
    "target"}``) or a flat model state dict (the target then copies it).
    """

    agent_info_cls: ClassVar[Any] = AgentInfo
    # The target: built, moved, saved ("target") and updated by BaseAgent.
    target_model: Any
    model_names: ClassVar[tuple[str, ...]] = ("model", "target_model")
    target_sources: ClassVar[Mapping[str, str]] = {"target_model": "model"}
    state_dict_keys: ClassVar[Mapping[str, str]] = {"target_model": "target"}

    def __call__(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """Training forward pass: the model's output (``q [..., A]``) on its device."""
        return self.model(*self._model_inputs((observation, prev_action, prev_reward)))

    @torch.no_grad()
    def target(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """The target model's output (``q [..., A]``) on the device, without gradients."""
        return self.target_model(*self._model_inputs((observation, prev_action, prev_reward)))

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """Epsilon-greedy actions: ``AgentStep(action [B], AgentInfo(q [B, A]))`` on the CPU."""
        output = self._to_cpu(
            self.model(*self._model_inputs((observation, prev_action, prev_reward)))
        )
        action = self.distribution.sample(output)
        return AgentStep(action=action, agent_info=self.agent_info_cls(output))

    # ---- construction ---------------------------------------------------------------------

    def make_distribution(self, env_spaces: EnvSpaces) -> EpsilonGreedy:
        """``EpsilonGreedy(dim=n)`` over the ``n`` discrete actions.

        Raises:
            ValueError: the action space is not one discrete choice ``0..n-1``.
        """
        check_discrete_action_space(env_spaces.action, type(self).__name__)
        return EpsilonGreedy(epsilon=self.epsilon, dim=int(env_spaces.action.n))

    def _model_inputs(self, inputs: tuple) -> tuple:
        # Move first, then one-hot: the integer actions are the smaller tensor to move.
        observation, prev_action, prev_reward = self._to_device(inputs)
        if not model_reads_prev_action(self.model):
            return observation, prev_action, prev_reward  # the model ignores it: no one-hot
        return observation, self.distribution.to_onehot(prev_action), prev_reward
