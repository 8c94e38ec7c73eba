"""TD3: twin delayed DDPG.

Box: Algorithm (Q-function policy gradient family). DDPG's update (``ddpg.py``) with a
``Td3Agent``: two Q-functions trained on one target, ``y = return_ + (1 - done_n) *
target_discount * min(Q1'(s', a'), Q2'(s', a'))`` at the smoothed target action ``a' =
clip(mu'(s') + clip(noise, ±target_noise_clip), ±h)`` (drawn by the agent's
``target_q_at_mu``); loss ``mean(0.5 * (y - Q1)^2) + mean(0.5 * (y - Q2)^2)`` (logged as
``qLoss``); the policy ascends Q1 only; policy and target updates every 2 updates by default.

Learning rates: ``mu_learning_rate`` is the policy's. Configs written for rlpyt pass
``learning_rate=1e-3`` for the policy, so ``learning_rate``, when given and
``mu_learning_rate`` is left at its default, is the policy's rate; giving both with different
values raises.

Fujimoto, van Hoof and Meger, 2018, "Addressing Function Approximation Error in Actor-Critic
Methods".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import torch

from rlpyt.algos.qpg.ddpg import DDPG
from rlpyt.algos.replay_base import agent_inputs
from rlpyt.utils.hyperparams import FIRST, POSITIVE, hyperparam

if TYPE_CHECKING:
    from rlpyt.agents.qpg.td3_agent import Td3Agent
    from rlpyt.utils.collections import NamedArrayTupleLike

MU_LEARNING_RATE = 1e-3  # TD3's default policy learning rate


class TD3(DDPG):
    """TD3 with rlpyt's keywords and defaults.

    Keywords not declared here are :class:`DDPG`'s. The positional order puts the
    re-declared ``batch_size`` ... ``policy_update_interval`` and ``q_learning_rate`` first
    (``after=``), around the new ``mu_learning_rate``.

    Raises:
        ValueError: ``learning_rate`` and a non-default ``mu_learning_rate`` that differ, or
            a number out of range.
    """

    batch_size = hyperparam(100, after=FIRST)
    replay_ratio = hyperparam(100, after="batch_size")
    target_update_tau = hyperparam(0.005, after="replay_ratio")
    target_update_interval = hyperparam(2, after="target_update_tau")
    policy_update_interval = hyperparam(
        2, 'Updates between policy updates ("delayed").', after="target_update_interval"
    )
    mu_learning_rate: float = hyperparam(
        MU_LEARNING_RATE, "The policy's learning rate.", POSITIVE, after="policy_update_interval"
    )
    q_learning_rate = hyperparam(
        doc="The Q-functions' learning rate (one optimizer for both).", after="mu_learning_rate"
    )
    learning_rate = hyperparam(
        None,
        "None, or the policy's learning rate under DDPG's name: used when ``mu_learning_rate`` "
        "is left at 1e-3.",
        type=float | None,
    )

    agent: Td3Agent  # set by initialize

    def __post_init__(self) -> None:
        """Resolve the policy's learning rate: ``mu_learning_rate``, or ``learning_rate``."""
        super().__post_init__()
        learning_rate = cast(float | None, self.learning_rate)
        if learning_rate is None:
            self.learning_rate = self.mu_learning_rate
        elif self.mu_learning_rate not in (MU_LEARNING_RATE, learning_rate):
            raise ValueError(
                f"TD3: learning_rate={learning_rate!r} and mu_learning_rate="
                f"{self.mu_learning_rate!r} both set the policy's learning rate; pass only "
                "mu_learning_rate."
            )
        else:
            self.mu_learning_rate = learning_rate

    @property
    def mu_learning_rate_used(self) -> float:
        """The learning rate of the policy's optimizer: ``mu_learning_rate`` (resolved)."""
        return self.mu_learning_rate

    def q_loss(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``mean(0.5 * (y - Q1)^2) + mean(0.5 * (y - Q2)^2)`` on one target ``y``."""
        y = self.targets(samples) if target is None else target
        q1, q2 = self.agent.q(*agent_inputs(samples), samples.action)
        return 0.5 * ((y - q1).pow(2).mean() + (y - q2).pow(2).mean())

    def target_value(self, target_inputs: NamedArrayTupleLike) -> torch.Tensor:
        """``min(Q1', Q2')`` at the smoothed target action (noise drawn by the agent)."""
        target_q1, target_q2 = self.agent.target_q_at_mu(*target_inputs)
        return torch.min(target_q1, target_q2)
