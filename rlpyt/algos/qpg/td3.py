"""TD3: twin delayed DDPG.

Box: Algorithm (Q-function policy gradient family). DDPG's update (``ddpg.py``) with a
``Td3Agent``: two Q-functions trained on one target, ``y = return_ + (1 - done_n) *
target_discount * min(Q1'(s', a'), Q2'(s', a'))`` at the smoothed target action ``a' =
clip(mu'(s') + clip(noise, ±target_noise_clip), ±h)`` (drawn by the agent's
``target_q_at_mu``); loss ``mean(0.5 * (y - Q1)^2) + mean(0.5 * (y - Q2)^2)`` (logged as
``qLoss``); the policy ascends Q1 only; policy and target updates every 2 updates by default.

Learning rates: ``mu_learning_rate`` is the policy's (rlpyt stored it and used DDPG's
``learning_rate`` instead: bug 10). rlpyt's TD3 configs pass ``learning_rate=1e-3`` for the
policy, so ``learning_rate``, when given and ``mu_learning_rate`` is left at its default, is
the policy's rate; giving both with different values raises.

Fujimoto, van Hoof and Meger, 2018, "Addressing Function Approximation Error in Actor-Critic
Methods".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from rlpyt.algos.qpg.ddpg import DDPG
from rlpyt.algos.replay_base import agent_inputs
from rlpyt.utils.checks import check_number
from rlpyt.utils.keywords import extends_keywords

if TYPE_CHECKING:
    from rlpyt.agents.qpg.td3_agent import Td3Agent
    from rlpyt.utils.collections import NamedArrayTupleLike

MU_LEARNING_RATE = 1e-3  # TD3's default policy learning rate


# TD3's defaults where they differ from DDPG's; rlpyt's positional order.
@extends_keywords(
    defaults=dict(
        batch_size=100,
        replay_ratio=100,
        target_update_tau=0.005,
        target_update_interval=2,
        policy_update_interval=2,
    ),
    order=(
        "batch_size replay_ratio target_update_tau target_update_interval "
        "policy_update_interval mu_learning_rate q_learning_rate discount min_steps_learn "
        "replay_size learning_rate OptimCls optim_kwargs initial_optim_state_dict "
        "clip_grad_norm q_target_clip n_step_return updates_per_sync bootstrap_timelimit "
        "ReplayBufferCls snapshot_replay"
    ).split(),
)
class TD3(DDPG):
    """TD3 with rlpyt's keywords and defaults.

    Keywords not listed below are :class:`DDPG`'s (``extends_keywords`` puts them in the
    signature, in rlpyt's order).

    Args:
        mu_learning_rate: The policy's learning rate.
        learning_rate: None, or the policy's learning rate under DDPG's name (rlpyt's configs
            pass it): used when ``mu_learning_rate`` is left at 1e-3.

    Other Parameters:
        batch_size (int): Replayed transitions per gradient step.
        replay_ratio (float): Replayed transitions per sampled transition.
        target_update_tau (float): Polyak weight of the target updates.
        target_update_interval (int): Updates between target updates.
        policy_update_interval (int): Updates between policy updates ("delayed").
        q_learning_rate (float): The Q-functions' learning rate (one optimizer for both).

    Raises:
        ValueError: ``learning_rate`` and a non-default ``mu_learning_rate`` that differ, or
            a number out of range.
    """

    agent: Td3Agent  # set by initialize
    mu_learning_rate: float

    def __init__(
        self,
        mu_learning_rate: float = MU_LEARNING_RATE,
        learning_rate: float | None = None,
        **kwargs: Any,
    ):
        mu_rate = _policy_learning_rate(mu_learning_rate, learning_rate)
        super().__init__(learning_rate=mu_rate, **kwargs)
        self.store_keywords(mu_learning_rate=mu_rate)

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


def _policy_learning_rate(mu_learning_rate: float, learning_rate: float | None) -> float:
    """``mu_learning_rate``, or ``learning_rate`` where only that was given (rlpyt's configs)."""
    mu_learning_rate = check_number(
        "TD3", "mu_learning_rate", mu_learning_rate, low=0, low_open=True
    )
    if learning_rate is None:
        return mu_learning_rate
    learning_rate = check_number("TD3", "learning_rate", learning_rate, low=0, low_open=True)
    if mu_learning_rate not in (MU_LEARNING_RATE, learning_rate):
        raise ValueError(
            f"TD3: learning_rate={learning_rate!r} and mu_learning_rate={mu_learning_rate!r} "
            "both set the policy's learning rate; pass only mu_learning_rate."
        )
    return learning_rate
