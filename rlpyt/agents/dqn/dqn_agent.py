"""DqnAgent: a Q-network, its target copy and epsilon-greedy action selection.

Box: Agent. Samplers call ``initialize`` and ``step``; the DQN algorithm calls the agent itself
(``agent(*agent_inputs) -> q``, differentiable, on the model's device), ``target(...)`` for
bootstrap values, ``update_target(tau)`` every ``target_update_interval`` updates, and
``set_epsilon_itr_min_max`` (see ``rlpyt.agents.dqn.epsilon_greedy``).

Invariants: ``model`` and ``target_model`` are two instances of the same class and keywords;
only ``model`` is optimized (``parameters()``), put in shared memory for sampler workers, or
wrapped for data-parallel training; the target stays private to the training process (on the
training device). ``state_dict()`` is ``{"model": ..., "target": ...}`` and
``load_state_dict`` takes exactly that back (rlpyt's took only a flat model dict); a flat model
state dict is also accepted, the target then being a copy of the model.

The model maps ``(observation, prev_action one-hot [..., A], prev_reward)`` to ``q [..., A]``
(leading dims ``[]``, ``[B]`` or ``[T, B]``); ``AgentInfo(q)`` is what samplers store per step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import torch

from rlpyt.agents.base import AgentStep, BaseAgent, model_reads_prev_action, model_state_dict_of
from rlpyt.agents.dqn.epsilon_greedy import EpsilonGreedyAgentMixin
from rlpyt.agents.pg.categorical import check_discrete_action_space
from rlpyt.distributions.epsilon_greedy import EpsilonGreedy
from rlpyt.models.utils import strip_ddp_state_dict, update_state_dict
from rlpyt.utils.collections import namedarraytuple

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces

AgentInfo = namedarraytuple("AgentInfo", ["q"])


class DqnAgent(EpsilonGreedyAgentMixin, BaseAgent):
    """Deep-Q agent for discrete actions: greedy on the model's Q-values, epsilon exploration.

    Args:
        ModelCls: Q-model class (None: ``default_model_cls`` of the concrete agent, e.g.
            ``AtariDqnModel`` for ``AtariDqnAgent``).
        model_kwargs: Extra model keywords (e.g. ``dict(dueling=True)``).
        initial_model_state_dict: Loaded at :meth:`initialize`: an agent ``state_dict()``
            (``{"model", "target"}``) or a flat model state dict (the target then copies it).
        eps_init: Sample-mode epsilon before ``eps_itr_min``.
        eps_final: Sample-mode epsilon after ``eps_itr_max``.
        eps_final_min: Smallest per-env final epsilon (None: one epsilon for all envs).
        eps_itr_min: Iteration where epsilon starts to decay.
        eps_itr_max: Iteration where the decay ends.
        eps_eval: Eval-mode epsilon.
    """

    agent_info_cls: ClassVar[Any] = AgentInfo

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] | None = None,  # noqa: N803
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
        eps_init: float = 1,
        eps_final: float = 0.01,
        eps_final_min: float | None = None,
        eps_itr_min: int = 50,
        eps_itr_max: int = 1000,
        eps_eval: float = 0.001,
    ):
        self.target_model: Any = None
        super().__init__(
            ModelCls=ModelCls,
            model_kwargs=model_kwargs,
            initial_model_state_dict=initial_model_state_dict,
            eps_init=eps_init,
            eps_final=eps_final,
            eps_final_min=eps_final_min,
            eps_itr_min=eps_itr_min,
            eps_itr_max=eps_itr_max,
            eps_eval=eps_eval,
        )

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
        if not model_reads_prev_action(getattr(self, "model", None)):
            return observation, prev_action, prev_reward  # the model ignores it: no one-hot
        return observation, self.distribution.to_onehot(prev_action), prev_reward

    def initialize(
        self,
        env_spaces: EnvSpaces,
        share_memory: bool = False,
        global_B: int = 1,  # noqa: N803
        env_ranks: list[int] | None = None,
    ) -> None:
        """Build the distribution, the model (see ``BaseAgent``) and the target model.

        The target starts as a copy of the model, or from the ``"target"`` entry of
        ``initial_model_state_dict`` when it has one.
        """
        super().initialize(env_spaces, share_memory, global_B=global_B, env_ranks=env_ranks)
        self.target_model = self._build_model()
        self._load_target(self.initial_model_state_dict)

    def _load_target(self, state_dict: Mapping[str, Any] | None) -> None:
        target = None if state_dict is None else state_dict.get("target")
        source = target if isinstance(target, Mapping) else self.bare_model.state_dict()
        self.target_model.load_state_dict(strip_ddp_state_dict(source))

    def to_device(self, cuda_idx: int | None = None) -> None:
        """Move the model (see ``BaseAgent.to_device``) and the target to GPU ``cuda_idx``."""
        super().to_device(cuda_idx)
        if cuda_idx is not None:
            self.target_model.to(self.device)

    # ---- training-facing ------------------------------------------------------------------

    def update_target(self, tau: float = 1) -> None:
        """Target <- model (``tau == 1``), or Polyak ``tau * model + (1 - tau) * target``."""
        update_state_dict(self.target_model, self.bare_model.state_dict(), tau)

    def state_dict(self) -> dict[str, Any]:
        """``{"model": model state dict, "target": target state dict}`` (no DDP prefixes)."""
        return dict(
            model=strip_ddp_state_dict(self.model.state_dict()),
            target=self.target_model.state_dict(),
        )

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load :meth:`state_dict`'s output, or a flat model state dict (target = copy)."""
        self.bare_model.load_state_dict(model_state_dict_of(state_dict))
        self._load_target(state_dict)
