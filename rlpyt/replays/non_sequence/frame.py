"""Non-sequence replays over frame-wise storage (Atari DQN's default buffers).

Box: Replay. DQN builds ``UniformReplayFrameBuffer`` (or ``PrioritizedReplayFrameBuffer`` with
``prioritized_replay=True``) when the observation is a ``[C, H, W]`` uint8 frame stack. Batches
are the same records as the non-frame buffers; observations are rebuilt by
``FrameBufferMixin.extract_observation``.
"""

from __future__ import annotations

from rlpyt.replays.async_ import AsyncReplayBufferMixin
from rlpyt.replays.frame import FrameBufferMixin
from rlpyt.replays.non_sequence.n_step import NStepReturnBuffer
from rlpyt.replays.non_sequence.prioritized import (
    PrioritizedReplay,
    SamplesFromReplayPri,
)
from rlpyt.replays.non_sequence.uniform import UniformReplay
from rlpyt.replays.sum_tree import AsyncSumTree


class NStepFrameBuffer(FrameBufferMixin, NStepReturnBuffer):
    """n-step storage with one stored frame per step (keywords: ``BaseNStepReturnBuffer``)."""


class UniformReplayFrameBuffer(UniformReplay, NStepFrameBuffer):
    """Uniform replay over frame-wise storage."""


class PrioritizedReplayFrameBuffer(PrioritizedReplay, NStepFrameBuffer):
    """Prioritized replay over frame-wise storage (keywords: ``PrioritizedReplay``)."""

    replay_batch_cls = SamplesFromReplayPri


class AsyncUniformReplayFrameBuffer(
    AsyncReplayBufferMixin, UniformReplayFrameBuffer, twin_of=UniformReplayFrameBuffer
):
    """``UniformReplayFrameBuffer`` in shared memory (asynchronous runner; see ``async_``)."""


class AsyncPrioritizedReplayFrameBuffer(
    AsyncReplayBufferMixin, PrioritizedReplayFrameBuffer, twin_of=PrioritizedReplayFrameBuffer
):
    """``PrioritizedReplayFrameBuffer`` in shared memory, with an ``AsyncSumTree``."""

    SumTreeCls = AsyncSumTree
