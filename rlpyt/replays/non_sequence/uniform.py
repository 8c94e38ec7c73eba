"""Uniform sampling over the sampleable, valid rows of a non-sequence replay.

Box: Replay. ``UniformReplay`` is the sampling mixin; ``UniformReplayBuffer`` the concrete
buffer DQN (``prioritized_replay=False``), DDPG, TD3 and SAC build. Who calls it: the algorithm,
``sample_batch(batch_size)`` once per gradient step. Invariant: indexes are drawn with
replacement, uniformly over rows outside the cursor zone whose ``valid`` flag is set.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlpyt.replays.async_ import AsyncReplayBufferMixin
from rlpyt.replays.non_sequence.n_step import NStepReturnBuffer

_REDRAW_ROUNDS = 32  # rejection rounds before the exact (slower) draw over valid rows


class UniformReplay(NStepReturnBuffer):
    """Sampling mixin: ``sample_batch`` draws rows uniformly and extracts the batch.

    A subclass of the storage it samples (``T``, ``B``, ``valid``, ``rng``, ``valid_t_range``,
    ``extract_batch``); listed first in the bases of a replay over a subclass of that storage
    (``class UniformReplayFrameBuffer(UniformReplay, NStepFrameBuffer)``).
    """

    def sample_batch(self, batch_B: int) -> Any:
        """Draw ``batch_B`` transitions with replacement.

        Args:
            batch_B: Number of transitions (the algorithm's ``batch_size``).

        Returns:
            The replayed record (torch tensors with leading dim ``[batch_B]``).

        Raises:
            ValueError: No valid row can be sampled yet, or the whole replay holds fewer
                sampleable transitions than ``batch_B``.
        """
        self.check_batch_size(batch_B)
        T_idxs, B_idxs = self.sample_idxs(batch_B)
        return self.extract_batch(T_idxs, B_idxs)

    def sample_idxs(self, batch_B: int) -> tuple[np.ndarray, np.ndarray]:
        """``(T_idxs, B_idxs)``, each ``[batch_B]``, uniform over sampleable valid rows."""
        low, count = self.valid_t_range()
        if count <= 0:
            raise _no_valid_rows(0, batch_B)
        T_idxs = (low + self.rng.integers(count, size=batch_B)) % self.T
        B_idxs = self.rng.integers(self.B, size=batch_B)
        bad = np.flatnonzero(~self.valid[T_idxs, B_idxs])
        for _ in range(_REDRAW_ROUNDS):
            if bad.size == 0:
                return T_idxs, B_idxs
            T_idxs[bad] = (low + self.rng.integers(count, size=bad.size)) % self.T
            B_idxs[bad] = self.rng.integers(self.B, size=bad.size)
            bad = bad[~self.valid[T_idxs[bad], B_idxs[bad]]]
        if bad.size:  # few valid rows: draw exactly among them
            rows = (low + np.arange(count)) % self.T
            flat = np.flatnonzero(self.valid[rows])
            if flat.size == 0:
                raise _no_valid_rows(0, batch_B)
            pick = flat[self.rng.integers(flat.size, size=bad.size)]
            T_idxs[bad], B_idxs[bad] = rows[pick // self.B], pick % self.B
        return T_idxs, B_idxs


def _no_valid_rows(n_valid: int, batch_B: int) -> ValueError:
    return ValueError(
        f"The replay has {n_valid} valid transitions to sample a batch of {batch_B} from; "
        "sample only after enough steps were appended (raise min_steps_learn) or use a "
        "smaller batch_size."
    )


class UniformReplayBuffer(UniformReplay, NStepReturnBuffer):
    """Uniform replay of ``SamplesFromReplay`` (see ``BaseNStepReturnBuffer`` for keywords)."""


class AsyncUniformReplayBuffer(
    AsyncReplayBufferMixin, UniformReplayBuffer, twin_of=UniformReplayBuffer
):
    """``UniformReplayBuffer`` in shared memory for the asynchronous runner (see ``async_``)."""
