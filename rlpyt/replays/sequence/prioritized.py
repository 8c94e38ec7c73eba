"""Prioritized replay of sequences: one priority per stored-state row (R2D1's default).

Box: Replay. ``PrioritizedSequenceReplayBuffer`` is what R2D1 builds with
``prioritized_replay=True``. Who calls it: R2D1 appends each sampler batch (with
``input_priorities``, ``SamplesToBufferPri(samples, priorities)`` holding one priority per
stored-state row of the chunk), samples ``batch_B`` sequences, then reports one priority per
sequence (``update_batch_priorities``, R2D1's ``eta * max + (1 - eta) * mean`` of |TD|).

Invariant: the ``SequenceSumTree`` has one leaf per stored-state row and column
(``T // period x B`` leaves); a leaf is non-zero exactly while its sequence may be sampled: its
whole span written, none of it about to be overwritten, its start row written valid (the rule of
``start_leaf_range``). Priorities live in the tree as ``p ** alpha``, input priorities
too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from rlpyt.replays.async_ import AsyncReplayBufferMixin
from rlpyt.replays.prioritized import PrioritizedReplay, SamplesToBufferPri
from rlpyt.replays.sequence.n_step import (
    SamplesFromReplay,
    SequenceNStepReturnBuffer,
    start_leaf_range,
)
from rlpyt.replays.sum_tree import AsyncSumTree, SumTree
from rlpyt.utils.collections import namedarraytuple

if TYPE_CHECKING:
    from rlpyt.utils.collections import NamedTupleLike

SamplesFromReplayPri = namedarraytuple(
    "SamplesFromReplayPri", SamplesFromReplay._fields + ("is_weights",)
)
"""``SamplesFromReplay`` of sequences plus ``is_weights [batch_B]`` (float32)."""

__all__ = [
    "AsyncPrioritizedSequenceReplayBuffer",
    "AsyncSequenceSumTree",
    "PrioritizedSequenceReplay",
    "PrioritizedSequenceReplayBuffer",
    "SamplesFromReplayPri",
    "SamplesToBufferPri",
    "SequenceSumTree",
]


class SequenceSumTree(SumTree):
    """Sum tree with one leaf per stored-state row of a sequence replay.

    Its cursor ``t`` counts storage rows (like the replay's), not leaves, so chunks of any
    length move it; leaves turn on and off by ``start_leaf_range``.

    Args:
        T: Rows of the replay's storage (a multiple of ``period``).
        B: Columns of the replay.
        period: Rows per leaf (``max(1, rnn_state_interval)``); leaf i is start row
            ``i * period``.
        off_backward: Rows a sequence reads from its start on (``batch_T + n_step_return``).
        off_forward: Rows before its start that it reads (1, or frames - 1).
        default_value: Leaf value when it turns on (already ``p ** alpha``).
        enable_input_priorities: Keep one input priority per leaf.
        input_priority_shift: Input priorities given with the chunk holding stored-state row i
            belong to the leaf ``i - input_priority_shift`` (R2D1: ``warmup_T // period``).
        rng: Generator for the draws.
        valid: The replay's ``[T, B]`` valid flags; a leaf whose start row is invalid turns on
            at 0.
    """

    def __init__(  # noqa: PLR0917 (the storage's shape, then SumTree's keywords)
        self,
        T: int,  # noqa: N803
        B: int,  # noqa: N803
        period: int,
        off_backward: int,
        off_forward: int,
        default_value: float = 1,
        enable_input_priorities: bool = False,
        input_priority_shift: int = 0,
        *,
        rng: np.random.Generator | None = None,
        valid: np.ndarray | None = None,
    ) -> None:
        if T % period:
            raise ValueError(
                f"SequenceSumTree: T={T} storage rows must be a multiple of period={period} "
                "(the sequence replays round T up)."
            )
        self.period = period
        self.storage_T = T
        super().__init__(
            T=T // period,
            B=B,
            off_backward=off_backward,
            off_forward=off_forward,
            default_value=default_value,
            enable_input_priorities=enable_input_priorities,
            input_priority_shift=input_priority_shift,
            rng=rng,
            valid=valid,
        )

    def _leaf_range(self, t_abs: int) -> tuple[int, int]:
        """Leaves on when ``t_abs`` rows are written (unwrapped: ``t_abs >= T`` once full)."""
        full = t_abs >= self.storage_T
        t = t_abs - self.storage_T if full else t_abs
        return start_leaf_range(
            t, full, self.storage_T, self.period, self.off_forward, self.off_backward
        )

    def advance(self, T: int, priorities: ArrayLike | None = None) -> None:
        """Move the cursor by ``T`` storage rows; switch the leaves whose sequences changed.

        Args:
            T: Rows just written at the cursor.
            priorities: Optional ``[S, B]`` input priorities (already ``p ** alpha``), S the
                stored-state rows in the chunk (``T // period`` when the chunk starts at a
                multiple of ``period``).
        """
        if T == 0:
            return
        # Both ranges in one unwrapped frame: rows written so far, counted from this lap's
        # start minus one lap once full (so the new range may pass ``T // period``).
        t_abs = self.t + (self.storage_T if self._buffer_full else 0)
        old_lo, old_hi = self._leaf_range(t_abs)
        lo, hi = self._leaf_range(t_abs + T)
        if priorities is not None:
            self._store_input_priorities(t_abs, T, priorities)
        self._buffer_full = self._buffer_full or self.t + T >= self.storage_T
        self.t = (self.t + T) % self.storage_T
        off = np.arange(old_lo, min(lo, old_hi + 1)) % self.T  # were on, now too old
        on = np.arange(max(old_hi + 1, lo), hi + 1) % self.T  # spans completed by this chunk
        self.priorities[off] = 0  # before ``on``: after a long chunk a slot may be in both
        if on.size:
            values = (
                self.default_value if self.input_priorities is None else self.input_priorities[on]
            )
            if self.valid is not None:
                values = values * self.valid[on * self.period]
            self.priorities[on] = values
        rows = np.unique(np.concatenate([off, on]))
        if rows.size:
            self._propagate((self.low_idx + rows[:, None] * self.B + np.arange(self.B)).ravel())

    def _store_input_priorities(self, t_abs: int, T: int, priorities: ArrayLike) -> None:
        if self.input_priorities is None:
            raise ValueError(
                "The replay got input priorities but was built with input_priorities=False; "
                "build it with input_priorities=True (or append plain samples)."
            )
        first = -(-t_abs // self.period)  # first stored-state row of the chunk, unwrapped
        leaves = np.arange(first, -(-(t_abs + T) // self.period))
        values = np.asarray(priorities, np.float64)
        if values.ndim == 0 or values.shape[0] != leaves.size:
            raise ValueError(
                f"Input priorities of shape {values.shape} for a chunk of {T} rows written at "
                f"row {t_abs % self.storage_T}: give one priority per stored-state row of the "
                f"chunk, [{leaves.size}, B] (rows at multiples of {self.period})."
            )
        leaves -= self.input_priority_shift
        keep = leaves >= 0  # priorities of leaves before the first one have no leaf
        values = np.broadcast_to(values, (leaves.size, self.B))
        self.input_priorities[leaves[keep] % self.T] = values[keep]

    def sample(self, n: int, unique: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Draw ``n`` sequences proportionally to priority.

        Returns:
            ``(T_idxs, B_idxs, priorities)``, each ``[n]``: start rows in storage rows
            (``leaf * period``), columns and the drawn leaf values.
        """
        leaf_rows, B_idxs, values = super().sample(n, unique)
        return leaf_rows * self.period, B_idxs, values


class AsyncSequenceSumTree(SequenceSumTree, AsyncSumTree):
    """``SequenceSumTree`` with its nodes, input priorities and cursor in shared memory."""


class PrioritizedSequenceReplay(PrioritizedReplay, SequenceNStepReturnBuffer):
    """Prioritized sampling of sequence starts (mixin over ``SequenceNStepReturnBuffer``).

    Args:
        example, size, B, rnn_state_interval, batch_T, discount, n_step_return: The storage
            keywords (``SequenceNStepReturnBuffer``).
        alpha: Priority exponent.
        beta: Importance-weight exponent (the algorithm anneals it through ``set_beta``).
        default_priority: Priority of a sequence when it turns on (``** alpha``).
        unique: Sample without replacement.
        input_priorities: ``append_samples`` takes ``SamplesToBufferPri(samples,
            priorities)`` with one priority per stored-state row of the chunk.
        input_priority_shift: Stored-state rows by which input priorities are shifted back.
    """

    SumTreeCls: Any = SequenceSumTree

    def __init__(  # noqa: PLR0917 (the storage's keywords, then the priorities')
        self,
        example: NamedTupleLike,
        size: int,
        B: int,  # noqa: N803
        rnn_state_interval: int,
        batch_T: int,  # noqa: N803
        discount: float = 1,
        n_step_return: int = 1,
        alpha: float = 0.6,
        beta: float = 0.4,
        default_priority: float = 1,
        unique: bool = False,
        input_priorities: bool = False,
        input_priority_shift: int = 0,
    ) -> None:
        super().__init__(
            alpha=alpha,
            beta=beta,
            default_priority=default_priority,
            unique=unique,
            input_priorities=input_priorities,
            input_priority_shift=input_priority_shift,
            example=example,
            size=size,
            B=B,
            rnn_state_interval=rnn_state_interval,
            batch_T=batch_T,
            discount=discount,
            n_step_return=n_step_return,
        )

    def priority_tree_kwargs(self) -> dict[str, Any]:
        """The base's tree keywords, with one leaf per stored-state row and column.

        A sequence needs ``span_forward`` rows before the cursor (``off_backward``).
        """
        return {
            **super().priority_tree_kwargs(),
            "period": self.period,
            "off_backward": self.span_forward,
        }


class PrioritizedSequenceReplayBuffer(PrioritizedSequenceReplay, SequenceNStepReturnBuffer):
    """Prioritized replay of sequences, returning ``SamplesFromReplayPri``."""

    replay_batch_cls = SamplesFromReplayPri


class AsyncPrioritizedSequenceReplayBuffer(
    AsyncReplayBufferMixin, PrioritizedSequenceReplayBuffer, twin_of=PrioritizedSequenceReplayBuffer
):
    """``PrioritizedSequenceReplayBuffer`` in shared memory, with an ``AsyncSequenceSumTree``."""

    SumTreeCls = AsyncSequenceSumTree
