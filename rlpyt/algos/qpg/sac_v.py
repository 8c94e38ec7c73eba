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
from typing import TYPE_CHECKING, Any

import torch

from rlpyt.algos.qpg.sac import (
    VALUE_STRIDE,
    PiQAlgo,
    build_pi_q_optimizers,
    check_sac_keywords,
    prior_log_prob,
    scaled_target,
    step_pi_q_and_record,
)
from rlpyt.algos.replay_base import Records, agent_inputs, backward_into
from rlpyt.utils.keywords import init_arguments

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

    Keywords not listed below are as in :class:`rlpyt.algos.qpg.sac.SAC` (which has
    ``fixed_alpha`` and ``target_entropy``; this class has neither), with the same defaults.

    Args:
        policy_output_regularization: Weight of the penalty on the policy's mean and log std.

    Raises:
        ValueError, TypeError: a number out of range, an unknown ``action_prior``, or
            ``reparameterize=False``.
    """

    OptInfoCls = OptInfo
    opt_info_fields = tuple(OptInfo._fields)
    policy_output_regularization: float
    agent: SacAgent  # set by initialize

    def __init__(  # noqa: PLR0913, PLR0917 (rlpyt's keywords, positional in its order)
        self,
        discount: float = 0.99,
        batch_size: int = 256,
        min_steps_learn: int = int(1e4),
        replay_size: int = int(1e6),
        replay_ratio: float = 256,
        target_update_tau: float = 0.005,
        target_update_interval: int = 1,
        learning_rate: float = 3e-4,
        OptimCls: type[torch.optim.Optimizer] = torch.optim.Adam,  # noqa: N803
        optim_kwargs: dict[str, Any] | None = None,
        initial_optim_state_dict: dict[str, Any] | None = None,
        action_prior: str = "uniform",
        reward_scale: float = 1,
        reparameterize: bool = True,
        clip_grad_norm: float = 1e9,
        policy_output_regularization: float = 0.001,
        n_step_return: int = 1,
        updates_per_sync: int = 1,
        bootstrap_timelimit: bool = True,
        ReplayBufferCls: type | None = None,  # noqa: N803
        snapshot_replay: bool = False,
    ):
        check_sac_keywords("SAC_V", action_prior, reparameterize)
        self.store_keywords(**init_arguments(locals()))

    def optim_initialize(self, rank: int = 0) -> None:
        """Build the pi, Q1, Q2 and V optimizers; load ``initial_optim_state_dict``."""
        self.rank = rank
        self.own_optim_model()  # asynchronous runs: a policy apart from the shared one
        build_pi_q_optimizers(self)
        self._v_params: list[torch.Tensor] = list(self.agent.v_parameters())
        self._pi_v_params = self._pi_params + self._v_params
        self.v_optimizer = self.make_optimizer(self._v_params, self.learning_rate)
        if self.initial_optim_state_dict is not None:
            self.load_optim_state_dict(self.initial_optim_state_dict)

    # ---- training -------------------------------------------------------------------------

    def update(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None, records: Records
    ) -> None:
        """One step of V, pi, Q1 and Q2 (losses all from the pre-update values).

        Args:
            samples: A replayed minibatch (on the agent's device).
            target: Unused (computed here).
            records: OptInfo tensors, appended to.
        """
        losses, values = self.loss(samples)
        q1_loss, q2_loss, v_loss, pi_loss = losses
        # The V loss's target and the policy loss share no parameters with each other's
        # networks (v_target is detached, the policy loss has no V), so one pass serves both.
        backward_into(v_loss + pi_loss, self._pi_v_params)
        backward_into(q1_loss + q2_loss, self._q_params)
        records["vGradNorm"].append(self.step_optimizer(self.v_optimizer, self._v_params))
        q1, q2, v, pi_mean, pi_log_std = values
        step_pi_q_and_record(
            self, (q1_loss, q2_loss, pi_loss), (q1, q2, pi_mean, pi_log_std), records
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
        y = self.targets(samples)
        q1, q2 = agent.q(*inputs, samples.action)
        q1_loss = 0.5 * (y - q1).pow(2).mean()
        q2_loss = 0.5 * (y - q2).pow(2).mean()
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

    # ---- snapshots ------------------------------------------------------------------------

    def optim_state_dict(self) -> dict:
        """The four optimizer states (rlpyt's keys)."""
        return dict(
            pi_optimizer=self.pi_optimizer.state_dict(),
            q1_optimizer=self.q1_optimizer.state_dict(),
            q2_optimizer=self.q2_optimizer.state_dict(),
            v_optimizer=self.v_optimizer.state_dict(),
        )

    def load_optim_state_dict(self, state_dict: dict) -> None:
        """Load :meth:`optim_state_dict`'s output."""
        self.pi_optimizer.load_state_dict(state_dict["pi_optimizer"])
        self.q1_optimizer.load_state_dict(state_dict["q1_optimizer"])
        self.q2_optimizer.load_state_dict(state_dict["q2_optimizer"])
        self.v_optimizer.load_state_dict(state_dict["v_optimizer"])
