"""Frame-wise storage of stacked image observations: each frame is stored once.

Box: Replay. ``FrameBufferMixin`` goes in front of an n-step buffer (``non_sequence/frame.py``)
for Atari-like observations ``[C, H, W]`` (C stacked frames, oldest first). Only the newest frame
of each step is stored, in ``samples_frames[T + C - 1, B, H, W]``: frame row ``s + C - 1`` holds
the newest frame of step ``s``, and the first ``C - 1`` rows repeat the last ``C - 1`` rows, so
the frames of step ``t`` are always the contiguous rows ``[t, t + C)`` (no window wraps). The very
first append also stores the older frames of the first observation. An observation is rebuilt
from those rows with the frames before an episode boundary zeroed, as AtariEnv zeros its stack on
reset (and on a lost life with ``episodic_lives``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from rlpyt.replays.base import zeros_from_example
from rlpyt.replays.n_step import BaseNStepReturnBuffer
from rlpyt.utils.collections import namedarraytuple

if TYPE_CHECKING:
    from rlpyt.utils.collections import NamedArrayTupleLike, NamedTupleLike

FrameStack = namedarraytuple("FrameStack", ["frames", "keep"])
"""Consecutive stacked observations sent as one frame per step (:func:`stack_frames`).

``frames [L + C - 1, B, H, W]``: the ``C - 1`` older frames of the first step, then the newest
frame of each of the ``L`` steps; ``keep [L, B, C]``: whether frame ``j`` of step ``l``'s
observation is kept (False: it lies before an episode start and is zeroed). A quarter of the
bytes of the ``[L, B, C, H, W]`` observations for ``C = 4``."""


def stack_frames(stack: Any) -> torch.Tensor:
    """The ``[L, B, C, H, W]`` observations of a :data:`FrameStack`, where its tensors are.

    Equal to ``FrameBufferMixin.extract_observation`` of the same rows (a test checks it).
    """
    C = stack.keep.shape[-1]  # noqa: N806
    windows = stack.frames.unfold(0, C, 1)  # [L, B, H, W, C]: a view, step l's frames l..l+C-1
    observation = windows.permute(0, 1, 4, 2, 3)  # [L, B, C, H, W]
    return observation * stack.keep[..., None, None].to(observation.dtype)


_POOL_SIZE = 4  # output arrays kept for reuse (a batch in use, the next one, spares)
_POOL_ONLY_REFS = 3  # the pool's list, the loop variable, getrefcount's argument


class FrameBufferMixin(BaseNStepReturnBuffer):
    """Mixin storing one frame per step and rebuilding ``[C, H, W]`` observations.

    A subclass of the n-step storage whose storing steps it changes; listed before the concrete
    storage class (``class NStepFrameBuffer(FrameBufferMixin, NStepReturnBuffer)``).

    Args:
        example: The stored example; ``example.observation`` must be ``[C, H, W]`` of an
            integer dtype (uint8 expected).
        **kwargs: The storage keywords (``size``, ``B``, ``discount``, ``n_step_return``).
    """

    def __init__(self, example: NamedTupleLike, **kwargs: Any) -> None:
        observation = np.asarray(getattr(example, "observation", None))
        if observation.ndim != 3 or not np.issubdtype(observation.dtype, np.integer):
            raise ValueError(
                f"{type(self).__name__} stores stacked image frames: example.observation must "
                f"be a [C, H, W] integer (uint8) array, but it has shape {observation.shape} "
                f"and dtype {observation.dtype}. Use UniformReplayBuffer / "
                "PrioritizedReplayBuffer for vector or float observations."
            )
        self.n_frames, self.frame_shape = observation.shape[0], observation.shape[1:]
        super().__init__(example=example, **kwargs)
        frame_example = observation[0]
        self.samples_frames = zeros_from_example(
            frame_example, (self.T + self.n_frames - 1, self.B), share_memory=self.async_
        )
        self._out_pool: list[np.ndarray] = []

    def _off_forward(self) -> int:
        """The next write overwrites a frame that rows up to ``t + C - 2`` still read."""
        return max(1, self.n_frames - 1)

    def _storage_example(self, example: NamedTupleLike) -> Any:
        stored = super()._storage_example(example)
        return stored._replace(observation=None)

    def _write_rows(self, t: int, T_new: int, samples: NamedArrayTupleLike) -> None:
        """Store the other fields, then the newest frame of each step (and its duplicate)."""
        super()._write_rows(t, T_new, samples)
        observation = samples.observation
        C = self.n_frames
        if t == 0 and not self._buffer_full:  # very first write: older frames of step 0
            self.samples_frames[: C - 1] = observation[0, :, : C - 1].swapaxes(0, 1)
        steps = (t + np.arange(T_new)) % self.T
        newest = observation[:, :, C - 1]
        self.samples_frames[steps + C - 1] = newest
        dup = steps >= self.T - (C - 1)
        if dup.any():
            self.samples_frames[steps[dup] + C - 1 - self.T] = newest[dup]

    def extract_observation(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> np.ndarray:
        """Rebuild ``[*idx_shape, C, H, W]`` observations of rows ``(T_idxs, B_idxs)``.

        Frame ``j`` (0 = oldest, step ``t - C + 1 + j``) is zeroed when a boundary (done or
        invalid row) lies in steps ``[t - C + 1 + j, t - 1]``: it belongs to an earlier episode.
        The index arrays may have any (broadcastable) shape, e.g. ``[T + n, batch_B]`` for
        sequence replays; the gather runs over their flattened form.
        """
        idx_shape = np.broadcast_shapes(np.shape(T_idxs), np.shape(B_idxs))
        if len(idx_shape) != 1:
            flat = self.extract_observation(
                np.broadcast_to(T_idxs, idx_shape).reshape(-1),
                np.broadcast_to(B_idxs, idx_shape).reshape(-1),
            )
            return flat.reshape(idx_shape + flat.shape[1:])
        offsets = np.arange(self.n_frames)
        flat_idxs = ((T_idxs[:, None] + offsets) * self.B + B_idxs[:, None]).reshape(-1)
        observation = self._output_buffer((len(T_idxs), self.n_frames, *self.frame_shape))
        frames = self.samples_frames.reshape((-1,) + self.frame_shape)
        # mode="clip": with the default "raise", numpy gathers into a temporary and copies it
        # to ``out`` (6x slower for R2D1's 266 MB batches); the indexes are in range anyway.
        np.take(
            frames,
            flat_idxs,
            axis=0,
            out=observation.reshape((-1,) + self.frame_shape),
            mode="clip",
        )
        if self.n_frames > 1:
            zero = self._zeroed_older_frames(T_idxs, B_idxs)
            if zero.any():
                observation[np.nonzero(zero)] = 0
        return observation

    def _zeroed_older_frames(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> np.ndarray:
        """``[N, C - 1]``: older frame ``j`` of row ``n``'s observation precedes its episode.

        That is, a boundary (done or invalid row) lies in steps ``[t - C + 1 + j, t - 1]``
        (the newest frame, ``j = C - 1``, is never zeroed and has no column here).
        """
        C = self.n_frames
        steps = (T_idxs[:, None] + np.arange(C - 1) - (C - 1)) % self.T  # t-C+1 .. t-1
        stop = self.boundary(steps, B_idxs[:, None])
        return np.logical_or.accumulate(stop[:, ::-1], axis=1)[:, ::-1]  # any at or after

    def extract_frame_stack(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> Any:
        """Rows ``T_idxs [L, B]``, consecutive in time in each column, as a :data:`FrameStack`.

        Step ``l``'s frames are frame rows ``[r_l, r_l + C)``: the first step's, then one more
        row per step (across the end of the ring too, where the first ``C - 1`` rows repeat
        the last ones). :func:`stack_frames` rebuilds what :meth:`extract_observation` gives.
        """
        C = self.n_frames
        T_idxs = np.asarray(T_idxs)
        cols = np.broadcast_to(B_idxs, T_idxs.shape)
        older = T_idxs[0] + np.arange(C - 1)[:, None]  # [C - 1, B]
        frame_rows = np.concatenate([older, T_idxs + C - 1], axis=0)  # [L + C - 1, B]
        flat = (frame_rows * self.B + cols[0]).reshape(-1)  # each column's B index
        frames = self._output_buffer(frame_rows.shape + self.frame_shape)
        np.take(  # into a pooled array, mode="clip": see extract_observation
            self.samples_frames.reshape((-1,) + self.frame_shape),
            flat,
            axis=0,
            out=frames.reshape((-1,) + self.frame_shape),
            mode="clip",
        )
        keep = np.ones(T_idxs.shape + (C,), dtype=bool)  # the newest frame is always kept
        if C > 1:
            zero = self._zeroed_older_frames(T_idxs.reshape(-1), cols.reshape(-1))
            keep[..., :-1] = ~zero.reshape(T_idxs.shape + (C - 1,))
        return FrameStack(frames=frames, keep=keep)

    def _output_buffer(self, shape: tuple[int, ...]) -> np.ndarray:
        """An array of ``shape`` (frame dtype) no earlier batch still uses, from a small pool.

        Fresh megabyte-sized arrays cost a page fault per 4 KiB page on every batch (malloc
        returns such blocks to the OS when freed); reusing one is safe once no tensor or view
        of it is alive, which its reference count tells: the pool's and this loop's only.
        """
        for buffer in self._out_pool:
            if buffer.shape == shape and sys.getrefcount(buffer) <= _POOL_ONLY_REFS:
                return buffer
        buffer = np.empty(shape, self.samples_frames.dtype)
        if len(self._out_pool) < _POOL_SIZE:
            self._out_pool.append(buffer)
        return buffer

    def _state_arrays(self) -> dict[str, np.ndarray]:
        arrays = super()._state_arrays()
        arrays["samples_frames"] = self.samples_frames
        return arrays
