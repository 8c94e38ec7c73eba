"""SAC: soft actor-critic with twin Q-functions and a learned entropy temperature.

Box: Algorithm (Q-function policy gradient family). Trains a ``SacAgent``: a tanh-squashed
Gaussian policy pi, Q-functions Q1, Q2 and their target copies. Each update, on a replayed
minibatch, computes every loss from the networks and ``alpha`` as they are before the update:

- target: ``y = reward_scale * return_ + (1 - done_n) * target_discount *
  (min(Q1', Q2')(s', a') - alpha * log pi(a'|s'))`` with ``a' ~ pi(s')`` (no gradient);
- Q losses: ``mean(0.5 * (y - Qi(s, a))^2)``, i = 1, 2;
- policy loss: ``mean(alpha * log pi(a~|s) - min(Q1, Q2)(s, a~) - log prior(a~))`` with the
  reparameterized ``a~ ~ pi(s)`` (gradients into pi only; ``log prior`` is 0 for the uniform
  prior, the N(0, 1) log-density of the squashed action for ``action_prior="gaussian"``);
- temperature loss: ``-mean(log_alpha * (log pi(a~|s) + target_entropy))`` (log pi detached).

Then the optimizers step in the order alpha -> pi -> Q1 -> Q2 (each on its own parameters,
so the order does not change the result), and every ``target_update_interval`` updates the
targets move by Polyak averaging. ``alpha = exp(log_alpha)`` is refreshed after its step (the
OptInfo ``alpha`` is the refreshed value, as rlpyt logged it).

Haarnoja et al., 2018, "Soft Actor-Critic Algorithms and Applications".
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import TYPE_CHECKING, ClassVar, cast

import torch

from rlpyt.algos.qpg.base import QpgAlgo
from rlpyt.algos.replay_base import Inputs, Records, agent_inputs, backward_into
from rlpyt.algos.utils import bootstrap_target
from rlpyt.utils.hyperparams import NUMBER, POSITIVE, described, hyperparam

if TYPE_CHECKING:
    from rlpyt.agents.qpg.sac_agent import SacAgent
    from rlpyt.protocols import PiQAgent
    from rlpyt.utils.collections import NamedArrayTupleLike

OptInfo = namedtuple(
    "OptInfo",
    [
        "q1Loss",
        "q2Loss",
        "piLoss",
        "q1GradNorm",
        "q2GradNorm",
        "piGradNorm",
        "q1",
        "q2",
        "piMu",
        "piLogStd",
        "qMeanDiff",
        "alpha",
    ],
)

VALUE_STRIDE = 10  # OptInfo keeps every 10th row's Q values and policy outputs
LOG_2PI = math.log(2 * math.pi)


@described("'uniform' or 'gaussian'")
def check_action_prior(owner: str, name: str, value: object) -> str:
    """``value`` if it is ``"uniform"`` or ``"gaussian"``, else raise naming it."""
    if value not in ("uniform", "gaussian"):
        raise ValueError(
            f"{owner}: {name}={value!r} is unknown; pass 'uniform' or 'gaussian' (a standard "
            "normal density over the squashed action)."
        )
    return cast(str, value)


@described("True")
def check_reparameterize(owner: str, name: str, value: object) -> bool:
    """True, else raise: only the reparameterized policy loss is implemented."""
    if not value:
        raise ValueError(
            f"{owner}: {name}={value!r} is not implemented: the policy loss needs gradients "
            "through the sampled action. Pass reparameterize=True."
        )
    return True


@described("'auto', a finite number or None")
def check_target_entropy(owner: str, name: str, value: object) -> str | float | None:
    """``"auto"``, None, or a finite number, else raise naming it."""
    if value is None or value == "auto":
        return cast(str | None, value)
    if isinstance(value, str):
        raise ValueError(
            f"{owner}: {name}={value!r} is unknown; pass 'auto' (minus the action dimension), "
            "a number, or None (alpha not learned)."
        )
    return cast(float, NUMBER(owner, name, value))


def prior_log_prob(action_prior: str, action: torch.Tensor) -> torch.Tensor | float:
    """``log prior(action)``: 0 (``"uniform"``) or the N(0, I) log-density ``[batch]``."""
    if action_prior == "uniform":
        return 0.0
    return -0.5 * (action.pow(2).sum(dim=-1) + action.shape[-1] * LOG_2PI)


def scaled_target(
    samples: NamedArrayTupleLike, reward_scale: float, target_value: torch.Tensor
) -> torch.Tensor:
    """``reward_scale * return_ + (1 - done_n) * target_discount * target_value``."""
    if reward_scale != 1:
        samples = samples._replace(return_=reward_scale * samples.return_)
    return bootstrap_target(samples, target_value)


class PiQAlgo(QpgAlgo):
    """SAC's and SAC_V's shared part: their keywords, pi, Q1, Q2 and their optimizers.

    Each subclass adds its keywords, its agent and its losses; ``learning_rate`` is pi's and
    every Q's.
    """

    action_prior: str = hyperparam(
        "uniform",
        '``"uniform"`` or ``"gaussian"`` (N(0, 1) log-density of the squashed action, added '
        "to the policy objective).",
        check_action_prior,
        after="initial_optim_state_dict",
    )
    reward_scale: float = hyperparam(
        1, "The n-step return is multiplied by this in the target.", NUMBER, after="action_prior"
    )
    reparameterize: bool = hyperparam(
        True,
        "Must be True (only the reparameterized policy loss is implemented).",
        check_reparameterize,
        after="reward_scale",
    )

    # Built by build_optimizers:
    _pi_params: list[torch.Tensor]
    _q1_params: list[torch.Tensor]
    _q2_params: list[torch.Tensor]
    _q_params: list[torch.Tensor]
    pi_optimizer: torch.optim.Optimizer
    q1_optimizer: torch.optim.Optimizer
    q2_optimizer: torch.optim.Optimizer
    agent: PiQAgent  # set by initialize (SAC's SoftQAgent, SAC_V's SoftVAgent)
    # The optimizers saved and loaded under these names (rlpyt's keys).
    optimizer_names: ClassVar[tuple[str, ...]] = ("pi_optimizer", "q1_optimizer", "q2_optimizer")

    def build_optimizers(self) -> None:
        """pi's, Q1's and Q2's parameter lists and optimizers at ``learning_rate``."""
        agent = self.agent
        self._pi_params = list(agent.pi_parameters())
        self._q1_params = list(agent.q1_parameters())
        self._q2_params = list(agent.q2_parameters())
        self._q_params = self._q1_params + self._q2_params
        self.pi_optimizer = self.make_optimizer(self._pi_params, self.learning_rate)
        self.q1_optimizer = self.make_optimizer(self._q1_params, self.learning_rate)
        self.q2_optimizer = self.make_optimizer(self._q2_params, self.learning_rate)

    def twin_q_losses(
        self, samples: NamedArrayTupleLike, inputs: Inputs
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(q1, q2, q1_loss, q2_loss)``: both Qs of the replayed action and their losses.

        Each loss is ``mean(0.5 * (y - Q)^2)`` with ``y`` from :meth:`targets`; ``q1, q2``
        are ``[batch]`` with gradients.
        """
        y = self.targets(samples)
        q1, q2 = self.agent.q(*inputs, samples.action)
        return q1, q2, 0.5 * (y - q1).pow(2).mean(), 0.5 * (y - q2).pow(2).mean()

    def step_pi_q_and_record(
        self,
        losses: tuple[torch.Tensor, ...],
        values: tuple[torch.Tensor, ...],
        records: Records,
    ) -> None:
        """Step pi, Q1, Q2 (in this order; gradients already in) and record their OptInfo.

        Args:
            losses: ``(q1_loss, q2_loss, pi_loss)``.
            values: ``(q1, q2, pi_mean, pi_log_std)`` detached, ``[batch]`` and ``[batch, A]``.
            records: OptInfo tensors, appended to.
        """
        pi_grad_norm = self.step_optimizer(self.pi_optimizer, self._pi_params)
        q1_grad_norm = self.step_optimizer(self.q1_optimizer, self._q1_params)
        q2_grad_norm = self.step_optimizer(self.q2_optimizer, self._q2_params)
        q1_loss, q2_loss, pi_loss = losses
        q1, q2, pi_mean, pi_log_std = values
        record = dict(
            q1Loss=q1_loss.detach(),
            q2Loss=q2_loss.detach(),
            piLoss=pi_loss.detach(),
            q1GradNorm=q1_grad_norm,
            q2GradNorm=q2_grad_norm,
            piGradNorm=pi_grad_norm,
            q1=q1[::VALUE_STRIDE],
            q2=q2[::VALUE_STRIDE],
            piMu=pi_mean[::VALUE_STRIDE],
            piLogStd=pi_log_std[::VALUE_STRIDE],
            qMeanDiff=(q1 - q2).abs().mean(),
        )
        for field, value in record.items():
            records[field].append(value)

    def optim_state_dict(self) -> dict:
        """Each optimizer's state dict under its name (``optimizer_names``)."""
        return {name: getattr(self, name).state_dict() for name in self.optimizer_names}

    def load_optim_state_dict(self, state_dict: dict) -> None:
        """Load :meth:`optim_state_dict`'s output."""
        for name in self.optimizer_names:
            getattr(self, name).load_state_dict(state_dict[name])


class SAC(PiQAlgo):
    """SAC with rlpyt's keywords and defaults.

    Keywords not declared here are :class:`PiQAlgo`'s and :class:`QpgAlgo`'s
    (``learning_rate``: pi's, Q1's, Q2's and log alpha's). ``target_entropy="auto"`` is minus
    the action dimension, for entropy in units of the action bound ``h`` (``-A + A log h`` in
    env units).

    Raises:
        ValueError, TypeError: a number out of range, an unknown ``action_prior`` or
            ``target_entropy``, or ``reparameterize=False``.
    """

    fixed_alpha: float | None = hyperparam(
        None,
        "None: learn alpha; a number > 0: use this temperature throughout.",
        POSITIVE,
        after="learning_rate",
    )
    target_entropy: str | float | None = hyperparam(
        "auto",
        '``"auto"``, a number, or None: alpha not learned (stays 1 unless ``fixed_alpha``).',
        check_target_entropy,
        after="reward_scale",
    )

    OptInfoCls = OptInfo
    agent: SacAgent  # set by initialize

    def build_optimizers(self) -> None:
        """Build the pi, Q1, Q2 and log-alpha optimizers; set alpha."""
        super().build_optimizers()
        start = 0.0 if self.fixed_alpha is None else math.log(self.fixed_alpha)
        # A leaf tensor made on the agent's device (what Parameter would wrap, without a
        # second tensor object standing for it).
        self._log_alpha = torch.full((1,), start, device=self.device, requires_grad=True)
        self.alpha_optimizer = self.make_optimizer([self._log_alpha], self.learning_rate)
        self._alpha = self._log_alpha.detach().exp()
        if self.target_entropy == "auto":
            # Minus the action dimension, for entropy measured in units of the action bound h
            # (as Stable-Baselines3, which acts in [-1, 1] and rescales): the log density of an
            # env-unit action is lower by log h per dim, so the target is too (rlpyt: h = 1).
            size = self.action_size()
            action_max = float(self.agent.action_max)
            self._target_entropy: float | None = -size + size * math.log(action_max)
        else:
            self._target_entropy = cast(float | None, self.target_entropy)  # not "auto"
        self.learn_alpha = self.fixed_alpha is None and self._target_entropy is not None
        self._pi_alpha_params = self._pi_params + [self._log_alpha]

    def action_size(self) -> int:
        """Action vector length, from the agent's action space."""
        return int(math.prod(self.agent.env_spaces.action.shape))

    @property
    def alpha(self) -> float:
        """The current entropy temperature (a Python float, for inspection)."""
        return float(self._alpha)

    # ---- training -------------------------------------------------------------------------

    def update(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None, records: Records
    ) -> None:
        """One step of alpha, pi, Q1 and Q2 (losses all from the pre-update values).

        Args:
            samples: A replayed minibatch (on the agent's device).
            target: Unused (SAC's target changes with pi and alpha every update).
            records: OptInfo tensors, appended to.
        """
        losses, values = self.loss(samples)
        q1_loss, q2_loss, pi_loss, alpha_loss = losses
        # The policy loss reaches the Q networks too: its gradients go into pi only (and the
        # temperature loss's into log alpha; it touches nothing else). Q1 and Q2 losses share
        # no parameters, so one backward pass serves both.
        if alpha_loss is None:
            backward_into(pi_loss, self._pi_params)
        else:
            backward_into(pi_loss + alpha_loss, self._pi_alpha_params)
        backward_into(q1_loss + q2_loss, self._q_params)
        if alpha_loss is not None:
            self.alpha_optimizer.step()
            self._alpha = self._log_alpha.detach().exp()
        self.step_pi_q_and_record((q1_loss, q2_loss, pi_loss), values, records)
        records["alpha"].append(self._alpha)
        self.update_counter += 1
        self.update_target_if_due()

    def loss(self, samples: NamedArrayTupleLike) -> tuple[tuple, tuple]:
        """SAC's losses on a minibatch (formulas: module docstring).

        Returns:
            ``((q1_loss, q2_loss, pi_loss, alpha_loss or None), (q1, q2, pi_mean,
            pi_log_std))``, the values detached: ``q1, q2 [batch]``, ``pi_* [batch, A]``.
        """
        agent = self.agent
        inputs = agent_inputs(samples)
        q1, q2, q1_loss, q2_loss = self.twin_q_losses(samples, inputs)
        new_action, log_pi, dist_info = agent.pi(*inputs)
        new_q1, new_q2 = agent.q(*inputs, new_action)
        pi_losses = self._alpha * log_pi - torch.min(new_q1, new_q2)
        pi_loss = (pi_losses - prior_log_prob(self.action_prior, new_action)).mean()
        alpha_loss = None
        if self.learn_alpha:
            entropy_gap = (log_pi.detach() + cast(float, self._target_entropy)).mean()
            alpha_loss = -(self._log_alpha * entropy_gap).sum()
        values = (q1.detach(), q2.detach(), dist_info.mean.detach(), dist_info.log_std.detach())
        return (q1_loss, q2_loss, pi_loss, alpha_loss), values

    @torch.no_grad()
    def targets(self, samples: NamedArrayTupleLike) -> torch.Tensor:
        """``y``, with ``V' = min(Q1', Q2')(s', a') - alpha * log pi(a'|s')``, ``a' ~ pi(s')``."""
        agent = self.agent
        target_inputs: Inputs = samples.target_inputs
        next_action, next_log_pi, _ = agent.pi(*target_inputs)
        target_q1, target_q2 = agent.target_q(*target_inputs, next_action)
        target_value = torch.min(target_q1, target_q2) - self._alpha * next_log_pi
        return scaled_target(samples, self.reward_scale, target_value)

    # ---- snapshots ------------------------------------------------------------------------

    def optim_state_dict(self) -> dict:
        """The four optimizer states and ``log_alpha`` (a float), as rlpyt."""
        return dict(
            super().optim_state_dict(),
            alpha_optimizer=self.alpha_optimizer.state_dict(),
            log_alpha=float(self._log_alpha.detach()),
        )

    def load_optim_state_dict(self, state_dict: dict) -> None:
        """Load :meth:`optim_state_dict`'s output (alpha follows ``log_alpha``)."""
        super().load_optim_state_dict(state_dict)
        if state_dict.get("alpha_optimizer") is not None:
            self.alpha_optimizer.load_state_dict(state_dict["alpha_optimizer"])
        with torch.no_grad():
            self._log_alpha.fill_(float(state_dict["log_alpha"]))
        self._alpha = self._log_alpha.detach().exp()
