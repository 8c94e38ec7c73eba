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

from abc import abstractmethod
from typing import TYPE_CHECKING

from rlpyt.algos.base import opt_info_from
from rlpyt.algos.replay_base import Records, ReplayRlAlgorithm, backward_into
from rlpyt.protocols import MinItrLearnAgent
from rlpyt.replays.non_sequence.time_limit import TlUniformReplayBuffer
from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer
from rlpyt.utils.hyperparams import hyperparam
from rlpyt.utils.logging import logger

if TYPE_CHECKING:
    from rlpyt.utils.collections import AttrDict
    from rlpyt.utils.records import BatchSpec

__all__ = ["QpgAlgo", "Records", "backward_into", "opt_info_from"]


class QpgAlgo(ReplayRlAlgorithm):
    """Family base: the keywords every QPG algorithm takes, uniform replay, learning start.

    The defaults here are SAC's; keywords not declared here are
    :class:`ReplayRlAlgorithm`'s (``learning_rate``: the policy's; SAC: every network's).
    Subclasses add and change keywords by declaration, set their OptInfo and implement
    ``build_optimizers``, ``update`` and the optimizer state dict methods; ``shares_targets``
    (and ``targets``) where the bootstrap target does not change between target updates (DDPG,
    TD3).

    Raises:
        ValueError, TypeError: a number out of range (the message names keyword and range).
    """

    batch_size = hyperparam(256)
    min_steps_learn = hyperparam(int(1e4))
    replay_ratio = hyperparam(256)
    target_update_tau = hyperparam(0.005)
    target_update_interval = hyperparam(1)
    learning_rate = hyperparam(3e-4)
    clip_grad_norm = hyperparam(1e9)
    n_step_return = hyperparam(after="clip_grad_norm")
    bootstrap_timelimit: bool = hyperparam(
        True,
        "A time limit (``env_info.timeout``) bootstraps the target from the last observed "
        "state; False: every done is a terminal.",
        after="updates_per_sync",
    )
    ReplayBufferCls = hyperparam(
        None,
        "Replay class to use instead of the chosen one (``TlUniformReplayBuffer`` when time "
        "limits are bootstrapped and the env reports them, else ``UniformReplayBuffer``).",
        after="bootstrap_timelimit",
    )

    prioritized_replay = False  # uniform replay only

    @abstractmethod
    def build_optimizers(self) -> None:
        """Build the optimizers over the agent's parameters (each algorithm's)."""

    def _setup_schedules(self, batch_spec: BatchSpec) -> None:
        """The base's schedules; agents that explore before learning (TD3, SAC) get its start."""
        super()._setup_schedules(batch_spec)
        if isinstance(self.agent, MinItrLearnAgent):
            self.agent.give_min_itr_learn(self.min_itr_learn)

    def stores_timeout(self, examples: AttrDict) -> bool:
        """Store ``timeout`` (bootstrap through time limits) only with ``bootstrap_timelimit``."""
        return self.bootstrap_timelimit and super().stores_timeout(examples)

    def replay_buffer_class(self, examples: AttrDict) -> type:
        """``ReplayBufferCls`` if given; else the time-limit replay when timeouts are stored."""
        if self.ReplayBufferCls is not None:
            logger.log(f"{type(self).__name__}: replay class given: {self.ReplayBufferCls}.")
            return self.ReplayBufferCls
        return TlUniformReplayBuffer if self.stores_timeout(examples) else UniformReplayBuffer
