"""Sequence replays over frame-wise storage (R2D1 on Atari).

Box: Replay. R2D1 builds ``PrioritizedSequenceReplayFrameBuffer`` (or the uniform one) when the
observation is a ``[C, H, W]`` uint8 frame stack: one frame per step is stored
(``rlpyt.replays.frame.FrameBufferMixin``) and ``all_observation [batch_T + n, batch_B, C, H, W]``
is rebuilt with the frames before each step's episode start zeroed, as AtariEnv produced them.
With ``compact_frames`` (R2D1 sets it when it trains on a GPU) ``all_observation`` is instead a
``FrameStack`` of one frame per step, a quarter of the bytes to gather on the host and to copy to
the device, where ``stack_frames`` rebuilds the same observations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rlpyt.replays.async_ import AsyncReplayBufferMixin
from rlpyt.replays.frame import FrameBufferMixin
from rlpyt.replays.sequence.n_step import SequenceNStepReturnBuffer
from rlpyt.replays.sequence.prioritized import (
    AsyncSequenceSumTree,
    PrioritizedSequenceReplay,
    SamplesFromReplayPri,
)
from rlpyt.replays.sequence.uniform import UniformSequenceReplay

if TYPE_CHECKING:
    from rlpyt.utils.collections import NamedTupleLike


class SequenceNStepFrameBuffer(FrameBufferMixin, SequenceNStepReturnBuffer):
    """Sequence storage with one stored frame per step.

    Keywords: ``SequenceNStepReturnBuffer``; ``example.observation`` a ``[C, H, W]`` uint8
    frame stack.

    Attributes:
        compact_frames: Sample ``all_observation`` as a ``FrameStack`` (one frame per step and
            the zero mask) rather than ``[L, B, C, H, W]`` observations (default False).
    """

    compact_frames: bool = False

    def __init__(  # noqa: PLR0917 (rlpyt's keywords, positional in its order)
        self,
        example: NamedTupleLike,
        size: int,
        B: int,  # noqa: N803
        rnn_state_interval: int,
        batch_T: int,  # noqa: N803
        discount: float = 1,
        n_step_return: int = 1,
    ) -> None:
        super().__init__(
            example=example,
            size=size,
            B=B,
            rnn_state_interval=rnn_state_interval,
            batch_T=batch_T,
            discount=discount,
            n_step_return=n_step_return,
        )

    def extract_sequence_observation(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> Any:
        """``[L, B, C, H, W]`` observations, or with ``compact_frames`` their ``FrameStack``."""
        if self.compact_frames:
            return self.extract_frame_stack(T_idxs, B_idxs)
        return self.extract_observation(T_idxs, B_idxs)


class UniformSequenceReplayFrameBuffer(UniformSequenceReplay, SequenceNStepFrameBuffer):
    """Uniform sequence replay over frame-wise storage."""


class PrioritizedSequenceReplayFrameBuffer(PrioritizedSequenceReplay, SequenceNStepFrameBuffer):
    """Prioritized sequence replay over frame-wise storage (``PrioritizedSequenceReplay``)."""

    replay_batch_cls = SamplesFromReplayPri


class AsyncUniformSequenceReplayFrameBuffer(
    AsyncReplayBufferMixin,
    UniformSequenceReplayFrameBuffer,
    twin_of=UniformSequenceReplayFrameBuffer,
):
    """``UniformSequenceReplayFrameBuffer`` in shared memory behind a reader-writer lock."""


class AsyncPrioritizedSequenceReplayFrameBuffer(
    AsyncReplayBufferMixin,
    PrioritizedSequenceReplayFrameBuffer,
    twin_of=PrioritizedSequenceReplayFrameBuffer,
):
    """The prioritized frame buffer in shared memory, with an ``AsyncSequenceSumTree``."""

    SumTreeCls = AsyncSequenceSumTree
