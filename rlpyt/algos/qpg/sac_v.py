"""SAC_V: rlpyt's first soft actor-critic, with a state-value function (deprecated in rlpyt).

Box: Algorithm (Q-function policy gradient family). Trains
``rlpyt.agents.qpg.sac_v_agent.SacAgent``: a tanh-squashed Gaussian policy pi, Q1, Q2, a value
function V and its target copy V'. The temperature is fixed at 1 (``reward_scale`` plays its
part). Each update computes every loss from the networks as they are before the update:

- Q losses: ``mean(0.5 * (y - Qi(s, a))^2)`` with ``y = reward_scale * return_ + (1 - done_n)
  * target_discount * V'(s')``;
- V loss: ``mean(0.5 * (V(s) - v_target)^2)``, ``v_target = min(Q1, Q2)(s, a~) - log pi(a~|s)
  + log prior(a~)`` (no gradient), ``a~ ~ pi(s)`` reparameterized;
- policy loss: ``mean(log pi(a~|s) - min(Q1, Q2)(s, a~) - log prior(a~)
  + policy_output_regularization * mean_A(0.5 * mean^2 + 0.5 * log_std^2))``. rlpyt left the
  prior out of this loss (it is in SAC's); it is here so that both optimize the same objective
  (no difference with the default uniform prior).

Optimizers step in rlpyt's order V -> pi -> Q1 -> Q2 (each on its own parameters), then every
``target_update_interval`` updates V' moves by Polyak averaging.

Haarnoja et al., 2018, "Soft Actor-Critic: Off-Policy Maximum Entropy Deep Reinforcement
Learning with a Stochastic Actor".
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

import torch

from rlpyt.algos.qpg.sac import VALUE_STRIDE, PiQAlgo, prior_log_prob, scaled_target
from rlpyt.algos.replay_base import Records, agent_inputs, backward_into
from rlpyt.utils.hyperparams import NONNEGATIVE, hyperparam

if TYPE_CHECKING:
    from rlpyt.agents.qpg.sac_v_agent import SacAgent
    from rlpyt.utils.collections import NamedArrayTupleLike

OptInfo = namedtuple(
    "OptInfo",
    [
        "q1Loss",
        "q2Loss",
        "vLoss",
        "piLoss",
        "q1GradNorm",
        "q2GradNorm",
        "vGradNorm",
        "piGradNorm",
        "q1",
        "q2",
        "v",
        "piMu",
        "piLogStd",
        "qMeanDiff",
    ],
)


class SAC_V(PiQAlgo):  # noqa: N801 (rlpyt's class name)
    """SAC with a V-function, rlpyt's keywords and defaults.

    Keywords not declared here are :class:`rlpyt.algos.qpg.sac.PiQAlgo`'s and
    ``QpgAlgo``'s, as in :class:`rlpyt.algos.qpg.sac.SAC` (which adds ``fixed_alpha`` and
    ``target_entropy``; this class has neither).

    Raises:
        ValueError, TypeError: a number out of range, an unknown ``action_prior``, or
            ``reparameterize=False``.
    """

    policy_output_regularization: float = hyperparam(
        0.001,
        "Weight of the penalty on the policy's mean and log std.",
        NONNEGATIVE,
        after="clip_grad_norm",
    )

    OptInfoCls = OptInfo
    agent: SacAgent  # set by initialize
    optimizer_names = (*PiQAlgo.optimizer_names, "v_optimizer")  # saved, loaded (rlpyt's keys)

    def build_optimizers(self) -> None:
        """Build the pi, Q1, Q2 and V optimizers."""
        super().build_optimizers()
        self._v_params: list[torch.Tensor] = list(self.agent.v_parameters())
        self._pi_v_params = self._pi_params + self._v_params
        self.v_optimizer = self.make_optimizer(self._v_params, self.learning_rate)

    # ---- training -------------------------------------------------------------------------

    def update(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None, records: Records
    ) -> None:
        """One step of V, pi, Q1 and Q2, all losses from the pre-update values; no ``target``."""
        losses, values = self.loss(samples)
        q1_loss, q2_loss, v_loss, pi_loss = losses
        # The V loss's target and the policy loss share no parameters with each other's
        # networks (v_target is detached, the policy loss has no V), so one pass serves both.
        backward_into(v_loss + pi_loss, self._pi_v_params)
        backward_into(q1_loss + q2_loss, self._q_params)
        records["vGradNorm"].append(self.step_optimizer(self.v_optimizer, self._v_params))
        q1, q2, v, pi_mean, pi_log_std = values
        self.step_pi_q_and_record(
            (q1_loss, q2_loss, pi_loss), (q1, q2, pi_mean, pi_log_std), records
        )
        records["vLoss"].append(v_loss.detach())
        records["v"].append(v[::VALUE_STRIDE])
        self.update_counter += 1
        self.update_target_if_due()

    def loss(self, samples: NamedArrayTupleLike) -> tuple[tuple, tuple]:
        """SAC_V's losses on a minibatch (formulas: module docstring).

        Returns:
            ``((q1_loss, q2_loss, v_loss, pi_loss), (q1, q2, v, pi_mean, pi_log_std))``, the
            values detached.
        """
        agent = self.agent
        inputs = agent_inputs(samples)
        q1, q2, q1_loss, q2_loss = self.twin_q_losses(samples, inputs)
        v = agent.v(*inputs)
        new_action, log_pi, dist_info = agent.pi(*inputs)
        new_q1, new_q2 = agent.q(*inputs, new_action)
        min_q = torch.min(new_q1, new_q2)
        prior = prior_log_prob(self.action_prior, new_action)
        v_target = (min_q - log_pi + prior).detach()
        v_loss = 0.5 * (v - v_target).pow(2).mean()
        pi_losses = log_pi - min_q - prior
        if self.policy_output_regularization > 0:
            mean, log_std = dist_info.mean, dist_info.log_std
            penalty = (0.5 * mean.pow(2) + 0.5 * log_std.pow(2)).mean(dim=-1)
            pi_losses = pi_losses + self.policy_output_regularization * penalty
        pi_loss = pi_losses.mean()
        values = (
            q1.detach(),
            q2.detach(),
            v.detach(),
            dist_info.mean.detach(),
            dist_info.log_std.detach(),
        )
        return (q1_loss, q2_loss, v_loss, pi_loss), values

    @torch.no_grad()
    def targets(self, samples: NamedArrayTupleLike) -> torch.Tensor:
        """``y`` with ``V'`` the target V-function at the bootstrap state."""
        target_value = self.agent.target_v(*samples.target_inputs)
        return scaled_target(samples, self.reward_scale, target_value)
