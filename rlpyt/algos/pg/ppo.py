"""PPO: proximal policy optimization with the clipped surrogate objective.

Schulman et al., 2017, "Proximal Policy Optimization Algorithms".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch

from rlpyt.agents.base import AgentInputs, AgentInputsRnn
from rlpyt.algos.pg.base import PolicyGradientAlgo, initial_rnn_state, opt_info_from
from rlpyt.utils.buffer import buffer_func, buffer_to
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.misc import iterate_mb_idxs
from rlpyt.utils.tensor import valid_mean

LossInputs = namedarraytuple(
    "LossInputs", ["agent_inputs", "action", "return_", "advantage", "valid", "old_dist_info"]
)


class PPO(PolicyGradientAlgo):
    """Several epochs of minibatch updates per batch on the clipped surrogate.

    Args:
        discount: Discount gamma.
        learning_rate: Initial learning rate.
        value_loss_coeff: Weight of ``0.5 * (V - R)^2``.
        entropy_loss_coeff: Weight of the entropy bonus.
        OptimCls: Torch optimizer class.
        optim_kwargs: Extra optimizer keywords.
        clip_grad_norm: Max gradient norm.
        initial_optim_state_dict: Optimizer state to start from.
        gae_lambda: GAE lambda (1: plain discounted returns).
        minibatches: Minibatches per epoch (over ``T * B`` samples, or over ``B`` whole
            sequences for recurrent agents).
        epochs: Passes over each batch.
        ratio_clip: Clip range epsilon of the probability ratio.
        linear_lr_schedule: Decay learning rate and ratio_clip linearly to 0 over the run.
        normalize_advantage: Standardize advantages over valid steps.
    """

    def __init__(
        self,
        discount: float = 0.99,
        learning_rate: float = 0.001,
        value_loss_coeff: float = 1.0,
        entropy_loss_coeff: float = 0.01,
        OptimCls: type = torch.optim.Adam,  # noqa: N803
        optim_kwargs: dict | None = None,
        clip_grad_norm: float = 1.0,
        initial_optim_state_dict: dict | None = None,
        gae_lambda: float = 1,
        minibatches: int = 4,
        epochs: int = 4,
        ratio_clip: float = 0.1,
        linear_lr_schedule: bool = True,
        normalize_advantage: bool = False,
    ):
        self.discount = discount
        self.learning_rate = learning_rate
        self.value_loss_coeff = value_loss_coeff
        self.entropy_loss_coeff = entropy_loss_coeff
        self.OptimCls = OptimCls
        self.optim_kwargs = dict(optim_kwargs or {})
        self.clip_grad_norm = clip_grad_norm
        self.initial_optim_state_dict = initial_optim_state_dict
        self.gae_lambda = gae_lambda
        self.minibatches = minibatches
        self.epochs = epochs
        self.ratio_clip = ratio_clip
        self._initial_ratio_clip = ratio_clip
        self.linear_lr_schedule = linear_lr_schedule
        self.normalize_advantage = normalize_advantage

    def initialize(self, *args: Any, **kwargs: Any) -> None:
        """See PolicyGradientAlgo.initialize; sets up the linear decay if asked."""
        super().initialize(*args, **kwargs)
        self._batch_size = self.batch_spec.size // self.minibatches
        self.lr_scheduler = None
        if self.linear_lr_schedule:
            n_itr = max(1, self.n_itr)
            self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(
                self.optimizer, lr_lambda=lambda itr: (n_itr - itr) / n_itr
            )

    def optimize_agent(self, itr: int, samples: Any = None, sampler_itr: int | None = None) -> Any:
        """``epochs`` passes of ``minibatches`` gradient steps; OptInfo has one value per step."""
        loss_inputs, init_rnn_state = self._loss_inputs(samples)
        # Per update: (loss, grad norm, entropy, perplexity), 0-dim tensors until the end.
        steps: list[tuple[torch.Tensor, ...]] = []
        for _ in range(self.epochs):
            for mb, rnn_state in self._minibatches(loss_inputs, init_rnn_state):
                loss, entropy, perplexity = self.loss(
                    mb.agent_inputs,
                    mb.action,
                    mb.return_,
                    mb.advantage,
                    mb.valid,
                    mb.old_dist_info,
                    rnn_state,
                )
                grad_norm = self.clip_and_step(loss)
                steps.append((loss.detach(), grad_norm, entropy.detach(), perplexity.detach()))
        if self.lr_scheduler is not None:
            self.lr_scheduler.step()
            self.ratio_clip = self._initial_ratio_clip * (self.n_itr - itr - 1) / self.n_itr
        return opt_info_from(steps)

    def _minibatches(self, loss_inputs: Any, init_rnn_state: Any) -> Iterator[tuple[Any, Any]]:
        """Yield ``(LossInputs, init_rnn_state or None)`` for each minibatch of one epoch.

        Feed-forward: ``loss_inputs`` is flat ``[T * B]`` and minibatches are shuffled samples;
        one minibatch is the whole batch as it is (its losses are means, so order does not
        matter). Recurrent: minibatches are shuffled whole sequences ``[T, mb]``.
        """
        n_samples = loss_inputs.return_.shape[1 if self.agent.recurrent else 0]
        mb_size = max(1, n_samples // self.minibatches)
        if mb_size == n_samples:
            yield loss_inputs, init_rnn_state
            return
        for mb_idxs in iterate_mb_idxs(n_samples, mb_size, shuffle=True):
            idxs = torch.as_tensor(mb_idxs)
            if init_rnn_state is None:
                yield loss_inputs[idxs], None
            else:
                yield loss_inputs[:, idxs], init_rnn_state[:, idxs]

    def _loss_inputs(self, samples: Any) -> tuple[Any, Any]:
        device = self.agent.device
        agent_inputs = AgentInputs(
            samples.env.observation, samples.agent.prev_action, samples.env.prev_reward
        )
        agent_inputs = buffer_to(agent_inputs, device=device)
        if hasattr(self.agent, "update_obs_rms"):
            self.agent.update_obs_rms(agent_inputs.observation)
        return_, advantage, valid = self.process_returns(samples)
        loss_inputs = LossInputs(
            agent_inputs=agent_inputs,
            action=samples.agent.action,
            return_=return_,
            advantage=advantage,
            valid=valid,
            old_dist_info=samples.agent.agent_info.dist_info,
        )
        loss_inputs = buffer_to(loss_inputs, device=device)
        if self.agent.recurrent:
            return loss_inputs, initial_rnn_state(samples, device)
        # One flat sample dim: a minibatch is then one index, not a (time, env) index pair.
        return buffer_func(loss_inputs, _flatten_time_batch), None

    def loss(
        self,
        agent_inputs: Any,
        action: torch.Tensor,
        return_: torch.Tensor,
        advantage: torch.Tensor,
        valid: torch.Tensor | None,
        old_dist_info: Any,
        init_rnn_state: Any = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Clipped surrogate + value + entropy losses on one minibatch."""
        if init_rnn_state is not None:
            dist_info, value, _ = self.agent(*AgentInputsRnn(*agent_inputs, init_rnn_state))
        else:
            dist_info, value = self.agent(*agent_inputs)
        dist = self.agent.distribution
        ratio = dist.likelihood_ratio(action, old_dist_info=old_dist_info, new_dist_info=dist_info)
        clipped = torch.clamp(ratio, 1.0 - self.ratio_clip, 1.0 + self.ratio_clip)
        surrogate = torch.min(ratio * advantage, clipped * advantage)
        pi_loss = -valid_mean(surrogate, valid)
        other_loss, entropy, perplexity = self.value_entropy_loss(dist_info, value, return_, valid)
        return pi_loss + other_loss, entropy, perplexity

    def state_dict(self) -> dict:
        """Optimizer, learning-rate schedule, current ratio clip and update counter."""
        state = super().state_dict()
        state["ratio_clip"] = self.ratio_clip
        if self.lr_scheduler is not None:
            state["lr_scheduler"] = self.lr_scheduler.state_dict()
        return state

    def load_state_dict(self, state: dict) -> None:
        """Restore what :meth:`state_dict` returned."""
        super().load_state_dict(state)
        self.ratio_clip = state["ratio_clip"]
        if self.lr_scheduler is not None and "lr_scheduler" in state:
            self.lr_scheduler.load_state_dict(state["lr_scheduler"])


def _flatten_time_batch(x: Any) -> Any:
    """``[T, B, ...]`` to ``[T * B, ...]`` (a view where possible); None stays None."""
    return None if x is None else x.reshape((-1,) + tuple(x.shape[2:]))
