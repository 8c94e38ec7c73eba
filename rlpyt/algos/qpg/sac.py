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

Then the optimizers step in rlpyt's order alpha -> pi -> Q1 -> Q2 (each on its own parameters,
so the order does not change the result), and every ``target_update_interval`` updates the
targets move by Polyak averaging. ``alpha = exp(log_alpha)`` is refreshed after its step (the
OptInfo ``alpha`` is the refreshed value, as rlpyt logged it).

Haarnoja et al., 2018, "Soft Actor-Critic Algorithms and Applications".
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import TYPE_CHECKING, Any, cast

import torch

from rlpyt.algos.qpg.base import QpgAlgo
from rlpyt.algos.replay_base import Inputs, Records, agent_inputs, backward_into
from rlpyt.algos.utils import bootstrap_target
from rlpyt.utils.checks import check_number
from rlpyt.utils.keywords import init_arguments

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

VALUE_STRIDE = 10  # OptInfo keeps every 10th row's Q values and policy outputs (rlpyt's choice)
LOG_2PI = math.log(2 * math.pi)


def check_sac_keywords(owner: str, action_prior: str, reparameterize: bool) -> None:
    """Check the non-numeric keywords SAC and SAC_V share.

    Raises:
        ValueError: an unknown ``action_prior``, or ``reparameterize=False``.
    """
    if action_prior not in ("uniform", "gaussian"):
        raise ValueError(
            f"{owner}: action_prior={action_prior!r} is unknown; pass 'uniform' or "
            "'gaussian' (a standard normal density over the squashed action)."
        )
    if not reparameterize:
        raise ValueError(
            f"{owner}: reparameterize=False is not implemented: the policy loss needs "
            "gradients through the sampled action (rlpyt's SAC supported only "
            "reparameterize=True in practice). Pass reparameterize=True."
        )


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
    """SAC's and SAC_V's shared part: pi, Q1, Q2, their parameter lists and optimizers.

    The helpers below (``build_pi_q_optimizers``, ``step_pi_q_and_record``) take one; each
    subclass declares its keywords, its agent and its losses.
    """

    action_prior: str
    reward_scale: float
    # Built by build_pi_q_optimizers:
    _pi_params: list[torch.Tensor]
    _q1_params: list[torch.Tensor]
    _q2_params: list[torch.Tensor]
    _q_params: list[torch.Tensor]
    pi_optimizer: torch.optim.Optimizer
    q1_optimizer: torch.optim.Optimizer
    q2_optimizer: torch.optim.Optimizer
    agent: PiQAgent  # set by initialize (SAC's SoftQAgent, SAC_V's SoftVAgent)


def build_pi_q_optimizers(algo: PiQAlgo) -> None:
    """pi's, Q1's and Q2's parameter lists and optimizers at ``learning_rate`` (SAC, SAC_V)."""
    agent = algo.agent
    algo._pi_params = list(agent.pi_parameters())
    algo._q1_params = list(agent.q1_parameters())
    algo._q2_params = list(agent.q2_parameters())
    algo._q_params = algo._q1_params + algo._q2_params
    algo.pi_optimizer = algo.make_optimizer(algo._pi_params, algo.learning_rate)
    algo.q1_optimizer = algo.make_optimizer(algo._q1_params, algo.learning_rate)
    algo.q2_optimizer = algo.make_optimizer(algo._q2_params, algo.learning_rate)


def step_pi_q_and_record(
    algo: PiQAlgo,
    losses: tuple[torch.Tensor, ...],
    values: tuple[torch.Tensor, ...],
    records: Records,
) -> None:
    """Step pi, Q1, Q2 (rlpyt's order; gradients already in) and record their OptInfo.

    Args:
        algo: SAC or SAC_V, its optimizers built by :func:`build_pi_q_optimizers`.
        losses: ``(q1_loss, q2_loss, pi_loss)``.
        values: ``(q1, q2, pi_mean, pi_log_std)`` detached, ``[batch]`` and ``[batch, A]``.
        records: OptInfo tensors, appended to.
    """
    pi_grad_norm = algo.step_optimizer(algo.pi_optimizer, algo._pi_params)
    q1_grad_norm = algo.step_optimizer(algo.q1_optimizer, algo._q1_params)
    q2_grad_norm = algo.step_optimizer(algo.q2_optimizer, algo._q2_params)
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


