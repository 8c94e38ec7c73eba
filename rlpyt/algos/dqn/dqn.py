"""DQN: deep Q-learning from a replay buffer (double, dueling, prioritized, n-step).

Box: Algorithm (deep Q family). The runner calls ``initialize`` once, after the sampler built
the agent; it builds the replay buffer from the sampler's example step and the optimizer.
Every iteration ``optimize_agent(itr, samples)`` appends the sampler's ``[T, B]`` batch to the
replay and, from ``min_itr_learn`` on, takes ``updates_per_optimize`` gradient steps on
minibatches drawn from it. CategoricalDQN (``cat_dqn.py``) changes only the loss.

The target of a replayed step is ``y = return_ + (1 - done_n) * target_discount * Q'``, where
the replay gives the n-step return, whether the window met a terminal, and the discount to the
bootstrap state (``discount ** n``, or fewer steps where a time limit cut the window: a
``timeout`` bootstraps instead of ending the return; see docs/replays.md). ``Q'`` is the target
network's value of the bootstrap state: its max, or with ``double_dqn`` its value at the online
network's argmax. Building the replay and appending batches: ``rlpyt.algos.replay_mixin``.

Mnih et al., 2015, "Human-level control through deep reinforcement learning" (DQN); van
Hasselt et al., 2016, "Deep Reinforcement Learning with Double Q-learning"; Wang et al., 2016,
"Dueling Network Architectures for Deep Reinforcement Learning" (in the agent's model); Schaul et
al., 2016, "Prioritized Experience Replay"; n-step returns as in Hessel et al., 2018, "Rainbow".
"""

from __future__ import annotations

import inspect
from collections import namedtuple
from typing import TYPE_CHECKING, Any, ClassVar

import torch
import torch.nn.functional as F

from rlpyt.algos.replay_base import HostCopy, Records, ReplayRlAlgorithm, backward_into
from rlpyt.algos.utils import bootstrap_target  # also imported from here (its first home)
from rlpyt.replays.prioritized import PrioritizedReplay
from rlpyt.utils.hyperparams import NONNEGATIVE, POSITIVE, STEPS, hyperparam
from rlpyt.utils.tensor import select_at_indexes

if TYPE_CHECKING:
    from rlpyt.agents.dqn.dqn_agent import DqnAgent
    from rlpyt.utils.collections import NamedArrayTupleLike
    from rlpyt.utils.records import BatchSpec

OptInfo = namedtuple("OptInfo", ["loss", "gradNorm", "tdAbsErr"])

TD_ERROR_STRIDE = 8  # OptInfo keeps every 8th TD error of a minibatch
PRIORITY_EPS = 1e-6  # added to |TD| errors before they become priorities


