"""Ring-buffer storage of ``[T, B]`` steps replayed as whole sequences, with recurrent states.

Box: Replay. ``SequenceNStepReturnBuffer`` is the storage layer under the sequence replays
(``uniform.py``, ``prioritized.py``, ``frame.py`` here) that R2D1 builds. It keeps the ring
storage and n-step maths of ``rlpyt.replays.n_step.BaseNStepReturnBuffer`` and adds:

- the agent's recurrent state before each step (``prev_rnn_state``), stored every
  ``rnn_state_interval`` (k) rows: k = 1 in the main storage, k > 1 in a separate
  ``samples_prev_rnn_state [T // k, B, ...]`` array (T rounded up to a multiple of k), k = 0 not
  at all (sequences then start from a zero state);
- sequence starts restricted to rows with a stored state (``t % k == 0``) written valid, whose
  whole span lies outside the cursor zone (see ``start_leaf_range``);
- ``SamplesFromReplay``: the observations, actions and rewards of a sequence and its n-step tail,
  the per-step n-step targets, and the stored state of its first row.

Invariant: a sampled sequence never reads a row that is not yet written or that the next write
overwrites; ``bootstrap_t`` always points at a written row of ``all_observation``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from rlpyt.replays.base import flat_fields, zeros_from_example
from rlpyt.replays.n_step import BaseNStepReturnBuffer
from rlpyt.utils.buffer import buffer_func, torchify_buffer
from rlpyt.utils.checks import check_number
from rlpyt.utils.collections import namedarraytuple

if TYPE_CHECKING:
    from rlpyt.utils.collections import NamedArrayTupleLike, NamedTupleLike

SamplesFromReplay = namedarraytuple(
    "SamplesFromReplay",
    [
        "all_observation",
        "all_action",
        "all_reward",
        "return_",
        "done",
        "done_n",
        "init_rnn_state",
        "target_discount",
        "bootstrap_t",
    ],
)
"""A replayed batch of ``batch_B`` sequences of ``batch_T`` training steps (time-major).

