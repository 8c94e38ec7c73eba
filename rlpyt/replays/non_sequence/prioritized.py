"""Prioritized experience replay (Schaul et al. 2016, arXiv 1511.05952) for non-sequence data.

Box: Replay. ``PrioritizedReplayBuffer`` is the concrete buffer DQN builds with
``prioritized_replay=True``: the ``PrioritizedReplay`` mixin (``rlpyt/replays/prioritized.py``,
shared with the sequence replays; exported here too, rlpyt's path) over ``NStepReturnBuffer``,
replaying ``SamplesFromReplayPri`` (the transition plus its ``is_weights``).
"""

from __future__ import annotations

from rlpyt.replays.async_ import AsyncReplayBufferMixin
from rlpyt.replays.non_sequence.n_step import NStepReturnBuffer, SamplesFromReplay
from rlpyt.replays.prioritized import PrioritizedReplay, SamplesToBufferPri
from rlpyt.replays.sum_tree import AsyncSumTree
from rlpyt.utils.collections import namedarraytuple

__all__ = [
    "AsyncPrioritizedReplayBuffer",
    "PrioritizedReplay",
    "PrioritizedReplayBuffer",
    "SamplesFromReplayPri",
    "SamplesToBufferPri",
]

SamplesFromReplayPri = namedarraytuple(
    "SamplesFromReplayPri", SamplesFromReplay._fields + ("is_weights",)
)
"""``SamplesFromReplay`` plus ``is_weights [batch_B]`` (float32)."""


class PrioritizedReplayBuffer(PrioritizedReplay, NStepReturnBuffer):
    """Prioritized replay of ``SamplesFromReplayPri``.

    Keywords: ``PrioritizedReplay`` and ``BaseNStepReturnBuffer``.
    """

    replay_batch_cls = SamplesFromReplayPri


class AsyncPrioritizedReplayBuffer(
    AsyncReplayBufferMixin, PrioritizedReplayBuffer, twin_of=PrioritizedReplayBuffer
):
    """``PrioritizedReplayBuffer`` in shared memory, with an ``AsyncSumTree`` (see ``async_``)."""

    SumTreeCls = AsyncSumTree
