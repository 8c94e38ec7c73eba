"""Ring-buffer storage of ``[T, B]`` transitions and vectorized n-step targets.

Box: Replay. ``BaseNStepReturnBuffer`` is the storage layer under every non-sequence replay
(``rlpyt.replays.non_sequence``): ``T = ceil(size / B)`` rows, one column per sampler env, a
cursor ``t`` that wraps around. The n-step quantities (return, terminal flag, bootstrap row and
discount) are computed when a transition is sampled, from a ``[..., n]`` gather of reward, done,
timeout and validity, so wrap-around and the rows near the cursor need no special storage.

Invariants: the rows ``[t - off_backward, t + off_forward)`` (mod T) are never sampled
(``off_backward = n_step_return``: their future is not written yet; ``off_forward``: the next
write overwrites what they read); before the first wrap, rows below ``off_forward`` and at or
after ``t - off_backward`` are not sampled either. A row written with ``valid=False`` is never
sampled and counts as an episode boundary.
"""

from __future__ import annotations

import abc
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from rlpyt.replays.base import BaseReplayBuffer, flat_fields, zeros_from_example
from rlpyt.utils.buffer import get_leading_dims, numpify_buffer
from rlpyt.utils.checks import check_number
from rlpyt.utils.collections import is_namedtuple

if TYPE_CHECKING:
    from rlpyt.utils.collections import NamedArrayTupleLike, NamedTupleLike


class NStepTargets(NamedTuple):
    """n-step quantities of sampled rows (all arrays share the index arrays' shape).

    Attributes:
        return_: Discounted reward sum up to and including the first boundary (float32).
        done_n: The window ends in a terminal (a done that is not a timeout, or an invalid row).
        timeout_n: The window ends in a time limit (the episode was truncated).
        target_T_idxs: Row of the bootstrap inputs (mod T).
        target_discount: ``discount ** m``, m the number of rewards summed (float32).
    """

    return_: np.ndarray
    done_n: np.ndarray
    timeout_n: np.ndarray
    target_T_idxs: np.ndarray  # noqa: N815 ([T, B] naming)
    target_discount: np.ndarray