``all_observation [batch_T + n, batch_B, ...]`` (rows s .. s + batch_T + n - 1),
``all_action [batch_T + n + 1, batch_B, ...]`` and ``all_reward [batch_T + n + 1, batch_B]``
(rows s - 1 ..., so ``all_action[j]`` is the prev action of ``all_observation[j]``; index 0 zeroed
where the start is an episode start), ``return_``, ``done``, ``done_n``, ``target_discount``
(float32) and ``bootstrap_t`` (int64, the time index into ``all_observation`` of step j's
bootstrap observation), each ``[batch_T, batch_B]``; ``init_rnn_state`` the stored state at row s
(``[N, batch_B, H]`` per field) or None. R2D1's target for step j:
``return_[j] + (1 - done_n[j]) * target_discount[j] * Q_target(all_observation[bootstrap_t[j]])``.
"""


def start_leaf_range(
    t: int, buffer_full: bool, T: int, period: int, off_forward: int, span_forward: int
) -> tuple[int, int]:
    """Unwrapped indexes ``lo .. hi`` of the stored-state rows that may start a sequence now.

    A start at (unwrapped) row ``s = i * period`` reads rows ``s - off_forward`` (the previous
    action and reward, or the older frames) through ``s + span_forward - 1`` (the last n-step
    bootstrap row). All of them must be written (``s + span_forward <= t_abs``) and none may be
    overwritten by the next write (``s - off_forward >= t_abs - T`` once full, ``>= 0`` before).

    Args:
        t: The storage cursor (next row written).
        buffer_full: The cursor has wrapped at least once.
        T: Rows of the storage (a multiple of ``period``).
        period: Rows between stored states (``max(1, rnn_state_interval)``).
        off_forward: Rows before a start that it reads.
        span_forward: Rows from a start on that it reads (``batch_T + n_step_return``).

    Returns:
        ``(lo, hi)``: leaf indexes, unwrapped (take them modulo ``T // period``); none if
        ``hi < lo``.
    """
    t_abs = t + T if buffer_full else t
    oldest = t_abs - T if buffer_full else 0
    lo = -(-(oldest + off_forward) // period)  # ceil
    hi = (t_abs - span_forward) // period
    return lo, hi


def _batch_second(state: np.ndarray) -> np.ndarray:
    """``[batch_B, N, ...] -> [N, batch_B, ...]`` (contiguous); ``[batch_B, H]`` unchanged."""
    if state.ndim < 3:
        return state
    return np.ascontiguousarray(np.swapaxes(state, 0, 1))


class SequenceNStepReturnBuffer(BaseNStepReturnBuffer):
    """Ring storage that replays sequences of ``batch_T`` steps with their n-step tails.

    Args:
        example: One step of what is stored, e.g. ``SamplesToBuffer(observation, action,
            reward, done[, timeout], prev_rnn_state)``; ``prev_rnn_state`` (the agent's
            ``agent_info.prev_rnn_state`` of one env: ``RnnState(h, c)`` with ``[N, H]`` fields)
            is required when ``rnn_state_interval > 0``.
        size: Steps to hold; ``T = ceil(size / B)`` rows, rounded up to a multiple of
            ``rnn_state_interval``.
        B: Columns, one per sampler env: must equal the sampler's ``batch_B``.
        rnn_state_interval: Store the recurrent state every this many rows (0: never; the
            sequences then start from a zero state and may start at any row).
        batch_T: Training steps per sequence (R2D1: ``warmup_T + batch_T``).
        discount: Discount per step.
        n_step_return: Steps of reward summed before bootstrapping.
    """

    replay_batch_cls: ClassVar[Any] = SamplesFromReplay

    def __init__(
        self,
        example: NamedTupleLike,
        size: int,
        B: int,
        rnn_state_interval: int,
        batch_T: int,
        discount: float = 1,
        n_step_return: int = 1,
    ) -> None:
        owner = type(self).__name__
        k = check_number(owner, "rnn_state_interval", rnn_state_interval, low=0, integer=True)
        self.rnn_state_interval = k
        self.batch_T = check_number(owner, "batch_T", batch_T, low=1, integer=True)
        if k > 0 and getattr(example, "prev_rnn_state", None) is None:
            raise ValueError(
                f"{owner}: rnn_state_interval={k} stores recurrent states, but the example has "
                f"no prev_rnn_state (fields {getattr(example, '_fields', None)}); add the "
                "agent's agent_info.prev_rnn_state to the example, or use rnn_state_interval=0."
            )
        self.period = max(1, k)
        B = check_number(owner, "B", B, low=1, integer=True)
        rows = math.ceil(check_number(owner, "size", size, low=1, integer=True) / B)
        rows = math.ceil(rows / self.period) * self.period
        super().__init__(
            example=example, size=rows * B, B=B, discount=discount, n_step_return=n_step_return
        )
        self.span_forward = self.batch_T + self.n_step_return
        self._check_sequence_capacity(owner)
        self.samples_prev_rnn_state = self._rnn_state_storage(example)

    def _storage_example(self, example: NamedTupleLike) -> Any:
        """The main storage keeps ``prev_rnn_state`` only when it is stored at every row."""
        stored = super()._storage_example(example)
        if self.rnn_state_interval != 1 and "prev_rnn_state" in getattr(stored, "_fields", ()):
            stored = stored._replace(prev_rnn_state=None)
        return stored

    def _rnn_state_storage(self, example: NamedTupleLike) -> Any:
        """``[T // k, B, ...]`` state storage (k > 1), the main storage's field (k = 1), None."""
        k = self.rnn_state_interval
        if k == 0:
            return None
        if k == 1:
            return self.samples.prev_rnn_state
        return zeros_from_example(
            example.prev_rnn_state, (self.T // k, self.B), share_memory=self.async_
        )

    def _check_sequence_capacity(self, owner: str) -> None:
        if self.guaranteed_starts >= 1:
            return
        need = self.off_forward + self.span_forward + self.period - 1
        raise ValueError(
            f"{owner}: T={self.T} rows cannot always hold a sequence: a start (every "
            f"{self.period} rows) reads {self.off_forward} row(s) before it and batch_T + "
            f"n_step_return = {self.span_forward} rows from it on; use size >= {need * self.B} "
            f"(B={self.B})."
        )

    @property
    def guaranteed_starts(self) -> int:
        """Stored-state rows (per column) that can start a sequence at any cursor once full."""
        return (self.T - self.off_forward - self.span_forward + 1) // self.period

    def check_batch_size(self, batch_B: int) -> None:
        """Raise if even a full replay holds fewer sequence starts than ``batch_B``."""
        if self.guaranteed_starts * self.B < batch_B:
            raise ValueError(
                f"The replay holds at most about {self.guaranteed_starts * self.B} sequence "
                f"starts (T={self.T} rows x B={self.B}, one start every {self.period} rows, "
                f"minus the rows a sequence spans), fewer than batch_B={batch_B}; use a larger "
                "replay size or a smaller batch_B."
            )

    def start_leaf_range(self) -> tuple[int, int]:
        """``(lo, hi)``: unwrapped stored-state rows ``i`` (row ``i * period``) that may start."""
        return start_leaf_range(
            self.t, self._buffer_full, self.T, self.period, self.off_forward, self.span_forward
        )

    def _write_rows(self, t: int, T_new: int, samples: NamedArrayTupleLike) -> None:
        """Store the chunk, then the states of its rows at multiples of k (k > 1)."""
        k = self.rnn_state_interval
        if k > 1 and getattr(samples, "prev_rnn_state", None) is None:
            raise ValueError(
                f"{type(self).__name__} stores recurrent states (rnn_state_interval={k}): "
                "append records with prev_rnn_state, like the example."
            )
        super()._write_rows(t, T_new, samples)
        if k > 1:
            rows = (t + np.arange(T_new)) % self.T
            keep = rows % k == 0
            if keep.any():
                self.samples_prev_rnn_state[rows[keep] // k] = samples.prev_rnn_state[keep]

    def extract_batch(self, T_idxs: np.ndarray, B_idxs: np.ndarray, **extra: np.ndarray) -> Any:
        """The replayed sequences starting at rows ``(T_idxs, B_idxs)``, as torch tensors.

        Args:
            T_idxs: ``[batch_B]`` start rows (stored-state rows outside the cursor zone).
            B_idxs: ``[batch_B]`` columns.
            **extra: Further fields (e.g. ``is_weights``) as numpy arrays.

        Returns:
            A ``replay_batch_cls`` record (see ``SamplesFromReplay``).
        """
        batch_T, n = self.batch_T, self.n_step_return
        rows = (T_idxs + np.arange(-1, batch_T + n)[:, None]) % self.T  # [batch_T + n + 1, B]
        cols = np.broadcast_to(B_idxs, rows.shape)
        all_action = self.samples.action[rows, cols]
        all_reward = self.samples.reward[rows, cols]
        start = self.boundary(rows[0], B_idxs)  # the row before the start ended an episode
        all_action[0, start] = 0
        all_reward[0, start] = 0
        train_rows, train_cols = rows[1 : batch_T + 1], cols[1 : batch_T + 1]
        targets = self.n_step_targets(train_rows, train_cols)
        fields: dict[str, Any] = {
            "all_observation": self.extract_sequence_observation(rows[1:], cols[1:]),
            "all_action": all_action,
            "all_reward": all_reward,
            "return_": targets.return_,
            "done": self.boundary(train_rows, train_cols),
            "done_n": targets.done_n,
            "init_rnn_state": self.extract_rnn_state(T_idxs, B_idxs),
            "target_discount": targets.target_discount,
            "bootstrap_t": (targets.target_T_idxs - T_idxs) % self.T,
            **extra,
        }
        cls = self.replay_batch_cls
        return torchify_buffer(cls(**{name: fields[name] for name in cls._fields}))

    def extract_observation(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> Any:
        """Observations of rows ``(T_idxs, B_idxs)`` (``[L, batch_B]``): ``[L, batch_B, ...]``."""
        return self.samples.observation[T_idxs, B_idxs]

    def extract_sequence_observation(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> Any:
        """A batch's ``all_observation``: rows ``T_idxs [L, batch_B]``, consecutive per column.

        Here :meth:`extract_observation`; frame buffers may send one frame per step instead.
        """
        return self.extract_observation(T_idxs, B_idxs)

    def extract_rnn_state(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> Any:
        """Stored states at start rows ``(T_idxs, B_idxs)``, ready for the recurrent model.

        Returns:
            None when ``rnn_state_interval == 0``; else the stored record with the batch as the
            second dim of every field of two or more per-step dims (``[N, batch_B, H]``, the
            LSTM layout, from per-step ``[N, H]``), a one-dim per-step field as ``[batch_B, H]``.
        """
        if self.samples_prev_rnn_state is None:
            return None
        state = self.samples_prev_rnn_state[T_idxs // self.period, B_idxs]
        return buffer_func(state, _batch_second)

    def _state_arrays(self) -> dict[str, np.ndarray]:
        arrays = super()._state_arrays()
        if self.rnn_state_interval > 1:
            stored = flat_fields(self.samples_prev_rnn_state, "samples_prev_rnn_state.")
            arrays.update(stored)
        return arrays
