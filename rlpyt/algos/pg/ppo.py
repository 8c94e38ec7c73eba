"""PPO: proximal policy optimization with the clipped surrogate objective.

Schulman et al., 2017, "Proximal Policy Optimization Algorithms".
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import torch

from rlpyt.algos.pg.base import (
    LossInputs,  # noqa: F401 (re-exported from its old home)
    OptInfo,
    PolicyGradientAlgo,
    opt_info_from,
)
from rlpyt.utils.buffer import buffer_func
from rlpyt.utils.hyperparams import COUNT, POSITIVE, hyperparam
from rlpyt.utils.misc import iterate_mb_idxs
from rlpyt.utils.tensor import valid_mean

if TYPE_CHECKING:
    from rlpyt.agents.base import AgentInputs
    from rlpyt.distributions.categorical import DistInfo
    from rlpyt.distributions.gaussian import DistInfoStd
    from rlpyt.protocols import Agent
    from rlpyt.utils.collections import AttrDict, NamedArrayTupleLike
    from rlpyt.utils.records import BatchSpec, Samples


class PPO(PolicyGradientAlgo):
    """Several epochs of minibatch updates per batch on the clipped surrogate.

    Keywords not declared here are :class:`PolicyGradientAlgo`'s
    (``learning_rate``: the initial one); PPO's ``value_loss_coeff`` default is 1.0.
    ``minibatches`` above the samples of a batch (``T * B``, or ``B`` sequences for recurrent
    agents) is reduced to that number at ``initialize``, with a warning naming the value used.

    Raises:
        ValueError: a hyperparameter out of range (the message names keyword and range).
    """

    value_loss_coeff = hyperparam(1.0)
    minibatches: int = hyperparam(
        4,
        "Minibatches per epoch (over ``T * B`` samples, or over ``B`` whole sequences for "
        "recurrent agents).",
        COUNT,
        after="gae_lambda",
    )
    epochs: int = hyperparam(4, "Passes over each batch.", COUNT, after="minibatches")
    ratio_clip: float = hyperparam(
        0.1, "Clip range epsilon of the probability ratio.", POSITIVE, after="epochs"
    )
    linear_lr_schedule: bool = hyperparam(
        True,
        "Decay learning rate and ratio_clip linearly to 0 over the run.",
        after="ratio_clip",
    )

    lr_scheduler: torch.optim.lr_scheduler.LambdaLR | None

    def __post_init__(self) -> None:
        """Remember the initial ``ratio_clip`` (the linear schedule decays from it)."""
        super().__post_init__()
        self._initial_ratio_clip = self.ratio_clip

    def initialize(
        self,
        agent: Agent,
        n_itr: int,
        batch_spec: BatchSpec,
        mid_batch_reset: bool = False,
        examples: AttrDict | None = None,
        world_size: int = 1,
        rank: int = 0,
    ) -> None:
        """See :meth:`PolicyGradientAlgo.initialize`; also sets up the linear decay if asked.

        A gradient step takes ``T * B / minibatches`` samples (``batch_size``).
        """
        super().initialize(agent, n_itr, batch_spec, mid_batch_reset, examples, world_size, rank)
        self._n_minibatches = self._minibatches_used(batch_spec)
        self.batch_size = batch_spec.size // self._n_minibatches
        self.lr_scheduler = None
        if self.linear_lr_schedule:
            n_itr = max(1, self.n_itr)
            self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(
                self.optimizer, lr_lambda=lambda itr: (n_itr - itr) / n_itr
            )

    def _minibatches_used(self, batch_spec: BatchSpec) -> int:
        """``minibatches``, or the number of samples where it asks for more (with a warning).

        A minibatch holds at least one sample (one sequence for recurrent agents), so a batch
        of ``n`` samples makes at most ``n`` minibatches; more would be empty (rlpyt then failed
        inside ``range``). The warning, once per ``initialize``, says what is used.
        """
        n_samples = batch_spec.B if self.agent.recurrent else batch_spec.size
        if self.minibatches <= n_samples:
            return self.minibatches
        unit = "sequences" if self.agent.recurrent else "samples"
        warnings.warn(
            f"PPO: minibatches={self.minibatches} exceeds the {n_samples} {unit} of a batch "
            f"(batch_T={batch_spec.T}, batch_B={batch_spec.B}); using minibatches={n_samples} "
            f"of 1 {unit[:-1]} each. Pass minibatches <= {n_samples} to silence this.",
            stacklevel=2,
        )
        return n_samples

    def optimize_agent(
        self, itr: int, samples: Samples | None = None, sampler_itr: int | None = None
    ) -> OptInfo:
        """``epochs`` passes of ``minibatches`` gradient steps; OptInfo has one value per step.

        Args:
            itr: The runner's iteration (the linear decay's position).
            samples: The sampler's ``Samples`` buffer, ``[T, B]`` leading dims.
            sampler_itr: Unused (asynchronous runners).
        """
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

    def _minibatches(
        self, loss_inputs: NamedArrayTupleLike, init_rnn_state: NamedArrayTupleLike | None
    ) -> Iterator[tuple[Any, Any]]:
        """Yield ``(LossInputs, init_rnn_state or None)`` for each minibatch of one epoch.

        Feed-forward: ``loss_inputs`` is flat ``[T * B]`` and minibatches are shuffled samples;
        one minibatch is the whole batch as it is (its losses are means, so order does not
        matter). Recurrent: minibatches are shuffled whole sequences ``[T, mb]``.
        """
        n_samples = loss_inputs.return_.shape[1 if self.agent.recurrent else 0]
        mb_size = max(1, n_samples // self._n_minibatches)
        if mb_size == n_samples:
            yield loss_inputs, init_rnn_state
            return
        for mb_idxs in iterate_mb_idxs(n_samples, mb_size, shuffle=True):
            idxs = torch.as_tensor(mb_idxs)
            if init_rnn_state is None:
                yield loss_inputs[idxs], None
            else:
                yield loss_inputs[:, idxs], init_rnn_state[:, idxs]

    def _loss_inputs(self, samples: Samples) -> tuple[Any, Any]:
        """``(LossInputs, init_rnn_state or None)`` of a batch on the agent's device.

        Feed-forward: every field flattened to ``[T * B, ...]``; recurrent: ``[T, B, ...]`` and
        the state at step 0, ``[N, B, H]`` fields.
        """
        loss_inputs, init_rnn_state = self.loss_inputs(samples)
        if self.agent.recurrent:
            return loss_inputs, init_rnn_state
        # One flat sample dim: a minibatch is then one index, not a (time, env) index pair.
        return buffer_func(loss_inputs, _flatten_time_batch), None

    def loss(
        self,
        agent_inputs: AgentInputs,
        action: torch.Tensor,
        return_: torch.Tensor,
        advantage: torch.Tensor,
        valid: torch.Tensor | None,
        old_dist_info: DistInfo | DistInfoStd,
        init_rnn_state: NamedArrayTupleLike | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Clipped surrogate + value + entropy losses on one minibatch.

        Args:
            agent_inputs: ``AgentInputs`` of the minibatch (``[N]``, or ``[T, mb]`` recurrent).
            action: Sampled actions, same leading dims.
            return_: Return targets, same leading dims.
            advantage: Advantages, same leading dims.
            valid: Mask of valid steps (or None: all valid).
            old_dist_info: The sampling policy's ``dist_info``, same leading dims.
            init_rnn_state: Recurrent agents: the state at step 0, ``[N, mb, H]`` fields.

        Returns:
            ``(loss, entropy, perplexity)``, 0-dim tensors (the loss with grad).
        """
        dist_info, value = self.agent_forward(agent_inputs, init_rnn_state)
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


def _flatten_time_batch(x: torch.Tensor | None) -> torch.Tensor | None:
    """``[T, B, ...]`` to ``[T * B, ...]`` (a view where possible); None stays None."""
    return None if x is None else x.reshape((-1,) + tuple(x.shape[2:]))
