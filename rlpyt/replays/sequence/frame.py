"""Sequence replays over frame-wise storage (R2D1 on Atari).

Box: Replay. R2D1 builds ``PrioritizedSequenceReplayFrameBuffer`` (or the uniform one) when the
observation is a ``[C, H, W]`` uint8 frame stack: one frame per step is stored
(``rlpyt.replays.frame.FrameBufferMixin``) and ``all_observation [batch_T + n, batch_B, C, H, W]``
is rebuilt with the frames before each step's episode start zeroed, as AtariEnv produced them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rlpyt.replays.async_ import AsyncReplayBufferMixin
from rlpyt.replays.frame import FrameBufferMixin
from rlpyt.replays.sequence.n_step import SequenceNStepReturnBuffer
from rlpyt.replays.sequence.prioritized import (
    AsyncSequenceSumTree,
    PrioritizedSequenceReplay,
    SamplesFromReplayPri,
)
from rlpyt.replays.sequence.uniform import UniformSequenceReplay
from rlpyt.utils.keywords import extends_keywords

if TYPE_CHECKING:
    pass


@extends_keywords(parent=SequenceNStepReturnBuffer)  # FrameBufferMixin passes them on
class SequenceNStepFrameBuffer(FrameBufferMixin, SequenceNStepReturnBuffer):
    """Sequence storage with one stored frame per step.

    Keywords: ``SequenceNStepReturnBuffer``; ``example.observation`` a ``[C, H, W]`` uint8
    frame stack.
    """


class UniformSequenceReplayFrameBuffer(UniformSequenceReplay, SequenceNStepFrameBuffer):
    """Uniform sequence replay over frame-wise storage."""


class PrioritizedSequenceReplayFrameBuffer(PrioritizedSequenceReplay, SequenceNStepFrameBuffer):
    """Prioritized sequence replay over frame-wise storage (``PrioritizedSequenceReplay``)."""

    replay_batch_cls = SamplesFromReplayPri


class AsyncUniformSequenceReplayFrameBuffer(
    AsyncReplayBufferMixin, UniformSequenceReplayFrameBuffer
):
    """``UniformSequenceReplayFrameBuffer`` in shared memory behind a reader-writer lock."""


class AsyncPrioritizedSequenceReplayFrameBuffer(
    AsyncReplayBufferMixin, PrioritizedSequenceReplayFrameBuffer
):
    """The prioritized frame buffer in shared memory, with an ``AsyncSequenceSumTree``."""

    SumTreeCls = AsyncSequenceSumTree
