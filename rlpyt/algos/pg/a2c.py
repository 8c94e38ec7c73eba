"""A2C: synchronous advantage actor-critic.

Mnih et al., 2016, "Asynchronous Methods for Deep Reinforcement Learning", in its synchronous,
batched form: one gradient step per ``[T, B]`` batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from rlpyt.algos.pg.base import OptInfo, PolicyGradientAlgo, opt_info_from
from rlpyt.utils.tensor import valid_mean

if TYPE_CHECKING:
    from rlpyt.utils.records import Samples


class A2C(PolicyGradientAlgo):
    """One gradient step per batch on policy, value and entropy losses.

    Every keyword is one of :class:`PolicyGradientAlgo`'s, with its defaults (rlpyt's for A2C).
    """

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
