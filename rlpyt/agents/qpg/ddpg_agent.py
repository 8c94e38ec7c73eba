"""DdpgAgent: deterministic policy mu(s), Q-function Q(s, a), target copies of both.

Box: Agent. Samplers call ``initialize`` and ``step`` (Gaussian exploration noise around mu,
clipped to the action bounds); the DDPG algorithm calls ``q``, ``q_at_mu``,
``target_q_at_mu``, ``mu_parameters``/``q_parameters`` for its two optimizers and
``update_target``. Paper: Lillicrap et al. 2016, "Continuous control with deep reinforcement
learning".

Units: the actions are in env units, bounds ``[-h, h]`` (see ``rlpyt.agents.qpg.base``). mu is
``h * tanh(...)``; the exploration std is ``action_std * h`` and the noise clip
``action_noise_clip * h``, so with ``h = 1`` these are rlpyt's numbers.

Shapes: ``observation [*lead, *obs_shape]``, ``action [*lead, A]``, ``q [*lead]`` with
``*lead`` one of ``[]``, ``[B]``, ``[T, B]``. Training outputs stay on the agent's device;
``step`` returns CPU tensors. ``AgentInfo(mu)`` is what samplers store per step.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import torch

from rlpyt.agents.base import AgentStep, ModelClass
from rlpyt.agents.qpg.base import QpgAgent, model_kwargs_or_hidden
from rlpyt.distributions.gaussian import DistInfo, Gaussian
from rlpyt.models.qpg.mlp import MuMlpModel, QofMuMlpModel
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.hyperparams import NONNEGATIVE, POSITIVE, hyperparam

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces

AgentInfo = namedarraytuple("AgentInfo", ["mu"])

DDPG_HIDDEN_SIZES = [400, 300]


class DdpgAgent(QpgAgent):
    """DDPG agent: acts with ``mu(s)`` plus Gaussian noise; eval mode acts with ``mu(s)``.

    ``ModelCls`` (mu) is built with ``observation_shape``, ``action_size`` and ``output_max=h``
    plus ``model_kwargs``; ``QModelCls`` with ``observation_shape``, ``action_size`` plus
    ``q_model_kwargs``. Keywords that leave out ``hidden_sizes`` get ``[400, 300]``;
    ``model_kwargs`` may set ``output_max`` (a value other than ``h`` is used, with one
    warning). ``initial_model_state_dict``: a flat mu state dict (the target mu copies it), or
    an agent ``state_dict()``.
    """

    ModelCls = hyperparam(MuMlpModel, "Policy class (mu).")
    QModelCls: type[torch.nn.Module] = hyperparam(
        QofMuMlpModel, "Q-function class.", after="ModelCls"
    )
    model_kwargs = hyperparam(valid=model_kwargs_or_hidden(DDPG_HIDDEN_SIZES))
    q_model_kwargs: dict[str, Any] = hyperparam(
        None,
        "Q model keywords.",
        model_kwargs_or_hidden(DDPG_HIDDEN_SIZES),
        after="model_kwargs",
        type=Mapping[str, Any] | None,
    )
    initial_q_model_state_dict: Mapping[str, Any] | None = hyperparam(
        None,
        "A flat Q state dict (the target Q copies it).",
        after="initial_model_state_dict",
    )
    action_std: float = hyperparam(
        0.1, "Exploration std in units of the action bound ``h``.", NONNEGATIVE
    )
    action_noise_clip: float | None = hyperparam(
        None, "Bound of the exploration noise in units of ``h``; None: unbounded.", POSITIVE
    )

    q_model: Any
    target_model: Any
    target_q_model: Any

    default_hidden_sizes = DDPG_HIDDEN_SIZES
    model_names: ClassVar[tuple[str, ...]] = ("model", "q_model", "target_model", "target_q_model")
    trained_names: ClassVar[tuple[str, ...]] = ("model", "q_model")
    target_sources: ClassVar[Mapping[str, str]] = {
        "target_model": "model",
        "target_q_model": "q_model",
    }

    # ---- construction ---------------------------------------------------------------------

    def model_specs(self) -> dict[str, tuple[ModelClass, Mapping[str, Any]]]:
        """The Q model: ``{"q_model": (QModelCls, q_model_kwargs)}``."""
        return {"q_model": (self.QModelCls, self.q_model_kwargs)}

    def derived_model_kwargs(self, name: str) -> dict[str, Any]:
        """``output_max=h`` for mu: ``model_kwargs`` may set another bound (warned once)."""
        derived = super().derived_model_kwargs(name)
        if name == "model":
            derived["output_max"] = self.action_max
        return derived

    def make_distribution(self, env_spaces: EnvSpaces) -> Gaussian:
        """``Gaussian(dim=A, std=action_std*h, noise_clip=action_noise_clip*h, clip=h)``."""
        action_size = self.check_action_space(env_spaces)
        h = self.action_max
        return Gaussian(
            dim=action_size,
            std=self.action_std * h,
            noise_clip=None if self.action_noise_clip is None else self.action_noise_clip * h,
            clip=h,
        )

    def load_initial_state_dicts(self) -> None:
        """Load ``initial_q_model_state_dict`` (its target copies it)."""
        self.load_named("q_model", self.initial_q_model_state_dict)

    # ---- sampler-facing -------------------------------------------------------------------

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """``AgentStep(action [B, A], AgentInfo(mu [B, A]))`` on the CPU; action clipped to h."""
        mu = self.model(*self._model_inputs((observation, prev_action, prev_reward)))
        action = self.distribution.sample(DistInfo(mean=mu))
        return AgentStep(action=self._to_cpu(action), agent_info=self._to_cpu(AgentInfo(mu=mu)))

    def sample_mode(self, itr: int) -> None:
        """Exploration: std ``action_std * h``."""
        super().sample_mode(itr)
        self.distribution.set_std(self.action_std * self.action_max)

    def eval_mode(self, itr: int) -> None:
        """Deterministic: std 0 (the action is mu)."""
        super().eval_mode(itr)
        self.distribution.set_std(0.0)

    # ---- training-facing ------------------------------------------------------------------

    def q(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        action: torch.Tensor,
    ) -> torch.Tensor:
        """``Q(s, action) [*lead]`` on the device, with gradients into Q."""
        return self.q_model(*self._model_inputs((observation, prev_action, prev_reward, action)))

    def q_at_mu(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """``Q(s, mu(s)) [*lead]`` on the device; gradients flow into mu (and Q's params)."""
        inputs = self._model_inputs((observation, prev_action, prev_reward))
        return self.q_model(*inputs, self.model(*inputs))

    @torch.no_grad()
    def target_q_at_mu(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """``Q'(s, mu'(s)) [*lead]`` of the target models, on the device, without gradients."""
        inputs = self._model_inputs((observation, prev_action, prev_reward))
        return self.target_q_model(*inputs, self.target_model(*inputs))

    def mu_parameters(self) -> Iterator[torch.nn.Parameter]:
        """Parameters of mu (the policy optimizer's)."""
        return self.model.parameters()

    def q_parameters(self) -> Iterator[torch.nn.Parameter]:
        """Parameters of Q (the Q optimizer's)."""
        return self.q_model.parameters()
