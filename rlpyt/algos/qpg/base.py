"""QpgAlgo: what DDPG, TD3, SAC and SAC_V share (replay, schedules, the update loop, snapshots).

Box: Algorithm (Q-function policy gradient family). The runner calls ``initialize`` once after
the sampler built the agent, then ``optimize_agent(itr, samples)`` every iteration: the batch
goes into the replay, and from ``min_itr_learn`` on the algorithm takes
``updates_per_optimize`` gradient steps (``update``, written by each algorithm) on minibatches
drawn from it.

Replay: ``TlUniformReplayBuffer`` when ``bootstrap_timelimit`` and the env reports
``env_info.timeout``, so that a time limit bootstraps the target (``target_discount`` reaches
the last observed state) instead of ending the return; ``UniformReplayBuffer`` otherwise (every
done a terminal; envs without time limits work). ``ReplayBufferCls`` overrides the choice.

Invariant: all minibatches of one iteration (or, where targets are shared, up to the next target
update) come from one ``sample_batch`` call of uniform draws with replacement, which gives the
same distribution of minibatches as one draw per update; OptInfo values stay tensors until
``optimize_agent`` returns, so updates never wait on a conversion.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import torch

from rlpyt.algos.base import RlAlgorithm
from rlpyt.algos.pg.base import make_optimizer
from rlpyt.algos.replay_mixin import ReplayAlgoMixin
from rlpyt.replays.non_sequence.time_limit import TlUniformReplayBuffer
from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer
from rlpyt.utils.checks import check_number
from rlpyt.utils.logging import logger

if TYPE_CHECKING:
    from rlpyt.protocols import Agent
    from rlpyt.samplers.collections import BatchSpec, Samples
    from rlpyt.utils.collections import AttrDict

Records = dict[str, list[torch.Tensor]]


class QpgAlgo(ReplayAlgoMixin, RlAlgorithm):
    """Family base: keyword checks, replay, learning schedule, the update loop, snapshots.

    Subclasses set ``OptInfoCls`` and implement ``optim_initialize``, ``update`` and the
    optimizer state dict methods; ``shares_targets`` (and ``targets``) where the bootstrap
    target does not change between target updates (DDPG, TD3).
    """

    OptInfoCls: Any  # the algorithm's OptInfo namedtuple class
    prioritized_replay = False  # uniform replay only (rlpyt had no prioritized QPG)
    shares_targets = False  # targets of one draw computed in one pass (DDPG, TD3)
    agent: Agent  # set by initialize

    def _store_common(  # noqa: PLR0913, PLR0917 (the family's shared keywords)
        self,
        discount: float,
        batch_size: int,
        min_steps_learn: int,
        replay_size: int,
        replay_ratio: float,
        target_update_tau: float,
        target_update_interval: int,
        OptimCls: type[torch.optim.Optimizer],  # noqa: N803
        optim_kwargs: dict[str, Any] | None,
        initial_optim_state_dict: dict[str, Any] | None,
        clip_grad_norm: float,
        n_step_return: int,
        updates_per_sync: int,
        bootstrap_timelimit: bool,
        ReplayBufferCls: type | None,  # noqa: N803
        snapshot_replay: bool,
    ) -> None:
        """Check and store the keywords every QPG algorithm takes."""
        owner = type(self).__name__
        self.discount = check_number(owner, "discount", discount, low=0, high=1)
        self._batch_size = check_number(owner, "batch_size", batch_size, low=1, integer=True)
        self.min_steps_learn = check_number(
            owner, "min_steps_learn", min_steps_learn, low=0, integer=True
        )
        self.replay_size = check_number(owner, "replay_size", replay_size, low=1, integer=True)
        self.replay_ratio = check_number(owner, "replay_ratio", replay_ratio, low=0, low_open=True)
        self.target_update_tau = check_number(
            owner, "target_update_tau", target_update_tau, low=0, high=1, low_open=True
        )
        self.target_update_interval = check_number(
            owner, "target_update_interval", target_update_interval, low=1, integer=True
        )
        self.OptimCls = OptimCls
        self.optim_kwargs = dict(optim_kwargs or {})
        self.initial_optim_state_dict = initial_optim_state_dict
        self.clip_grad_norm = check_number(
            owner, "clip_grad_norm", clip_grad_norm, low=0, low_open=True, allow_inf=True
        )
        self.n_step_return = check_number(
            owner, "n_step_return", n_step_return, low=1, integer=True
        )
        self.updates_per_sync = check_number(
            owner, "updates_per_sync", updates_per_sync, low=1, integer=True
        )
        self.bootstrap_timelimit = bool(bootstrap_timelimit)
        self.ReplayBufferCls = ReplayBufferCls
        self.snapshot_replay = bool(snapshot_replay)

    # ---- set-up ---------------------------------------------------------------------------

    def initialize(
        self,
        agent: Agent,
        n_itr: int,
        batch_spec: BatchSpec,
        mid_batch_reset: bool,
        examples: AttrDict,
        world_size: int = 1,
        rank: int = 0,
    ) -> None:
        """Build the replay and the optimizers; tell the agent when learning starts.

        Args:
            agent: The initialized agent (``DdpgAgent``, ``Td3Agent``, ``SacAgent``, ...).
            n_itr: Iterations of the run.
            batch_spec: The sampler's ``BatchSpec(T, B)``; the replay has B columns.
            mid_batch_reset: False for wait-reset collectors: the steps after a column's
                first ``done`` in a batch are padding, never replayed.
            examples: The sampler's example step (observation, action, reward, done,
                env_info), from which the replay's storage is built.
            world_size: Data-parallel processes.
            rank: This process's rank.
        """
        self.agent = agent
        self.n_itr = n_itr
        self.mid_batch_reset = mid_batch_reset
        self.world_size = world_size
        self._setup_schedules(batch_spec)
        self.replay_buffer = self.make_replay_buffer(examples, batch_spec)
        self.optim_initialize(rank)

    def _setup_schedules(self, batch_spec: BatchSpec) -> None:
        """Updates per iteration and learning start; tell the agent when learning starts."""
        self.batch_spec = batch_spec
        self.sampler_bs = sampler_bs = batch_spec.size
        self.updates_per_optimize = max(1, round(self.replay_ratio * sampler_bs / self._batch_size))
        self.min_itr_learn = self.min_steps_learn // sampler_bs
        if hasattr(self.agent, "give_min_itr_learn"):  # TD3, SAC: exploration before learning
            self.agent.give_min_itr_learn(self.min_itr_learn)
        logger.log(
            f"{type(self).__name__}: {self.updates_per_optimize} updates of "
            f"{self._batch_size} per iteration of {sampler_bs} samples (replay ratio "
            f"{self.updates_per_optimize * self._batch_size / sampler_bs:g}), learning from "
            f"iteration {self.min_itr_learn}."
        )

    def stores_timeout(self, examples: AttrDict) -> bool:
        """Store ``timeout`` (bootstrap through time limits) only with ``bootstrap_timelimit``."""
        return self.bootstrap_timelimit and super().stores_timeout(examples)

    def replay_buffer_class(self, examples: AttrDict) -> type:
        """``ReplayBufferCls`` if given; else the time-limit replay when timeouts are stored."""
        if self.ReplayBufferCls is not None:
            logger.log(f"{type(self).__name__}: replay class given: {self.ReplayBufferCls}.")
            return self.ReplayBufferCls
        return TlUniformReplayBuffer if self.stores_timeout(examples) else UniformReplayBuffer

    def make_optimizer(
        self, params: Iterable[torch.Tensor], learning_rate: float
    ) -> torch.optim.Optimizer:
        """``OptimCls`` over ``params`` at ``learning_rate`` with ``optim_kwargs``."""
        return make_optimizer(self.OptimCls, list(params), learning_rate, self.optim_kwargs)

    # ---- training -------------------------------------------------------------------------

    def optimize_agent(
        self, itr: int, samples: Samples | None = None, sampler_itr: int | None = None
    ) -> Any:
        """Append the batch to the replay; from ``min_itr_learn`` on, take gradient steps.

        Args:
            itr: The runner's iteration.
            samples: The sampler's ``[T, B]`` batch (None: nothing to append).
            sampler_itr: The sampler's iteration (asynchronous runners; schedules follow it).

        Returns:
            The algorithm's OptInfo of lists of floats; empty lists before learning starts.
        """
        itr = itr if sampler_itr is None else sampler_itr
        if samples is not None:
            self.append_samples(samples)
        if not self.learning_at(itr):
            return self.OptInfoCls(**{field: [] for field in self.OptInfoCls._fields})
        records: Records = {field: [] for field in self.OptInfoCls._fields}
        remaining = self.updates_per_optimize
        while remaining:
            k = self.updates_per_draw(remaining, self.shares_targets)
            batch = self.draw(self._batch_size * k)
            targets = self.targets(batch) if self.shares_targets and k > 1 else None
            for j in range(k):
                rows = slice(j * self._batch_size, (j + 1) * self._batch_size)
                minibatch = batch if k == 1 else batch[rows]
                self.update(minibatch, None if targets is None else targets[rows], records)
            remaining -= k
        return opt_info_from(self.OptInfoCls, records)

    def targets(self, samples: Any) -> torch.Tensor:
        """Bootstrap targets ``y [batch]`` of replayed rows (algorithms that share them)."""
        raise NotImplementedError

    def update(self, samples: Any, target: torch.Tensor | None, records: Records) -> None:
        """One gradient step of every network on a minibatch; appends to ``records``."""
        raise NotImplementedError

    def step_optimizer(
        self, optimizer: torch.optim.Optimizer, params: list[torch.nn.Parameter]
    ) -> torch.Tensor:
        """Clip the gradients of ``params`` to ``clip_grad_norm``, step; return their norm."""
        grad_norm = torch.nn.utils.clip_grad_norm_(params, self.clip_grad_norm)
        optimizer.step()
        return grad_norm


def backward_into(loss: torch.Tensor, params: list[torch.Tensor]) -> None:
    """Gradients of ``loss`` into ``params`` only (their old gradients dropped).

    ``backward(inputs=...)`` skips the weight gradients of every other network the loss passes
    through (the Q networks under the policy loss) and still fires data-parallel hooks.
    """
    for param in params:
        param.grad = None
    loss.backward(inputs=params)


def opt_info_from(opt_info_cls: Any, records: Records) -> Any:
    """``opt_info_cls`` of Python float lists from per-update tensors (one conversion)."""
    return opt_info_cls(
        **{
            field: torch.cat([t.detach().reshape(-1) for t in values]).tolist() if values else []
            for field, values in records.items()
        }
    )