class DQN(ReplayRlAlgorithm):
    """Deep Q-learning with rlpyt's keywords and defaults.

    Keywords not declared here are :class:`ReplayRlAlgorithm`'s. ``optim_kwargs``: an
    optimizer that takes ``eps`` gets ``eps=0.01 / batch_size`` unless these set it.
    ``ReplayBufferCls``: the class chosen otherwise is a frame buffer for uint8 image stacks
    ``[C, H, W]``, else a plain buffer. ``eps_start_steps`` None gives rlpyt's schedule; 0 that
    of Stable-Baselines3 and the RL Zoo, whose exploration fraction counts from the first step;
    both ends are rounded down to whole sampler iterations.

    Raises:
        ValueError, TypeError: a number out of range (the message names keyword and range),
            or a ``ReplayBufferCls`` that does not fit ``prioritized_replay``.
    """

    delta_clip: float | None = hyperparam(
        1.0,
        "Huber loss threshold on the TD error; None: squared error.",
        POSITIVE,
        after="min_steps_learn",
    )
    eps_steps: int = hyperparam(
        int(1e6),
        "Env steps (from the start) at which epsilon reaches its final value.",
        STEPS,
        after="clip_grad_norm",
    )
    double_dqn: bool = hyperparam(
        False, "Evaluate the target network at the online network's argmax.", after="eps_steps"
    )
    prioritized_replay: bool = hyperparam(
        False, "Prioritized experience replay (priorities: TD errors).", after="double_dqn"
    )
    pri_alpha: float = hyperparam(
        0.6, "Priority exponent.", NONNEGATIVE, after="prioritized_replay"
    )
    pri_beta_init: float = hyperparam(
        0.4, "Importance-weight exponent when learning starts.", NONNEGATIVE, after="pri_alpha"
    )
    pri_beta_final: float = hyperparam(
        1.0,
        "... after ``pri_beta_steps`` env steps (linear in between).",
        NONNEGATIVE,
        after="pri_beta_init",
    )
    pri_beta_steps: int = hyperparam(
        int(50e6), "Env steps of the beta schedule.", STEPS, after="pri_beta_final"
    )
    default_priority: float = hyperparam(
        None,
        "Priority of new transitions; None: ``delta_clip`` (or 1 without it).",
        POSITIVE,
        after="pri_beta_steps",
        type=float | None,
    )
    eps_start_steps: int | None = hyperparam(
        None, "Env steps at which epsilon starts falling; None: ``min_steps_learn``.", STEPS
    )

    OptInfoCls: ClassVar[Any] = OptInfo
    agent: DqnAgent  # set by initialize

    def __post_init__(self) -> None:
        """The defaults that depend on other keywords; check ``ReplayBufferCls``.

        ``default_priority`` None: ``delta_clip`` (1 without it); an optimizer that takes
        ``eps`` gets :attr:`default_optim_eps` unless ``optim_kwargs`` sets it.
        """
        super().__post_init__()
        if self.default_priority is None:
            self.default_priority = self.delta_clip if self.delta_clip is not None else 1.0
        if "eps" not in self.optim_kwargs and "eps" in inspect.signature(self.OptimCls).parameters:
            self.optim_kwargs["eps"] = self.default_optim_eps
        self._check_replay_class()
        # One targets pass per draw, unless double DQN (its online argmax moves every update).
        self.shares_targets = not self.double_dqn

    @property
    def default_optim_eps(self) -> float:
        """Adam's ``eps`` unless ``optim_kwargs`` sets it: ``0.01 / batch_size`` (rlpyt's)."""
        return 0.01 / self.batch_size

    def _check_replay_class(self) -> None:
        cls = self.ReplayBufferCls
        if cls is None:
            return
        has_priorities = issubclass(cls, PrioritizedReplay)
        if self.prioritized_replay and not has_priorities:
            raise ValueError(
                f"{type(self).__name__}: prioritized_replay=True, but ReplayBufferCls="
                f"{cls.__name__} keeps no priorities; pass a prioritized class (e.g. "
                "PrioritizedReplayBuffer, PrioritizedReplayFrameBuffer) or leave "
                "ReplayBufferCls=None to have it chosen."
            )
        if has_priorities and not self.prioritized_replay:
            raise ValueError(
                f"{type(self).__name__}: ReplayBufferCls={cls.__name__} is prioritized, but "
                "prioritized_replay=False would never update its priorities; pass "
                "prioritized_replay=True, or a uniform replay class."
            )

    # ---- set-up ---------------------------------------------------------------------------

    def _setup_schedules(self, batch_spec: BatchSpec) -> None:
        """The base's schedules; epsilon's and beta's iterations from env-step counts."""
        super()._setup_schedules(batch_spec)
        sampler_bs = batch_spec.size
        # Epsilon falls from eps_itr_min on (rlpyt's: where learning starts); an eps_steps
        # below that start gives a step there.
        if self.eps_start_steps is None:
            eps_itr_min = self.min_itr_learn
        else:
            eps_itr_min = self.eps_start_steps // sampler_bs
        eps_itr_max = max(1, eps_itr_min, self.eps_steps // sampler_bs)
        self.agent.set_epsilon_itr_min_max(eps_itr_min, eps_itr_max)
        self.pri_beta_itr = max(1, self.pri_beta_steps // sampler_bs)

    # ---- training -------------------------------------------------------------------------

    def updates_in_draw(self, remaining: int) -> int:
        """Prioritized: 1; uniform: all ``remaining`` up to the next target update."""
        return 1 if self.prioritized_replay else self.updates_per_draw(remaining, True)

    def _before_updates(self, itr: int) -> None:
        """Prioritized replay: set the importance-weight exponent for this iteration."""
        if self.prioritized_replay:
            self.replay_buffer.set_beta(self.beta_at(itr))

    def update(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None, records: Records
    ) -> None:
        """One gradient step on a replayed minibatch (and the target update when due).

        Args:
            samples: The minibatch, on the agent's device.
            target: Its precomputed :meth:`targets` (None: computed here).
            records: OptInfo tensors, appended to: ``loss``, ``gradNorm`` and every 8th
                ``tdAbsErr``.
        """
        loss, td_abs_errors = self.loss(samples, target)
        if self.prioritized_replay:
            # |TD| + eps (Schaul et al.): a zero priority would never be replayed again. The
            # priorities go to the replay's host sum tree in one copy, started before the
            # backward pass and waited for after the optimizer step is queued.
            priorities = HostCopy(td_abs_errors + PRIORITY_EPS)
        backward_into(loss, self._params)
        grad_norm = self.step_optimizer(self.optimizer, self._params)
        if self.prioritized_replay:
            self.replay_buffer.update_batch_priorities(priorities.wait())
        self.update_counter += 1
        self.update_target_if_due()
        records["loss"].append(loss.detach())
        records["gradNorm"].append(grad_norm)
        records["tdAbsErr"].append(td_abs_errors[::TD_ERROR_STRIDE])

    def loss(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """TD loss of a replayed minibatch.

        Args:
            samples: The minibatch, on the agent's device (:meth:`draw`).
            target: Its TD targets ``y [batch]`` if already computed (:meth:`targets`).

        Returns:
            ``(loss, td_abs_errors [batch])``: Huber (or squared) TD loss, importance-weighted
            when prioritized; absolute TD errors clipped at ``delta_clip`` (the priorities),
            detached, on the device.
        """
        qs = self.agent(*samples.agent_inputs)
        q = select_at_indexes(samples.action, qs)
        y = self.targets(samples) if target is None else target
        y = y.to(dtype=q.dtype)
        # One fused op (and one backward node) for the Huber or squared loss: this update
        # runs hundreds of times per iteration on small networks, where op count is the cost.
        reduction = "none" if self.prioritized_replay else "mean"
        if self.delta_clip is None:
            loss = 0.5 * F.mse_loss(q, y, reduction=reduction)
        else:
            loss = F.huber_loss(q, y, reduction=reduction, delta=self.delta_clip)
        if self.prioritized_replay:
            loss = (loss * samples.is_weights).mean()
        td_abs_errors = (y - q.detach()).abs_()
        if self.delta_clip is not None:
            td_abs_errors = td_abs_errors.clamp_(max=self.delta_clip)
        return loss, td_abs_errors

    @torch.no_grad()
    def targets(self, samples: NamedArrayTupleLike) -> torch.Tensor:
        """TD targets ``y = return_ + (1 - done_n) * target_discount * Q'`` of replayed rows."""
        return bootstrap_target(samples, self.target_value(samples.target_inputs))

    def target_value(self, target_inputs: NamedArrayTupleLike) -> torch.Tensor:
        """``Q'(s')``: the target network's max, or its value at the online argmax."""
        target_qs = self.agent.target(*target_inputs)
        if not self.double_dqn:
            return target_qs.max(dim=-1).values
        next_action = self.agent(*target_inputs).argmax(dim=-1)
        return select_at_indexes(next_action, target_qs)

    def beta_at(self, itr: int) -> float:
        """Importance-weight exponent: linear from learning start over ``pri_beta_steps``."""
        span = max(1, self.pri_beta_itr - self.min_itr_learn)
        progress = min(1.0, max(0, itr - self.min_itr_learn) / span)
        return self.pri_beta_init + progress * (self.pri_beta_final - self.pri_beta_init)
