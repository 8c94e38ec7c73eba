"""SacAgent: tanh-squashed Gaussian policy, twin Q-functions and their target copies.

Box: Agent. Samplers call ``initialize`` and ``step``; the SAC algorithm calls ``q``,
``target_q``, ``pi`` (reparameterized action and its log-likelihood), ``pi_parameters``,
``q1_parameters``, ``q2_parameters``, ``give_min_itr_learn`` and ``update_target``. Paper:
Haarnoja et al. 2018, "Soft Actor-Critic Algorithms and Applications".

Units: actions are ``action_squash * h * tanh(x)`` with ``x`` the pre-squash Gaussian sample
and ``[-h, h]`` the action bounds (see ``rlpyt.agents.qpg.base``). The policy's log std is
clamped to ``[-20, 2]``.

Std by mode: sample mode uses the fixed std ``pretrain_std`` (of the pre-squash Gaussian,
around the model's mean) before ``min_itr_learn`` and the model's log std after; eval mode std
0 (``action = action_squash * h * tanh(mean)``). ``pi`` always uses the model's log std (its
own ``pi_distribution``), in any mode.
``AgentInfo(dist_info)`` with ``DistInfoStd(mean, log_std)`` is what samplers store per step.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import torch

from rlpyt.agents.base import AgentStep, ModelClass
from rlpyt.agents.qpg.base import MinItrLearnMixin, TwinQMixin, model_kwargs_or_hidden
from rlpyt.distributions.gaussian import DistInfoStd, Gaussian
from rlpyt.models.qpg.mlp import PiMlpModel, QofMuMlpModel
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.hyperparams import NONNEGATIVE, POSITIVE, hyperparam

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces

AgentInfo = namedarraytuple("AgentInfo", ["dist_info"])

SAC_HIDDEN_SIZES = [256, 256]
MIN_LOG_STD = -20.0
MAX_LOG_STD = 2.0


class SacAgent(MinItrLearnMixin, TwinQMixin):
    """SAC agent: pi (Gaussian, tanh-squashed), Q1, Q2 and target Q1, Q2.

    ``ModelCls`` (pi, ``(mean, log_std)`` output) is built with ``observation_shape``,
    ``action_size`` plus ``model_kwargs``; ``QModelCls`` (both Qs) the same way plus
    ``q_model_kwargs``. Keywords that leave out ``hidden_sizes`` get ``[256, 256]``.
    ``initial_model_state_dict``: a flat pi state dict, or an agent ``state_dict()``.
    """

    ModelCls = hyperparam(PiMlpModel, "Policy class (pi).")
    QModelCls: type[torch.nn.Module] = hyperparam(
        QofMuMlpModel, "Q-function class (both Qs).", after="ModelCls"
    )
    model_kwargs = hyperparam(valid=model_kwargs_or_hidden(SAC_HIDDEN_SIZES))
    q_model_kwargs: dict[str, Any] = hyperparam(
        None,
        "Q model keywords (both Qs).",
        model_kwargs_or_hidden(SAC_HIDDEN_SIZES),
        after="model_kwargs",
        type=Mapping[str, Any] | None,
    )
    v_model_kwargs: dict[str, Any] = hyperparam(
        None,
        "V model keywords (``sac_v_agent.SacAgent`` builds its V with them; unused here).",
        model_kwargs_or_hidden(SAC_HIDDEN_SIZES),
        after="q_model_kwargs",
        type=Mapping[str, Any] | None,
    )
    action_squash: float = hyperparam(
        1.0, "Scale of the tanh squashing in units of the action bound ``h``.", POSITIVE
    )
    pretrain_std: float = hyperparam(
        0.75, "Pre-squash sampling std before ``min_itr_learn``.", NONNEGATIVE
    )

    q1_model: Any
    q2_model: Any
    target_q1_model: Any
    target_q2_model: Any

    default_hidden_sizes = SAC_HIDDEN_SIZES
    model_names: ClassVar[tuple[str, ...]] = (
        "model",
        "q1_model",
        "q2_model",
        "target_q1_model",
        "target_q2_model",
    )
    trained_names: ClassVar[tuple[str, ...]] = ("model", "q1_model", "q2_model")
    target_sources: ClassVar[Mapping[str, str]] = {
        "target_q1_model": "q1_model",
        "target_q2_model": "q2_model",
    }

    def __post_init__(self) -> None:
        """The policy distribution's place (built in ``make_distribution``)."""
        super().__post_init__()
        self.pi_distribution: Gaussian | None = None

    # ---- construction ---------------------------------------------------------------------

    def model_specs(self) -> dict[str, tuple[ModelClass, Mapping[str, Any]]]:
        """Q1 and Q2, both ``(QModelCls, q_model_kwargs)``."""
        spec = (self.QModelCls, self.q_model_kwargs)
        return {"q1_model": spec, "q2_model": spec}

    def make_distribution(self, env_spaces: EnvSpaces) -> Gaussian:
        """``Gaussian(dim=A, squash=action_squash*h, min_std=e^-20, max_std=e^2)``.

        Also builds ``pi_distribution``, an identical Gaussian that :meth:`pi` uses: its std
        always comes from the model, whatever std the modes set on the sampling distribution.
        """
        action_size = self.check_action_space(env_spaces)
        self.pi_distribution = self._squashed_gaussian(action_size)
        return self._squashed_gaussian(action_size)

    def _squashed_gaussian(self, action_size: int) -> Gaussian:
        return Gaussian(
            dim=action_size,
            squash=self.action_squash * self.action_max,
            min_std=math.exp(MIN_LOG_STD),
            max_std=math.exp(MAX_LOG_STD),
        )

    # ---- sampler-facing -------------------------------------------------------------------

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> AgentStep:
        """``AgentStep(action [B, A], AgentInfo(DistInfoStd(mean, log_std)))`` on the CPU."""
        mean, log_std = self.model(*self._model_inputs((observation, prev_action, prev_reward)))
        dist_info = DistInfoStd(mean=mean, log_std=log_std)
        action = self.distribution.sample(dist_info)
        agent_info = AgentInfo(dist_info=dist_info)
        return AgentStep(action=self._to_cpu(action), agent_info=self._to_cpu(agent_info))

    def sample_mode(self, itr: int) -> None:
        """Std ``pretrain_std`` before ``min_itr_learn``, then the model's."""
        super().sample_mode(itr)
        self.distribution.set_std(self.pretrain_std if itr < self.min_itr_learn else None)

    def eval_mode(self, itr: int) -> None:
        """Deterministic: std 0 (``action = action_squash * h * tanh(mean)``)."""
        super().eval_mode(itr)
        self.distribution.set_std(0.0)

    # ---- training-facing ------------------------------------------------------------------

    def pi(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, Any]:
        """A reparameterized policy sample, its log-likelihood and the policy's outputs.

        Uses the model's (clamped) log std in any mode (``pi_distribution``); the noise comes
        from torch's generator.

        Returns:
            ``(action [*lead, A], log_pi [*lead], DistInfoStd(mean, log_std))`` on the device;
            ``action`` is squashed and carries gradients into pi, ``log_pi`` includes the tanh
            correction.
        """
        mean, log_std = self.model(*self._model_inputs((observation, prev_action, prev_reward)))
        dist_info = DistInfoStd(mean=mean, log_std=log_std)
        if self.pi_distribution is None:
            raise RuntimeError(f"{type(self).__name__}: call initialize() first.")
        action, log_pi = self.pi_distribution.sample_loglikelihood(dist_info)
        return action, log_pi, dist_info

    def pi_parameters(self) -> Iterator[torch.nn.Parameter]:
        """Parameters of pi (the policy optimizer's)."""
        return self.model.parameters()

    def q1_parameters(self) -> Iterator[torch.nn.Parameter]:
        """Parameters of Q1."""
        return self.q1_model.parameters()

    def q2_parameters(self) -> Iterator[torch.nn.Parameter]:
        """Parameters of Q2."""
        return self.q2_model.parameters()
