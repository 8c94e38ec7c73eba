"""Replays that return the time-limit flags ``timeout`` and ``timeout_n``.

Box: Replay. DDPG, TD3 and SAC (``bootstrap_timelimit=True``) build ``TlUniformReplayBuffer``;
``TlPrioritizedReplayBuffer`` is its prioritized twin. The example must store ``timeout``
(``env_info.timeout``: the episode was truncated, not terminated). The maths (a timeout is not a
terminal: the window bootstraps from the last observed state of the episode) is the same in every
buffer whose example has ``timeout``; these classes only add the two fields to the batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlpyt.replays.async_ import AsyncReplayBufferMixin
from rlpyt.replays.non_sequence.n_step import NStepReturnBuffer, SamplesFromReplay
from rlpyt.replays.non_sequence.prioritized import PrioritizedReplay, SamplesFromReplayPri
from rlpyt.replays.non_sequence.uniform import UniformReplay
from rlpyt.replays.sum_tree import AsyncSumTree
from rlpyt.utils.collections import namedarraytuple

if TYPE_CHECKING:
    from rlpyt.utils.collections import NamedTupleLike

SamplesFromReplayTL = namedarraytuple(
    "SamplesFromReplayTL", SamplesFromReplay._fields + ("timeout", "timeout_n")
)
SamplesFromReplayPriTL = namedarraytuple(
    "SamplesFromReplayPriTL", SamplesFromReplayPri._fields + ("timeout", "timeout_n")
)


class NStepTimeLimitBuffer(NStepReturnBuffer):
    """n-step storage whose batches carry ``timeout`` (at t) and ``timeout_n``.

    ``timeout_n``: the window was cut by a time limit. Keywords: ``BaseNStepReturnBuffer``;
    ``example`` must have ``timeout``.
    """

    replay_batch_cls = SamplesFromReplayTL

    def __init__(self, example: NamedTupleLike, **kwargs: Any) -> None:
        if "timeout" not in getattr(example, "_fields", ()):
            raise ValueError(
                f"{type(self).__name__} needs a 'timeout' field in the example (e.g. "
                "SamplesToBuffer(observation, action, reward, done, timeout) filled from "
                "env_info.timeout); use UniformReplayBuffer when the env has no time limit."
            )
        super().__init__(example=example, **kwargs)


class TlUniformReplayBuffer(UniformReplay, NStepTimeLimitBuffer):
    """Uniform replay returning ``SamplesFromReplayTL``."""


class TlPrioritizedReplayBuffer(PrioritizedReplay, NStepTimeLimitBuffer):
    """Prioritized replay returning ``SamplesFromReplayPriTL``."""

    replay_batch_cls = SamplesFromReplayPriTL


class AsyncTlUniformReplayBuffer(
    AsyncReplayBufferMixin, TlUniformReplayBuffer, twin_of=TlUniformReplayBuffer
):
    """``TlUniformReplayBuffer`` in shared memory (asynchronous runner; see ``async_``)."""


class AsyncTlPrioritizedReplayBuffer(
    AsyncReplayBufferMixin, TlPrioritizedReplayBuffer, twin_of=TlPrioritizedReplayBuffer
):
    """``TlPrioritizedReplayBuffer`` in shared memory, with an ``AsyncSumTree``."""

    SumTreeCls = AsyncSumTree
