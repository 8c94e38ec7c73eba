"""PolicyGradientAlgo: what A2C and PPO share.

Box: Algorithm (policy gradient). The runner calls ``initialize`` once, then ``optimize_agent``
with each ``[T, B]`` batch the sampler recorded (with ``bootstrap_value = V(s_T)``, so
``bootstrap_value`` is True here). This base declares the hyperparameters both algorithms take
(A2C's defaults; PPO changes one and adds its own), builds the optimizer,
builds the agent's training inputs from a batch, and turns rewards and values into returns and
advantages (``rlpyt.algos.utils``). The losses stay in each algorithm's ``loss()``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import namedtuple
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import torch

from rlpyt.agents.base import AgentInputs, AgentInputsRnn
from rlpyt.algos.base import RlAlgorithm, batch_to_device, make_optimizer, with_foreach
from rlpyt.algos.base import opt_info_from as base_opt_info_from
from rlpyt.algos.utils import (
    Array,
    discount_return,
    discount_return_tl,
    generalized_advantage_estimation,
    generalized_advantage_estimation_tl,
    valid_from_done,
)
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.hyperparams import (
    FRACTION,
    NONNEGATIVE,
    NUMBER,
    POSITIVE,
    POSITIVE_OR_INF,
    copied_dict,
    hyperparam,
)
from rlpyt.utils.tensor import valid_mean

if TYPE_CHECKING:
    from rlpyt.distributions.categorical import DistInfo
    from rlpyt.distributions.gaussian import DistInfoStd
    from rlpyt.protocols import Agent
    from rlpyt.utils.collections import AttrDict, NamedArrayTupleLike
    from rlpyt.utils.records import BatchSpec, Samples

OptInfo = namedtuple("OptInfo", ["loss", "gradNorm", "entropy", "perplexity"])
__all__ = ["LossInputs", "OptInfo", "PolicyGradientAlgo", "make_optimizer", "with_foreach"]
LossInputs = namedarraytuple(
    "LossInputs", ["agent_inputs", "action", "return_", "advantage", "valid", "old_dist_info"]
)


@runtime_checkable
class ObsNormAgent(Protocol):
    """An agent that normalizes observations with running statistics (Gaussian PG agents)."""

    def update_obs_rms(self, observation: torch.Tensor) -> None:
        """Update the running mean and variance from a batch of observations."""
        ...


class PolicyGradientAlgo(RlAlgorithm):
    """On-policy algorithms over ``[T, B]`` batches with a bootstrap value ``V(s_T)``.

    The hyperparameters both A2C and PPO take, with A2C's defaults (PPO changes
    ``value_loss_coeff``). A subclass writes ``optimize_agent`` (and its ``loss``).

    Raises:
        ValueError: a hyperparameter out of range or NaN; the message names the keyword, the
            value and the range.
        TypeError: a numeric one is not a number.
    """

    discount: float = hyperparam(0.99, "Discount gamma.", FRACTION)
    learning_rate: float = hyperparam(0.001, "Optimizer learning rate.", POSITIVE)
    value_loss_coeff: float = hyperparam(0.5, "Weight of ``0.5 * (V - R)^2``.", NONNEGATIVE)
    entropy_loss_coeff: float = hyperparam(0.01, "Weight of the entropy bonus.", NUMBER)
    OptimCls: type[torch.optim.Optimizer] = hyperparam(torch.optim.Adam, "Torch optimizer class.")
    optim_kwargs: dict[str, Any] = hyperparam(
        None, "Extra optimizer keywords.", copied_dict, type=dict[str, Any] | None
    )
    clip_grad_norm: float = hyperparam(
        1.0, "Max global gradient norm (``inf``: no clipping).", POSITIVE_OR_INF
    )
    initial_optim_state_dict: dict[str, Any] | None = hyperparam(
        None, "Optimizer state to start from."
    )
    gae_lambda: float = hyperparam(1, "GAE lambda (1: plain discounted returns).", FRACTION)
    normalize_advantage: bool = hyperparam(False, "Standardize advantages over valid steps.")

    bootstrap_value = True
    OptInfoCls = OptInfo
    agent: Agent  # set by initialize

    @abstractmethod
    def optimize_agent(
        self, itr: int, samples: Samples | None = None, sampler_itr: int | None = None
    ) -> Any:
        """Train the agent on a batch (see :meth:`RlAlgorithm.optimize_agent`)."""

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
        """Build the optimizer over the agent's parameters; remember the batch layout.

        Args:
            agent: The initialized agent to train.
            n_itr: Iterations of the run (PPO's linear decay).
            batch_spec: The sampler's ``BatchSpec(T, B)``; one gradient step per batch of
                ``T * B`` samples (``batch_size``) unless a subclass says otherwise.
            mid_batch_reset: Whether the sampler resets envs inside a batch (if not, steps
                after a ``done`` are masked out).
            examples: One example of each sampled record (unused here).
            world_size: Number of data-parallel processes.
            rank: This process's rank among them.
        """
        self.agent = agent
        self.n_itr = n_itr
        self.batch_spec = batch_spec
        self.mid_batch_reset = mid_batch_reset
        self.world_size = world_size
        self.rank = rank
        self.batch_size = batch_spec.size
        self.optimizer = make_optimizer(
            self.OptimCls, list(agent.parameters()), self.learning_rate, self.optim_kwargs
        )
        if self.initial_optim_state_dict is not None:
            self.optimizer.load_state_dict(self.initial_optim_state_dict)
        # What the optimizer steps (the same Parameter objects for the whole run): clipping
        # walks this list instead of re-collecting agent.parameters() every update.
        self._params = [p for group in self.optimizer.param_groups for p in group["params"]]

    def loss_inputs(self, samples: Samples, old_dist_info: bool = True) -> tuple[Any, Any]:
        """A batch's training inputs, moved to the agent's device in one call.

        Returns and advantages are computed on the host first (:meth:`process_returns`).
        Also updates the agent's observation normalization, where it has one
        (``update_obs_rms``), from this batch's observations, before any forward pass.

        Args:
            samples: The sampler's ``Samples`` buffer, ``[T, B]`` leading dims.
            old_dist_info: Include the sampling policy's ``dist_info`` (PPO's ratio).

        Returns:
            ``(LossInputs(agent_inputs, action, return_, advantage, valid, old_dist_info),
            init_rnn_state)``: fields ``[T, B, ...]`` (``valid`` None when every step counts,
            ``old_dist_info`` None unless asked); the recurrent state at step 0 ``[N, B, H]``
            for recurrent agents, else None.
        """
        agent_inputs = AgentInputs(
            samples.env.observation, samples.agent.prev_action, samples.env.prev_reward
        )
        return_, advantage, valid = self.process_returns(samples)
        inputs = LossInputs(
            agent_inputs=agent_inputs,
            action=samples.agent.action,
            return_=return_,
            advantage=advantage,
            valid=valid,
            old_dist_info=samples.agent.agent_info.dist_info if old_dist_info else None,
        )
        init_rnn_state = initial_rnn_state(samples) if self.agent.recurrent else None
        inputs, init_rnn_state = batch_to_device((inputs, init_rnn_state), self.agent.device)
        if isinstance(self.agent, ObsNormAgent):
            self.agent.update_obs_rms(inputs.agent_inputs.observation)
        return inputs, init_rnn_state

    def agent_forward(
        self, agent_inputs: AgentInputs, init_rnn_state: NamedArrayTupleLike | None = None
    ) -> tuple[DistInfo | DistInfoStd, torch.Tensor]:
        """The agent's differentiable ``(dist_info, value)`` on ``AgentInputs``.

        Args:
            agent_inputs: ``AgentInputs`` with ``[T, B]`` (or flat ``[N]``) leading dims.
            init_rnn_state: Recurrent agents: the state at step 0, ``[N, B, H]`` fields (the
                final state is dropped). None for feed-forward agents.
        """
        if init_rnn_state is None:
            return self.agent(*agent_inputs)
        dist_info, value, _rnn_state = self.agent(*AgentInputsRnn(*agent_inputs, init_rnn_state))
        return dist_info, value

    def clip_and_step(self, loss: torch.Tensor) -> torch.Tensor:
        """Backward, clip the global grad norm to ``clip_grad_norm``, optimizer step.

        Gradients are reset with ``set_to_none`` before the backward pass.

        Returns:
            The grad norm before clipping (a 0-dim tensor, not synchronized to Python).
        """
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self._params, self.clip_grad_norm)
        self.optimizer.step()
        self.update_counter += 1
        return grad_norm

    def value_entropy_loss(
        self,
        dist_info: DistInfo | DistInfoStd,
        value: torch.Tensor,
        return_: torch.Tensor,
        valid: torch.Tensor | None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The value loss minus the entropy bonus, with the entropy diagnostics.

        ``value_loss_coeff * mean(0.5 * (V - R)^2) - entropy_loss_coeff * mean(entropy)``,
        means over valid steps. The entropy enters the graph only when its coefficient is
        nonzero; the diagnostics are computed without one.

        Returns:
            ``(loss, entropy, perplexity)``: the loss term (with grad), then the mean entropy and
            mean perplexity, detached 0-dim tensors.
        """
        error = value - return_
        loss = (0.5 * self.value_loss_coeff) * valid_mean(error * error, valid)
        dist = self.agent.distribution
        entropy = None
        if self.entropy_loss_coeff != 0:
            entropy = dist.mean_entropy(dist_info, valid)
            loss = loss - self.entropy_loss_coeff * entropy
            entropy = entropy.detach()
        with torch.no_grad():
            if entropy is None:
                entropy = dist.mean_entropy(dist_info, valid)
            perplexity = dist.mean_perplexity(dist_info, valid)
        return loss, entropy, perplexity

    def process_returns(
        self, samples: Samples
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Returns, advantages and the valid mask of a batch.

        Plain discounted returns when ``gae_lambda == 1``, else GAE; ``done`` cuts the
        recursion; a step cut by a time limit (``env_info.timeout``) bootstraps from the value
        of the truncated state (``samples.agent.timeout_value``, where the sampler knew the
        final observation: vector collectors), else from ``value[t]``, instead of counting as
        terminal. ``valid`` masks steps after the first ``done`` of a
        column when envs were not reset mid-batch, or for recurrent agents.

        Returns:
            ``(return_ [T, B], advantage [T, B], valid [T, B] or None)``.
        """
        reward, done = samples.env.reward, samples.env.done
        value = samples.agent.agent_info.value
        bootstrap_value = samples.agent.bootstrap_value
        # Optional fields of the batch's records: the env's info, and AgentSamplesBsvTv's.
        timeout = getattr(samples.env.env_info, "timeout", None)
        timeout_value = getattr(samples.agent, "timeout_value", None)
        if timeout is not None and not bool(timeout.any()):
            timeout = timeout_value = None
        arrays = _cpu_numpy(reward, done, value, bootstrap_value, timeout, timeout_value)
        if arrays is not None:
            # The recursions run once per time step on [B] rows: numpy's per-op cost on such
            # small rows is a fraction of torch's. Same maths, results shared back as tensors.
            return_, advantage = self._returns_advantages(*arrays)
            return_, advantage = torch.from_numpy(return_), torch.from_numpy(advantage)
        else:
            return_, advantage = self._returns_advantages(
                reward, done, value, bootstrap_value, timeout, timeout_value
            )
        valid = None
        if not self.mid_batch_reset or self.agent.recurrent:
            valid = valid_from_done(done.to(reward.dtype))
        if self.normalize_advantage:
            advantage = _normalize(advantage, valid)
        return return_, advantage, valid

    def _returns_advantages(
        self,
        reward: Array,
        done: Array,
        value: Array,
        bootstrap_value: Array,
        timeout: Array | None,
        timeout_value: Array | None = None,
    ) -> tuple[Any, Any]:
        """``(return_, advantage)`` from numpy arrays or tensors (all of one kind)."""
        if timeout is not None:
            if self.gae_lambda == 1:
                return_ = discount_return_tl(
                    reward,
                    done,
                    bootstrap_value,
                    self.discount,
                    timeout,
                    value,
                    timeout_value=timeout_value,
                )
                return return_, return_ - value
            advantage, return_ = generalized_advantage_estimation_tl(
                reward,
                value,
                done,
                bootstrap_value,
                self.discount,
                self.gae_lambda,
                timeout,
                timeout_value=timeout_value,
            )
            return return_, advantage
        if self.gae_lambda == 1:
            return_ = discount_return(reward, done, bootstrap_value, self.discount)
            return return_, return_ - value
        advantage, return_ = generalized_advantage_estimation(
            reward, value, done, bootstrap_value, self.discount, self.gae_lambda
        )
        return return_, advantage


def opt_info_from(steps: Sequence[tuple[torch.Tensor, ...]]) -> OptInfo:
    """OptInfo of Python floats from per-update ``(loss, gradNorm, entropy, perplexity)``.

    The values stay tensors during the updates; ``rlpyt.algos.base.opt_info_from`` converts
    them once per iteration.
    """
    records = {field: [step[i] for step in steps] for i, field in enumerate(OptInfo._fields)}
    return base_opt_info_from(OptInfo, records)


def initial_rnn_state(samples: Samples, device: torch.device | None = None) -> Any:
    """The recurrent state at the start of the batch, ``[N, B, H]``, on ``device``.

    Samplers record ``agent_info.prev_rnn_state`` at every step as ``[B, N, H]``; training
    starts each sequence from the state of step 0, in the model's ``[N, B, H]`` layout.
    ``device`` None: where the samples are (the algorithms move it with the whole batch).
    """
    state = samples.agent.agent_info.prev_rnn_state[0]
    state = state._make(s.transpose(0, 1).contiguous() for s in state)
    return state if device is None else batch_to_device(state, device)


def _cpu_numpy(*tensors: torch.Tensor | None) -> tuple[Any, ...] | None:
    """Numpy views of CPU tensors (None entries pass), or None if any tensor is elsewhere."""
    arrays: list[np.ndarray | None] = []
    for x in tensors:
        if x is None:
            arrays.append(None)
        elif isinstance(x, torch.Tensor) and x.device.type == "cpu" and not x.requires_grad:
            arrays.append(x.numpy())
        else:
            return None
    return tuple(arrays)


def _normalize(advantage: torch.Tensor, valid: torch.Tensor | None) -> torch.Tensor:
    if valid is None:
        mean, std = advantage.mean(), advantage.std()
    else:
        n = valid.sum().clamp(min=1)
        mean = (advantage * valid).sum() / n
        std = (((advantage - mean) * valid) ** 2).sum().div(n).sqrt()
    return (advantage - mean) / (std + 1e-6)
