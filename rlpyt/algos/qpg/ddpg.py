"""DDPG: deep deterministic policy gradient from a replay buffer.

Box: Algorithm (Q-function policy gradient family). Trains a ``DdpgAgent``: a deterministic
policy mu and a Q-function, each with a target copy. Each update (on a replayed minibatch):

1. Q step: ``y = clamp(return_ + (1 - done_n) * target_discount * Q'(s', mu'(s')),
   -q_target_clip, q_target_clip)`` from the target networks at the bootstrap state; loss
   ``mean(0.5 * (y - Q(s, a))^2)``; Adam at ``q_learning_rate``.
2. ``update_counter += 1``; every ``policy_update_interval`` updates a mu step on the just
   updated Q: loss ``-mean(Q(s, mu(s)))`` (gradients into mu only); Adam at ``learning_rate``.
3. Every ``target_update_interval`` updates: Polyak update of both targets with
   ``target_update_tau``.

Set-up, replay and the update loop: ``rlpyt.algos.qpg.base``. TD3 (``td3.py``) changes the target.

Lillicrap et al., 2016, "Continuous control with deep reinforcement learning".
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

import torch

from rlpyt.algos.qpg.base import QpgAlgo
from rlpyt.algos.replay_base import Records, agent_inputs, backward_into
from rlpyt.algos.utils import bootstrap_target
from rlpyt.utils.hyperparams import COUNT, POSITIVE, POSITIVE_OR_INF, hyperparam

if TYPE_CHECKING:
    from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
    from rlpyt.utils.collections import NamedArrayTupleLike

OptInfo = namedtuple("OptInfo", ["muLoss", "qLoss", "muGradNorm", "qGradNorm"])


class DDPG(QpgAlgo):
    """DDPG with rlpyt's keywords and defaults.

    Keywords not declared here are :class:`QpgAlgo`'s (``learning_rate``: mu's;
    ``initial_optim_state_dict``: ``{"q": ..., "mu": ...}``).

    Raises:
        ValueError, TypeError: a number out of range (the message names keyword and range).
    """

    batch_size = hyperparam(64)
    replay_ratio = hyperparam(64)
    target_update_tau = hyperparam(0.01)
    policy_update_interval: int = hyperparam(
        1, "Updates between mu updates.", COUNT, after="target_update_interval"
    )
    learning_rate = hyperparam(1e-4)
    q_learning_rate: float = hyperparam(1e-3, "Q's learning rate.", POSITIVE, after="learning_rate")
    clip_grad_norm = hyperparam(1e8)
    q_target_clip: float = hyperparam(
        1e6,
        "Targets are clamped to ``[-q_target_clip, q_target_clip]``.",
        POSITIVE_OR_INF,
        after="clip_grad_norm",
    )

    OptInfoCls = OptInfo
    shares_targets = True  # the target networks change only at target updates
    agent: DdpgAgent  # set by initialize

    @property
    def mu_learning_rate_used(self) -> float:
        """The learning rate of mu's optimizer (DDPG: ``learning_rate``)."""
        return self.learning_rate

    def build_optimizers(self) -> None:
        """Build mu's and Q's optimizers."""
        self._mu_params = list(self.agent.mu_parameters())
        self._q_params = list(self.agent.q_parameters())
        self.mu_optimizer = self.make_optimizer(self._mu_params, self.mu_learning_rate_used)
        self.q_optimizer = self.make_optimizer(self._q_params, self.q_learning_rate)

    # ---- training -------------------------------------------------------------------------

    def update(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None, records: Records
    ) -> None:
        """Q step; then, when due, the mu step and the target update (module docstring).

        Args:
            samples: A replayed minibatch (on the agent's device).
            target: Its precomputed :meth:`targets` (None: computed here).
            records: OptInfo tensors, appended to (``muLoss``/``muGradNorm`` only on mu steps).
        """
        q_loss = self.q_loss(samples, target)
        backward_into(q_loss, self._q_params)
        records["qGradNorm"].append(self.step_optimizer(self.q_optimizer, self._q_params))
        records["qLoss"].append(q_loss.detach())
        self.update_counter += 1
        if self.update_counter % self.policy_update_interval == 0:
            mu_loss = self.mu_loss(samples)
            backward_into(mu_loss, self._mu_params)
            records["muGradNorm"].append(self.step_optimizer(self.mu_optimizer, self._mu_params))
            records["muLoss"].append(mu_loss.detach())
        self.update_target_if_due()

    def q_loss(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``mean(0.5 * (y - Q(s, a))^2)`` over the minibatch."""
        y = self.targets(samples) if target is None else target
        q = self.agent.q(*agent_inputs(samples), samples.action)
        return 0.5 * (y - q).pow(2).mean()

    def mu_loss(self, samples: NamedArrayTupleLike) -> torch.Tensor:
        """``-mean(Q(s, mu(s)))``: ascend the Q-function along the policy's action."""
        return -self.agent.q_at_mu(*agent_inputs(samples)).mean()

    @torch.no_grad()
    def targets(self, samples: NamedArrayTupleLike) -> torch.Tensor:
        """``y``, clamped to ``±q_target_clip``, with ``V' = Q'(s', mu'(s'))``."""
        y = bootstrap_target(samples, self.target_value(samples.target_inputs))
        return y.clamp(-self.q_target_clip, self.q_target_clip)

    def target_value(self, target_inputs: NamedArrayTupleLike) -> torch.Tensor:
        """``V'(s')`` from the target networks: ``Q'(s', mu'(s'))``."""
        return self.agent.target_q_at_mu(*target_inputs)

    # ---- snapshots ------------------------------------------------------------------------

    def optim_state_dict(self) -> dict:
        """``{"q": Q optimizer state, "mu": mu optimizer state}`` (rlpyt's layout)."""
        return {"q": self.q_optimizer.state_dict(), "mu": self.mu_optimizer.state_dict()}

    def load_optim_state_dict(self, state_dict: dict) -> None:
        """Load :meth:`optim_state_dict`'s output."""
        self.q_optimizer.load_state_dict(state_dict["q"])
        self.mu_optimizer.load_state_dict(state_dict["mu"])
