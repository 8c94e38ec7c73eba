"""Td3Agent: DDPG's agent with twin Q-functions and target-policy smoothing.

Box: Agent. The TD3 algorithm calls ``q`` (both Qs), ``q_at_mu`` (Q1 only, the policy loss),
``target_q_at_mu`` (both target Qs at the smoothed target action), ``give_min_itr_learn`` and
``update_target``. Paper: Fujimoto et al. 2018, "Addressing Function Approximation Error in
Actor-Critic Methods".

Units: in units of the action bound ``h`` (see ``rlpyt.agents.qpg.base``), the sampling std is
``pretrain_std * h`` before ``min_itr_learn`` and ``action_std * h`` after; the smoothing noise
of the target action has std ``target_noise_std * h``, is clipped to
``target_noise_clip * h``, and the smoothed action is clipped to ``[-h, h]``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import torch

from rlpyt.agents.base import ModelClass
from rlpyt.agents.qpg.base import MinItrLearnMixin, TwinQMixin
from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.distributions.gaussian import DistInfo, Gaussian
from rlpyt.utils.hyperparams import FIRST, NONNEGATIVE, POSITIVE, hyperparam

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces


class Td3Agent(MinItrLearnMixin, TwinQMixin, DdpgAgent):  # type: ignore[misc]  # twin q
    """TD3 agent: mu, twin Q1/Q2 and target copies of all three.

    Its own keywords come first; the others are :class:`DdpgAgent`'s (``QModelCls`` and
    ``q_model_kwargs`` for both Qs).
    """

    pretrain_std: float = hyperparam(
        0.5, "Sampling std before ``min_itr_learn``, in units of ``h``.", NONNEGATIVE, after=FIRST
    )
    target_noise_std: float = hyperparam(
        0.2,
        "Std of the target-policy smoothing noise, in units of ``h``.",
        NONNEGATIVE,
        after="pretrain_std",
    )
    target_noise_clip: float = hyperparam(
        0.5,
        "Bound of the smoothing noise, in units of ``h``.",
        POSITIVE,
        after="target_noise_std",
    )
    initial_q2_model_state_dict: Mapping[str, Any] | None = hyperparam(
        None,
        "A flat Q2 state dict (the target Q2 copies it).",
        after="target_noise_clip",
    )

    q2_model: Any
    target_q2_model: Any

    twin_q_names: ClassVar[tuple[str, str]] = ("q_model", "q2_model")  # rlpyt's names
    model_names: ClassVar[tuple[str, ...]] = (
        "model",
        "q_model",
        "q2_model",
        "target_model",
        "target_q_model",
        "target_q2_model",
    )
    trained_names: ClassVar[tuple[str, ...]] = ("model", "q_model", "q2_model")
    target_sources: ClassVar[Mapping[str, str]] = {
        "target_model": "model",
        "target_q_model": "q_model",
        "target_q2_model": "q2_model",
    }

    def __post_init__(self) -> None:
        """The smoothing distribution's place (built in ``make_distribution``)."""
        super().__post_init__()
        self.target_distribution: Gaussian | None = None

    def model_specs(self) -> dict[str, tuple[ModelClass, Mapping[str, Any]]]:
        """Q1 and Q2, both ``(QModelCls, q_model_kwargs)``."""
        spec = (self.QModelCls, self.q_model_kwargs)
        return {"q_model": spec, "q2_model": spec}

    def make_distribution(self, env_spaces: EnvSpaces) -> Gaussian:
        """DDPG's sampling distribution; also builds ``target_distribution`` (smoothing)."""
        distribution = super().make_distribution(env_spaces)
        h = self.action_max
        self.target_distribution = Gaussian(
            dim=distribution.dim,
            std=self.target_noise_std * h,
            noise_clip=self.target_noise_clip * h,
            clip=h,
        )
        return distribution

    def load_initial_state_dicts(self) -> None:
        """Load ``initial_q_model_state_dict`` and ``initial_q2_model_state_dict``."""
        super().load_initial_state_dicts()
        self.load_named("q2_model", self.initial_q2_model_state_dict)

    def sample_mode(self, itr: int) -> None:
        """Std ``pretrain_std * h`` before ``min_itr_learn``, else ``action_std * h``."""
        super().sample_mode(itr)
        std = self.pretrain_std if itr < self.min_itr_learn else self.action_std
        self.distribution.set_std(std * self.action_max)

    @torch.no_grad()
    def target_q_at_mu(  # type: ignore[override]  # twin target Qs
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Both target Qs at the smoothed target action, each ``[*lead]``, without gradients.

        The action is ``clip(mu'(s) + clip(noise, +-target_noise_clip*h), +-h)`` with noise of
        std ``target_noise_std * h`` (one draw, shared by both Qs).
        """
        inputs = self._model_inputs((observation, prev_action, prev_reward))
        target_mu = self.target_model(*inputs)
        if self.target_distribution is None:
            raise RuntimeError(f"{type(self).__name__}: call initialize() first.")
        target_action = self.target_distribution.sample(DistInfo(mean=target_mu))
        return self.twin_q(("target_q_model", "target_q2_model"), (*inputs, target_action))

    def q_parameters(self) -> Iterator[torch.nn.Parameter]:
        """Parameters of Q1 and Q2 (the Q optimizer's)."""
        yield from self.q_model.parameters()
        yield from self.q2_model.parameters()
