"""QpgAlgo: what DDPG, TD3, SAC and SAC_V share beyond the replay base: their replay choice.

Box: Algorithm (Q-function policy gradient family). Set-up, schedules, the update loop, target
updates and OptInfo are ``rlpyt.algos.replay_base.ReplayRlAlgorithm``'s; each algorithm writes
its optimizers, ``update`` and losses. Here: learning start is handed to agents that explore
before it (TD3, SAC), and the replay is chosen.

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

from typing import TYPE_CHECKING, Any

import torch

from rlpyt.algos.base import opt_info_from
from rlpyt.algos.replay_base import Records, ReplayRlAlgorithm, backward_into
from rlpyt.replays.non_sequence.time_limit import TlUniformReplayBuffer
from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer
from rlpyt.utils.logging import logger

if TYPE_CHECKING:
    from rlpyt.utils.collections import AttrDict
    from rlpyt.utils.records import BatchSpec

__all__ = ["QpgAlgo", "Records", "backward_into", "opt_info_from"]


class QpgAlgo(ReplayRlAlgorithm):
    """Family base: the keywords every QPG algorithm takes, uniform replay, learning start.

    Subclasses add their own keywords with ``rlpyt.utils.keywords.extends_keywords`` (their
    defaults where they differ, rlpyt's positional order), set ``OptInfoCls`` and implement
    ``build_optimizers``, ``update`` and the optimizer state dict methods; ``shares_targets``
    (and ``targets``) where the bootstrap target does not change between target updates (DDPG,
    TD3). The defaults here are SAC's.

    Args:
        discount: Discount gamma.
        batch_size: Replayed transitions per gradient step.
        min_steps_learn: Env steps (over all envs) before the first gradient step.
        replay_size: Replay capacity in transitions.
        replay_ratio: Replayed transitions per sampled transition: each iteration takes
            ``max(1, round(replay_ratio * T * B / batch_size))`` gradient steps (never 0,
            rlpyt bug 20).
        target_update_tau: Polyak weight of the target updates (1: hard copy).
        target_update_interval: Updates between target updates.
        learning_rate: The policy's learning rate (SAC: every network's).
        OptimCls: Torch optimizer class (one per network).
        optim_kwargs: Extra optimizer keywords.
        initial_optim_state_dict: ``optim_state_dict()`` output to start from.
        clip_grad_norm: Max gradient norm, per network.
        n_step_return: Rewards summed before bootstrapping.
        updates_per_sync: Gradient steps between parameter publications (asynchronous
            runners).
        bootstrap_timelimit: A time limit (``env_info.timeout``) bootstraps the target from the
            last observed state; False: every done is a terminal.
        ReplayBufferCls: Replay class to use instead of the chosen one (``TlUniformReplayBuffer``
            when time limits are bootstrapped and the env reports them, else
            ``UniformReplayBuffer``).
        snapshot_replay: Put the replay in every snapshot, so a resumed run continues exactly.

    Raises:
        ValueError, TypeError: a number out of range (the message names keyword and range).
    """

    prioritized_replay = False  # uniform replay only (rlpyt had no prioritized QPG)
    bootstrap_timelimit: bool

    def __init__(  # noqa: PLR0913, PLR0917 (rlpyt's keywords, positional in its order)
        self,
        discount: float = 0.99,
        batch_size: int = 256,
        min_steps_learn: int = int(1e4),
        replay_size: int = int(1e6),
        replay_ratio: float = 256,
        target_update_tau: float = 0.005,
        target_update_interval: int = 1,
        learning_rate: float = 3e-4,
        OptimCls: type[torch.optim.Optimizer] = torch.optim.Adam,  # noqa: N803
        optim_kwargs: dict[str, Any] | None = None,
        initial_optim_state_dict: dict[str, Any] | None = None,
        clip_grad_norm: float = 1e9,
        n_step_return: int = 1,
        updates_per_sync: int = 1,
        bootstrap_timelimit: bool = True,
        ReplayBufferCls: type | None = None,  # noqa: N803
        snapshot_replay: bool = False,
    ):
        self.store_keywords(
            discount=discount,
            batch_size=batch_size,
            min_steps_learn=min_steps_learn,
            replay_size=replay_size,
            replay_ratio=replay_ratio,
            target_update_tau=target_update_tau,
            target_update_interval=target_update_interval,
            learning_rate=learning_rate,
            OptimCls=OptimCls,
            optim_kwargs=optim_kwargs,
            initial_optim_state_dict=initial_optim_state_dict,
            clip_grad_norm=clip_grad_norm,
            n_step_return=n_step_return,
            updates_per_sync=updates_per_sync,
            bootstrap_timelimit=bootstrap_timelimit,
            ReplayBufferCls=ReplayBufferCls,
            snapshot_replay=snapshot_replay,
        )

    def optim_initialize(self, rank: int = 0) -> None:
        """Build the optimizers (:meth:`build_optimizers`); load ``initial_optim_state_dict``.

        Asynchronous runners call it in the optimizer process, whose policy is a copy apart
        from the shared one (``own_optim_model``).
        """
        self.rank = rank
        self.own_optim_model()
        self.build_optimizers()
        if self.initial_optim_state_dict is not None:
            self.load_optim_state_dict(self.initial_optim_state_dict)

    def build_optimizers(self) -> None:
        """Build the optimizers over the agent's parameters (each algorithm's)."""
        raise NotImplementedError

    def _setup_schedules(self, batch_spec: BatchSpec) -> None:
        """The base's schedules; agents that explore before learning (TD3, SAC) get its start."""
        super()._setup_schedules(batch_spec)
        give_min_itr_learn = getattr(self.agent, "give_min_itr_learn", None)
        if give_min_itr_learn is not None:
            give_min_itr_learn(self.min_itr_learn)

    def stores_timeout(self, examples: AttrDict) -> bool:
        """Store ``timeout`` (bootstrap through time limits) only with ``bootstrap_timelimit``."""
        return self.bootstrap_timelimit and super().stores_timeout(examples)

    def replay_buffer_class(self, examples: AttrDict) -> type:
        """``ReplayBufferCls`` if given; else the time-limit replay when timeouts are stored."""
        if self.ReplayBufferCls is not None:
            logger.log(f"{type(self).__name__}: replay class given: {self.ReplayBufferCls}.")
            return self.ReplayBufferCls
        return TlUniformReplayBuffer if self.stores_timeout(examples) else UniformReplayBuffer