class BaseNStepReturnBuffer(BaseReplayBuffer):
    """Ring buffer of ``T x B`` transitions with n-step return maths.

    Args:
        example: One step (no leading dims) of what is stored, a namedtuple with at least
            ``observation``, ``action``, ``reward``, ``done`` (and optionally ``timeout``:
            the episode was truncated by a time limit, not terminated; always also done).
        size: Transitions to hold; ``T = ceil(size / B)`` rows are allocated.
        B: Columns, one per sampler env: must equal the sampler's ``batch_B``.
        discount: Discount per step.
        n_step_return: Steps of reward summed before bootstrapping.
    """

    def __init__(
        self,
        example: NamedTupleLike,
        size: int,
        B: int,
        discount: float = 1,
        n_step_return: int = 1,
    ) -> None:
        owner = type(self).__name__
        self.B = check_number(owner, "B", B, low=1, integer=True)
        size = check_number(owner, "size", size, low=1, integer=True)
        self.discount = float(check_number(owner, "discount", discount, low=0, high=1))
        self.n_step_return = check_number(
            owner, "n_step_return", n_step_return, low=1, integer=True
        )
        fields = getattr(example, "_fields", ())
        missing = [f for f in ("action", "reward", "done") if f not in fields]
        if missing:
            raise ValueError(
                f"{owner}: the example must be a namedtuple with fields action, reward, done "
                f"(e.g. SamplesToBuffer(observation, action, reward, done)); missing {missing}."
            )
        self.T = math.ceil(size / self.B)
        self.size = self.T * self.B
        self.off_backward = self.n_step_return
        self.off_forward = self._off_forward()
        self._check_capacity(owner, size)
        self.has_timeout = "timeout" in example._fields
        self.samples = zeros_from_example(
            self._storage_example(example), (self.T, self.B), share_memory=self.async_
        )
        # False until written; the caller's flags (shared with the other processes when async_)
        self.valid = zeros_from_example(np.zeros((), bool), (self.T, self.B), self.async_)
        self.t = 0  # cursor: the next row written
        self._buffer_full = False  # the cursor has wrapped at least once
        self.rng = np.random.default_rng(np.random.randint(0, 2**31 - 1))
        self._discounts = self.discount ** np.arange(self.n_step_return + 1, dtype=np.float64)

    def _off_forward(self) -> int:
        """Rows at and after the cursor that are not sampled (1: their prev action is stale)."""
        return 1

    def _storage_example(self, example: NamedTupleLike) -> Any:
        """What ``samples`` stores per step (frame buffers drop the observation)."""
        return example

    def _check_capacity(self, owner: str, size: int) -> None:
        sampleable = self.T - self.off_backward - self.off_forward
        if sampleable < 1:
            need = (self.off_backward + self.off_forward + 1) * self.B
            raise ValueError(
                f"{owner}: size={size} gives T={self.T} rows of B={self.B}, but "
                f"{self.off_backward + self.off_forward} rows around the cursor are never sampled "
                f"(n_step_return={self.n_step_return}, off_forward={self.off_forward}); "
                f"use size >= {need}."
            )

    @property
    def sampleable_rows(self) -> int:
        """Rows that can hold sampleable transitions once the buffer is full."""
        return self.T - self.off_backward - self.off_forward

    @property
    def sampleable_transitions(self) -> int:
        """Transitions a full replay can draw from: ``sampleable_rows * B``."""
        return self.sampleable_rows * self.B

    def check_batch_size(self, batch_B: int) -> None:
        """Raise if even a full replay holds fewer sampleable transitions than ``batch_B``."""
        if self.sampleable_transitions < batch_B:
            raise ValueError(
                f"The replay holds at most {self.sampleable_transitions} sampleable "
                f"transitions (T={self.T} rows x B={self.B}, minus the rows near the cursor), "
                f"fewer than batch_B={batch_B}; use a larger replay size or a smaller batch_size."
            )

    def append_samples(
        self, samples: NamedArrayTupleLike, valid: ArrayLike | None = None
    ) -> tuple[int, np.ndarray]:
        """Write a ``[T_new, B]`` chunk at the cursor, wrapping around.

        Args:
            samples: Record like the example with ``[T_new, B, ...]`` leaves (numpy arrays or
                CPU torch tensors).
            valid: Optional ``[T_new, B]`` bool; False marks padding rows (wait-reset
                collectors) that are never sampled and count as episode boundaries.

        Returns:
            ``(T_new, idxs)``, idxs the ``[T_new]`` row indexes written.
        """
        samples = numpify_buffer(samples)
        if valid is None:  # a record from an algorithm's samples_to_buffer may carry its flags
            valid = getattr(samples, "valid", None)
        T_new, B = get_leading_dims(samples, 2)
        self._check_chunk(T_new, B)
        t = self.t
        idxs = np.arange(t, t + T_new) % self.T
        self._write_rows(t, T_new, samples)
        self.valid[idxs] = True if valid is None else self._valid_flags(valid, T_new)
        self.t = (t + T_new) % self.T
        self._buffer_full = self._buffer_full or t + T_new >= self.T
        return T_new, idxs

    def _check_chunk(self, T_new: int, B: int) -> None:
        if B != self.B:
            raise ValueError(
                f"The replay was built with B={self.B}, but append_samples got a batch of "
                f"B={B}; the replay's B must equal the sampler's batch_B."
            )
        if T_new > self.sampleable_rows:
            raise ValueError(
                f"append_samples got T_new={T_new} rows, more than the {self.sampleable_rows} "
                f"sampleable rows of this replay (T={self.T}); use a larger size."
            )

    def _valid_flags(self, valid: ArrayLike | None, T_new: int) -> np.ndarray:
        flags = np.asarray(numpify_buffer(valid), bool)
        if flags.shape != (T_new, self.B):
            raise ValueError(
                f"append_samples: valid has shape {flags.shape}; it must be [T_new, B] = "
                f"{[T_new, self.B]}, one flag per transition written."
            )
        return flags

    def _write_rows(self, t: int, T_new: int, samples: NamedArrayTupleLike) -> None:
        """Copy every stored field of ``samples`` into rows ``[t, t + T_new)`` mod T."""
        first = min(T_new, self.T - t)
        _assign(self.samples, slice(t, t + first), samples, slice(0, first))
        if first < T_new:
            _assign(self.samples, slice(0, T_new - first), samples, slice(first, T_new))

    @abc.abstractmethod
    def extract_batch(self, T_idxs: np.ndarray, B_idxs: np.ndarray, **extra: np.ndarray) -> Any:
        """The replayed record of rows ``(T_idxs, B_idxs)`` (torch tensors), plus ``extra``.

        The samplers (uniform, prioritized) choose the rows; the storage classes
        (``non_sequence.n_step``, ``sequence.n_step``) build the record.
        """

    def valid_t_range(self) -> tuple[int, int]:
        """``(low, count)``: rows ``low, ..., low + count - 1`` (mod T) may be sampled now."""
        if self._buffer_full:
            return self.t + self.off_forward, self.sampleable_rows
        return self.off_forward, max(0, self.t - self.off_backward - self.off_forward)

    def boundary(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> np.ndarray:
        """Episode boundaries at the given rows: done, or a row written as invalid."""
        return np.asarray(self.samples.done[T_idxs, B_idxs], bool) | ~self.valid[T_idxs, B_idxs]

    def n_step_targets(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> NStepTargets:
        """n-step return, terminal/timeout flags, bootstrap row and discount of rows.

        With k the offset of the first boundary in the window ``[t, t + n)``: the return sums
        rewards ``0..k`` (all n without a boundary); a timeout at ``t + k`` bootstraps from row
        ``t + k`` with ``discount ** (k + 1)``; a terminal sets ``done_n`` (its bootstrap row,
        masked by the caller, is ``t + k``, or ``t + k - 1`` when the boundary is an invalid row,
        so it is always a written, finite row). Without a boundary: row ``t + n``,
        ``discount ** n``; but when row ``t + n`` itself was appended invalid, a terminal with
        bootstrap row ``t + n - 1``. Invalid rows count as terminals with reward 0.

        Args:
            T_idxs: Row indexes, any shape.
            B_idxs: Column indexes, same shape.

        Returns:
            ``NStepTargets`` with arrays of the index shape.
        """
        n = self.n_step_return
        offsets = np.arange(n)
        rows = (T_idxs[..., None] + np.arange(n + 1)) % self.T
        cols = B_idxs[..., None]
        valid_ext = self.valid[rows, cols]  # window and the bootstrap row t + n
        valid, rows = valid_ext[..., :n], rows[..., :n]
        stop = np.asarray(self.samples.done[rows, cols], bool) | ~valid
        any_stop = stop.any(axis=-1)
        k = np.where(any_stop, stop.argmax(axis=-1), n - 1)
        m = np.where(any_stop, k + 1, n)
        reward = np.where(valid & (offsets < m[..., None]), self.samples.reward[rows, cols], 0)
        return_ = (reward * self._discounts[:n]).sum(axis=-1).astype(np.float32)
        k_valid = np.take_along_axis(valid, k[..., None], axis=-1)[..., 0]
        if self.has_timeout:
            timeout = np.asarray(self.samples.timeout[rows, cols], bool) & valid
            timeout_n = any_stop & np.take_along_axis(timeout, k[..., None], axis=-1)[..., 0]
        else:
            timeout_n = np.zeros_like(any_stop)
        target_offset = np.where(any_stop, np.where(k_valid, k, k - 1), n)
        # Padding right after the window (no done seen): the episode ended there; a terminal.
        cut = ~any_stop & ~valid_ext[..., n]
        target_offset = np.where(cut, n - 1, target_offset)
        return NStepTargets(
            return_=return_,
            done_n=(any_stop & ~timeout_n) | cut,
            timeout_n=timeout_n,
            target_T_idxs=(T_idxs + target_offset) % self.T,
            target_discount=self._discounts[m].astype(np.float32),
        )

    def state_dict(self) -> dict[str, Any]:
        """Copies of storage, cursor, validity flags and RNG state, for exact resume."""
        state: dict[str, Any] = {
            "T": self.T,
            "B": self.B,
            "t": self.t,
            "_buffer_full": self._buffer_full,
            "rng": self.rng.bit_generator.state,
        }
        for key, array in self._state_arrays().items():
            state[key] = np.array(array, copy=True)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what ``state_dict`` saved, into a replay built with the same sizes."""
        mine = self._state_shapes()
        theirs = {k: np.shape(v) for k, v in state.items() if isinstance(v, np.ndarray)}
        if (state.get("T"), state.get("B")) != (self.T, self.B) or mine != theirs:
            raise ValueError(
                f"Cannot load a replay state with T={state.get('T')}, B={state.get('B')} and "
                f"arrays {theirs} into {type(self).__name__} with T={self.T}, B={self.B} and "
                f"arrays {mine}; build the replay with the same example, size, B and settings."
            )
        self._load_arrays(state)
        self.t = int(state["t"])
        self._buffer_full = bool(state["_buffer_full"])
        self.rng.bit_generator.state = state["rng"]

    def _state_arrays(self) -> dict[str, np.ndarray]:
        """The live arrays a state holds, by state key."""
        arrays = {f"samples.{k}": v for k, v in flat_fields(self.samples).items()}
        arrays["valid"] = self.valid
        return arrays

    def _state_shapes(self) -> dict[str, tuple[int, ...]]:
        return {k: v.shape for k, v in self._state_arrays().items()}

    def _load_arrays(self, state: dict[str, Any]) -> None:
        for key, array in self._state_arrays().items():
            array[...] = state[key]


def _assign(
    dest: NamedArrayTupleLike | np.ndarray,
    dest_loc: slice,
    src: NamedArrayTupleLike | np.ndarray,
    src_loc: slice,
) -> None:
    """``dest[dest_loc] = src[src_loc]`` field by field (fields absent in ``dest`` skipped)."""
    if is_namedtuple(dest):
        for name, field in zip(dest._fields, dest, strict=True):
            if field is None:
                continue
            if getattr(src, name, None) is None:
                raise ValueError(
                    f"append_samples got a record with fields {getattr(src, '_fields', None)} "
                    f"and no values for {name!r}; append records like the replay's example."
                )
            _assign(field, dest_loc, getattr(src, name), src_loc)
        return
    dest[dest_loc] = src[src_loc]