class SAC(PiQAlgo):
    """SAC with rlpyt's keywords and defaults.

    Args:
        discount: Discount gamma.
        batch_size: Replayed transitions per gradient step.
        min_steps_learn: Env steps (over all envs) before the first gradient step.
        replay_size: Replay capacity in transitions.
        replay_ratio: Replayed transitions per sampled transition: each iteration takes
            ``max(1, round(replay_ratio * T * B / batch_size))`` gradient steps (never 0,
            rlpyt bug 20).
        target_update_tau: Polyak weight of the target updates.
        target_update_interval: Updates between target updates.
        learning_rate: Learning rate of pi, Q1, Q2 and log alpha.
        fixed_alpha: None: learn alpha; a number > 0: use this temperature throughout.
        OptimCls: Torch optimizer class (one per network and one for log alpha).
        optim_kwargs: Extra optimizer keywords.
        initial_optim_state_dict: :meth:`optim_state_dict` output to start from.
        action_prior: ``"uniform"`` or ``"gaussian"`` (N(0, 1) log-density of the squashed
            action, added to the policy objective).
        reward_scale: The n-step return is multiplied by this in the target.
        target_entropy: ``"auto"``: minus the action dimension (entropy in units of the
            action bound ``h``: ``-A + A log h`` in env units); a number; or None: alpha
            not learned (stays 1 unless ``fixed_alpha``).
        reparameterize: Must be True (only the reparameterized policy loss is implemented).
        clip_grad_norm: Max gradient norm, per network.
        n_step_return: Rewards summed before bootstrapping.
        updates_per_sync: Gradient steps between parameter publications (asynchronous
            runners).
        bootstrap_timelimit: A time limit bootstraps the target; False: every done is a
            terminal.
        ReplayBufferCls: Replay class to use instead of the chosen one.
        snapshot_replay: Put the replay in every snapshot, so a resumed run continues exactly.

    Raises:
        ValueError, TypeError: a number out of range, an unknown ``action_prior`` or
            ``target_entropy``, or ``reparameterize=False``.
    """

    OptInfoCls = OptInfo
    opt_info_fields = tuple(OptInfo._fields)
    fixed_alpha: float | None
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
        fixed_alpha: float | None = None,
        OptimCls: type[torch.optim.Optimizer] = torch.optim.Adam,  # noqa: N803
        optim_kwargs: dict[str, Any] | None = None,
        initial_optim_state_dict: dict[str, Any] | None = None,
        action_prior: str = "uniform",
        reward_scale: float = 1,
        target_entropy: str | float | None = "auto",
        reparameterize: bool = True,
        clip_grad_norm: float = 1e9,
        n_step_return: int = 1,
        updates_per_sync: int = 1,
        bootstrap_timelimit: bool = True,
        ReplayBufferCls: type | None = None,  # noqa: N803
        snapshot_replay: bool = False,
    ):
        check_sac_keywords("SAC", action_prior, reparameterize)
        keywords = init_arguments(locals())
        target_entropy = keywords.pop("target_entropy")
        self.store_keywords(**keywords)
        if target_entropy is not None and target_entropy != "auto":
            if isinstance(target_entropy, str):
                raise ValueError(
                    f"SAC: target_entropy={target_entropy!r} is unknown; pass 'auto' (minus "
                    "the action dimension), a number, or None (alpha not learned)."
                )
            target_entropy = check_number("SAC", "target_entropy", target_entropy)
        self.target_entropy = target_entropy

    def optim_initialize(self, rank: int = 0) -> None:
        """Build the pi, Q1, Q2 and log-alpha optimizers; set alpha; load initial state."""
        self.rank = rank
        self.own_optim_model()  # asynchronous runs: a policy apart from the shared one
        build_pi_q_optimizers(self)
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
            action_max = float(getattr(self.agent, "action_max", 1.0))  # agents without h
            self._target_entropy: float | None = -size + size * math.log(action_max)
        else:
            self._target_entropy = cast(float | None, self.target_entropy)  # not "auto"
        self.learn_alpha = self.fixed_alpha is None and self._target_entropy is not None
        self._pi_alpha_params = self._pi_params + [self._log_alpha]
        if self.initial_optim_state_dict is not None:
            self.load_optim_state_dict(self.initial_optim_state_dict)

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
        step_pi_q_and_record(self, (q1_loss, q2_loss, pi_loss), values, records)
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
        y = self.targets(samples)
        q1, q2 = agent.q(*inputs, samples.action)
        q1_loss = 0.5 * (y - q1).pow(2).mean()
        q2_loss = 0.5 * (y - q2).pow(2).mean()
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
            pi_optimizer=self.pi_optimizer.state_dict(),
            q1_optimizer=self.q1_optimizer.state_dict(),
            q2_optimizer=self.q2_optimizer.state_dict(),
            alpha_optimizer=self.alpha_optimizer.state_dict(),
            log_alpha=float(self._log_alpha.detach()),
        )

    def load_optim_state_dict(self, state_dict: dict) -> None:
        """Load :meth:`optim_state_dict`'s output (alpha follows ``log_alpha``)."""
        self.pi_optimizer.load_state_dict(state_dict["pi_optimizer"])
        self.q1_optimizer.load_state_dict(state_dict["q1_optimizer"])
        self.q2_optimizer.load_state_dict(state_dict["q2_optimizer"])
        if state_dict.get("alpha_optimizer") is not None:
            self.alpha_optimizer.load_state_dict(state_dict["alpha_optimizer"])
        with torch.no_grad():
            self._log_alpha.fill_(float(state_dict["log_alpha"]))
        self._alpha = self._log_alpha.detach().exp()
