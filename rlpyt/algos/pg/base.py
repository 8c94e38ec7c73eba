"""PolicyGradientAlgo: shared set-up and return processing of A2C and PPO."""

from __future__ import annotations

import inspect
from collections import namedtuple
from typing import Any

from rlpyt.algos.base import RlAlgorithm
from rlpyt.algos.utils import (
    discount_return,
    discount_return_tl,
    generalized_advantage_estimation,
    generalized_advantage_estimation_tl,
    valid_from_done,
)

OptInfo = namedtuple("OptInfo", ["loss", "gradNorm", "entropy", "perplexity"])
AgentTrain = namedtuple("AgentTrain", ["dist_info", "value"])


class PolicyGradientAlgo(RlAlgorithm):
    """On-policy algorithms over ``[T, B]`` batches with a bootstrap value ``V(s_T)``."""

    bootstrap_value = True
    opt_info_fields = tuple(f for f in OptInfo._fields)
    # Hyperparameters, stored by the concrete algorithms' constructors.
    discount: float
    learning_rate: float
    OptimCls: type
    optim_kwargs: dict
    initial_optim_state_dict: dict | None
    gae_lambda: float
    normalize_advantage: bool

    def initialize(
        self,
        agent: Any,
        n_itr: int,
        batch_spec: Any,
        mid_batch_reset: bool = False,
        examples: Any = None,
        world_size: int = 1,
        rank: int = 0,
    ) -> None:
        """Build the optimizer over the agent's parameters; remember the batch layout."""
        self.agent = agent
        self.n_itr = n_itr
        self.batch_spec = batch_spec
        self.mid_batch_reset = mid_batch_reset
        self.world_size = world_size
        self.rank = rank
        self.optimizer = self.OptimCls(
            agent.parameters(),
            lr=self.learning_rate,
            **with_foreach(self.OptimCls, self.optim_kwargs),
        )
        if self.initial_optim_state_dict is not None:
            self.optimizer.load_state_dict(self.initial_optim_state_dict)

    def process_returns(self, samples: Any) -> tuple[Any, Any, Any]:
        """Returns, advantages and the valid mask of a batch.

        Plain discounted returns when ``gae_lambda == 1``, else GAE; ``done`` cuts the
        recursion; a step cut by a time limit (``env_info.timeout``) bootstraps from the value
        instead of counting as terminal. ``valid`` masks steps after the first ``done`` of a
        column when envs were not reset mid-batch, or for recurrent agents.

        Returns:
            ``(return_ [T, B], advantage [T, B], valid [T, B] or None)``.
        """
        reward, done = samples.env.reward, samples.env.done
        value = samples.agent.agent_info.value
        bootstrap_value = samples.agent.bootstrap_value
        done = done.to(reward.dtype)
        timeout = getattr(samples.env.env_info, "timeout", None)
        if timeout is not None and bool(timeout.any()):
            if self.gae_lambda == 1:
                return_ = discount_return_tl(
                    reward, done, bootstrap_value, self.discount, timeout, value
                )
                advantage = return_ - value
            else:
                advantage, return_ = generalized_advantage_estimation_tl(
                    reward,
                    value,
                    done,
                    bootstrap_value,
                    self.discount,
                    self.gae_lambda,
                    timeout,
                )
        elif self.gae_lambda == 1:
            return_ = discount_return(reward, done, bootstrap_value, self.discount)
            advantage = return_ - value
        else:
            advantage, return_ = generalized_advantage_estimation(
                reward, value, done, bootstrap_value, self.discount, self.gae_lambda
            )
        valid = None
        if not self.mid_batch_reset or self.agent.recurrent:
            valid = valid_from_done(done)
        if self.normalize_advantage:
            advantage = _normalize(advantage, valid)
        return return_, advantage, valid


def with_foreach(OptimCls: type, optim_kwargs: dict) -> dict:  # noqa: N803
    """``optim_kwargs`` plus ``foreach=True`` where the optimizer takes it and nobody chose.

    torch uses its multi-tensor ("foreach") update only on CUDA by default; on the CPU the
    per-parameter loop costs more than the maths for the small models of RL (about half of an
    Adam step here). The update is the same.
    """
    if "foreach" in optim_kwargs or "foreach" not in inspect.signature(OptimCls).parameters:
        return optim_kwargs
    return {**optim_kwargs, "foreach": True}


def initial_rnn_state(samples: Any, device: Any) -> Any:
    """The recurrent state at the start of the batch, ``[N, B, H]``, on ``device``.

    Samplers record ``agent_info.prev_rnn_state`` at every step as ``[B, N, H]``; training
    starts each sequence from the state of step 0, in the model's ``[N, B, H]`` layout.
    """
    state = samples.agent.agent_info.prev_rnn_state[0]
    return state._make(s.transpose(0, 1).contiguous().to(device) for s in state)


def _normalize(advantage: Any, valid: Any) -> Any:
    if valid is None:
        mean, std = advantage.mean(), advantage.std()
    else:
        n = valid.sum().clamp(min=1)
        mean = (advantage * valid).sum() / n
        std = (((advantage - mean) * valid) ** 2).sum().div(n).sqrt()
    return (advantage - mean) / (std + 1e-6)
