"""Uniform sampling of sequence starts (R2D1 with ``prioritized_replay=False``).

Box: Replay. ``UniformSequenceReplay`` is the sampling mixin, ``UniformSequenceReplayBuffer``
the concrete buffer. Who calls it: R2D1, ``sample_batch(batch_B)`` once per gradient step.
Invariant: starts are drawn with replacement, uniformly over the stored-state rows written valid
whose whole sequence span lies outside the cursor zone (``start_leaf_range``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlpyt.replays.async_ import AsyncReplayBufferMixin
from rlpyt.replays.sequence.n_step import SequenceNStepReturnBuffer


class UniformSequenceReplay(SequenceNStepReturnBuffer):
    """Sampling mixin: ``sample_batch`` draws sequence starts uniformly and extracts them.

    A subclass of the storage it samples (``T``, ``B``, ``period``, ``valid``, ``rng``,
    ``start_leaf_range``, ``extract_batch``); listed first in the bases of a replay over a
    subclass of that storage (``UniformSequenceReplayFrameBuffer``).
    """

    def sample_batch(self, batch_B: int) -> Any:
        """Draw ``batch_B`` sequences with replacement.

        Args:
            batch_B: Number of sequences.

        Returns:
            ``SamplesFromReplay`` of the sequences (torch tensors, time-major).

        Raises:
            ValueError: No valid start can be sampled yet, or even a full replay holds fewer
                starts than ``batch_B``.
        """
        self.check_batch_size(batch_B)
        T_idxs, B_idxs = self.sample_idxs(batch_B)
        return self.extract_batch(T_idxs, B_idxs)

    def sample_idxs(self, batch_B: int) -> tuple[np.ndarray, np.ndarray]:
        """``(T_idxs, B_idxs)``, each ``[batch_B]``: start rows and columns, uniform over starts.

        The draw is exact: it lists the candidate stored-state rows (at most ``T // period``)
        and picks among their valid columns, so padding rows of wait-reset batches cost no
        rejection rounds.
        """
        lo, hi = self.start_leaf_range()
        rows = (np.arange(lo, max(lo, hi + 1)) % (self.T // self.period)) * self.period
        candidates = np.flatnonzero(self.valid[rows])
        if candidates.size == 0:
            raise ValueError(
                f"The replay has no valid sequence start to sample a batch of {batch_B} from "
                f"(cursor at row {self.t}; a sequence spans batch_T + n_step_return rows and "
                "starts only at stored-state rows); sample only after enough steps were "
                "appended (raise min_steps_learn)."
            )
        pick = candidates[self.rng.integers(candidates.size, size=batch_B)]
        return rows[pick // self.B], pick % self.B


class UniformSequenceReplayBuffer(UniformSequenceReplay, SequenceNStepReturnBuffer):
    """Uniform replay of sequences (keywords: ``SequenceNStepReturnBuffer``)."""


class AsyncUniformSequenceReplayBuffer(
    AsyncReplayBufferMixin, UniformSequenceReplayBuffer, twin_of=UniformSequenceReplayBuffer
):
    """``UniformSequenceReplayBuffer`` in shared memory behind a reader-writer lock."""
