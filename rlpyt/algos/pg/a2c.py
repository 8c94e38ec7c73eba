"""A2C: synchronous advantage actor-critic.

Mnih et al., 2016, "Asynchronous Methods for Deep Reinforcement Learning", in its synchronous,
batched form: one gradient step per ``[T, B]`` batch.
"""

from __future__ import annotations

from typing import Any

import torch

from rlpyt.agents.base import AgentInputs, AgentInputsRnn
from rlpyt.algos.pg.base import PolicyGradientAlgo, initial_rnn_state, opt_info_from
from rlpyt.utils.buffer import buffer_to
from rlpyt.utils.tensor import valid_mean


class A2C(PolicyGradientAlgo):
    """One gradient step per batch on policy, value and entropy losses.

    Args:
        discount: Discount gamma.
        learning_rate: Optimizer learning rate.
        value_loss_coeff: Weight of ``0.5 * (V - R)^2``.
        entropy_loss_coeff: Weight of the entropy bonus.
        OptimCls: Torch optimizer class.
        optim_kwargs: Extra optimizer keywords.
        clip_grad_norm: Max gradient norm.
        initial_optim_state_dict: Optimizer state to start from.
        gae_lambda: GAE lambda (1: plain discounted returns).
        normalize_advantage: Standardize advantages over valid steps.
    """

    def __init__(
        self,
        discount: float = 0.99,
        learning_rate: float = 0.001,
        value_loss_coeff: float = 0.5,
        entropy_loss_coeff: float = 0.01,
        OptimCls: type = torch.optim.Adam,  # noqa: N803
        optim_kwargs: dict | None = None,
        clip_grad_norm: float = 1.0,
        initial_optim_state_dict: dict | None = None,
        gae_lambda: float = 1,
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
        self.normalize_advantage = normalize_advantage

    def initialize(self, *args: Any, **kwargs: Any) -> None:
        """See PolicyGradientAlgo.initialize; one update per batch of ``T * B`` samples."""
        super().initialize(*args, **kwargs)
        self._batch_size = self.batch_spec.size

    def optimize_agent(self, itr: int, samples: Any = None, sampler_itr: int | None = None) -> Any:
        """One gradient step on the whole batch; returns OptInfo with one value per field."""
        loss, entropy, perplexity = self.loss(samples)
        grad_norm = self.clip_and_step(loss)
        return opt_info_from([(loss.detach(), grad_norm, entropy.detach(), perplexity.detach())])

    def loss(self, samples: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Policy-gradient, value and entropy losses on ``[T, B]`` samples."""
        agent_inputs = AgentInputs(
            samples.env.observation, samples.agent.prev_action, samples.env.prev_reward
        )
        agent_inputs = buffer_to(agent_inputs, device=self.agent.device)
        if hasattr(self.agent, "update_obs_rms"):
            self.agent.update_obs_rms(agent_inputs.observation)
        if self.agent.recurrent:
            init_rnn_state = initial_rnn_state(samples, self.agent.device)
            dist_info, value, _ = self.agent(*AgentInputsRnn(*agent_inputs, init_rnn_state))
        else:
            dist_info, value = self.agent(*agent_inputs)
        return_, advantage, valid = buffer_to(self.process_returns(samples), self.agent.device)
        dist = self.agent.distribution
        action = samples.agent.action.to(self.agent.device)
        logli = dist.log_likelihood(action, dist_info)
        pi_loss = -valid_mean(logli * advantage, valid)
        other_loss, entropy, perplexity = self.value_entropy_loss(dist_info, value, return_, valid)
        return pi_loss + other_loss, entropy, perplexity
