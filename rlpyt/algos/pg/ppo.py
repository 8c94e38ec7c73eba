"""PPO: proximal policy optimization with the clipped surrogate objective.

Schulman et al., 2017, "Proximal Policy Optimization Algorithms".
"""

from __future__ import annotations

from typing import Any

import torch

from rlpyt.agents.base import AgentInputs, AgentInputsRnn
from rlpyt.algos.pg.base import OptInfo, PolicyGradientAlgo, initial_rnn_state
from rlpyt.utils.buffer import buffer_to
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
        recurrent = self.agent.recurrent
        loss_inputs, init_rnn_state = self._loss_inputs(samples)
        T, B = self.batch_spec
        n_samples = B if recurrent else T * B
        mb_size = max(1, n_samples // self.minibatches)
        opt_info = OptInfo(*([] for _ in OptInfo._fields))
        for _ in range(self.epochs):
            for mb_idxs in iterate_mb_idxs(n_samples, mb_size, shuffle=True):
                idxs = torch.as_tensor(mb_idxs)
                T_idxs: Any = slice(None) if recurrent else idxs % T
                B_idxs = idxs if recurrent else idxs // T
                rnn_state = init_rnn_state[:, B_idxs] if recurrent else None
                self.optimizer.zero_grad()
                mb = loss_inputs[T_idxs, B_idxs]
                loss, entropy, perplexity = self.loss(
                    mb.agent_inputs,
                    mb.action,
                    mb.return_,
                    mb.advantage,
                    mb.valid,
                    mb.old_dist_info,
                    rnn_state,
                )
                loss.backward()
                grad_norm = torch.nn.utils.clip_grad_norm_(
                    self.agent.parameters(), self.clip_grad_norm
                )
                self.optimizer.step()
                self.update_counter += 1
                opt_info.loss.append(loss.item())
                opt_info.gradNorm.append(float(grad_norm))
                opt_info.entropy.append(entropy.item())
                opt_info.perplexity.append(perplexity.item())
        if self.lr_scheduler is not None:
            self.lr_scheduler.step()
            self.ratio_clip = self._initial_ratio_clip * (self.n_itr - itr - 1) / self.n_itr
        return opt_info

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
        init_rnn_state = None
        if self.agent.recurrent:
            init_rnn_state = initial_rnn_state(samples, device)
        return loss_inputs, init_rnn_state

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
        value_loss = self.value_loss_coeff * valid_mean(0.5 * (value - return_) ** 2, valid)
        entropy = dist.mean_entropy(dist_info, valid)
        loss = pi_loss + value_loss - self.entropy_loss_coeff * entropy
        perplexity = dist.mean_perplexity(dist_info, valid)
        return loss, entropy, perplexity

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
