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

from typing import TYPE_CHECKING

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
    """Family base: uniform replay with time-limit bootstrapping, learning start to the agent.

    Subclasses set ``OptInfoCls`` and implement ``optim_initialize``, ``update`` and the
    optimizer state dict methods; ``shares_targets`` (and ``targets``) where the bootstrap
    target does not change between target updates (DDPG, TD3).
    """

    prioritized_replay = False  # uniform replay only (rlpyt had no prioritized QPG)
    bootstrap_timelimit: bool

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
