"""A2C: synchronous advantage actor-critic.

Mnih et al., 2016, "Asynchronous Methods for Deep Reinforcement Learning", in its synchronous,
batched form: one gradient step per ``[T, B]`` batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from rlpyt.algos.pg.base import OptInfo, PolicyGradientAlgo, opt_info_from
from rlpyt.utils.tensor import valid_mean

if TYPE_CHECKING:
    from rlpyt.utils.records import Samples


class A2C(PolicyGradientAlgo):
    """One gradient step per batch on policy, value and entropy losses.

    Every keyword is one of the hyperparameters :class:`PolicyGradientAlgo` stores (documented
    there); the defaults are rlpyt's for A2C (``value_loss_coeff=0.5``).
    """

    def __init__(
        self,
        discount: float = 0.99,
        learning_rate: float = 0.001,
        value_loss_coeff: float = 0.5,
        entropy_loss_coeff: float = 0.01,
        OptimCls: type[torch.optim.Optimizer] = torch.optim.Adam,  # noqa: N803
        optim_kwargs: dict[str, Any] | None = None,
        clip_grad_norm: float = 1.0,
        initial_optim_state_dict: dict[str, Any] | None = None,
        gae_lambda: float = 1,
        normalize_advantage: bool = False,
    ):
        super().__init__(
            discount=discount,
            learning_rate=learning_rate,
            value_loss_coeff=value_loss_coeff,
            entropy_loss_coeff=entropy_loss_coeff,
            OptimCls=OptimCls,
            optim_kwargs=optim_kwargs,
            clip_grad_norm=clip_grad_norm,
            initial_optim_state_dict=initial_optim_state_dict,
            gae_lambda=gae_lambda,
            normalize_advantage=normalize_advantage,
        )

    def optimize_agent(
        self, itr: int, samples: Samples | None = None, sampler_itr: int | None = None
    ) -> OptInfo:
        """One gradient step on the whole batch; returns OptInfo with one value per field.

        Args:
            itr: The runner's iteration.
            samples: The sampler's ``Samples`` buffer, ``[T, B]`` leading dims.
            sampler_itr: Unused (asynchronous runners).
        """
        loss, entropy, perplexity = self.loss(samples)
        grad_norm = self.clip_and_step(loss)
        return opt_info_from([(loss.detach(), grad_norm, entropy.detach(), perplexity.detach())])

    def loss(self, samples: Samples) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Policy-gradient, value and entropy losses on ``[T, B]`` samples.

        ``-mean(log pi(a) * advantage)`` plus :meth:`value_entropy_loss`, means over valid
        steps.

        Returns:
            ``(loss, entropy, perplexity)``, 0-dim tensors (the loss with grad).
        """
        inputs, init_rnn_state = self.loss_inputs(samples, old_dist_info=False)
        dist_info, value = self.agent_forward(inputs.agent_inputs, init_rnn_state)
        dist = self.agent.distribution
        logli = dist.log_likelihood(inputs.action, dist_info)
        pi_loss = -valid_mean(logli * inputs.advantage, inputs.valid)
        other_loss, entropy, perplexity = self.value_entropy_loss(
            dist_info, value, inputs.return_, inputs.valid
        )
        return pi_loss + other_loss, entropy, perplexity
