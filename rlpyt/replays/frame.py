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

from typing import Any

import numpy as np

from rlpyt.replays.base import zeros_from_example


class FrameBufferMixin:
    """Mixin storing one frame per step and rebuilding ``[C, H, W]`` observations.

    Args:
        example: The stored example; ``example.observation`` must be ``[C, H, W]`` of an
            integer dtype (uint8 expected).
        **kwargs: The storage keywords (``size``, ``B``, ``discount``, ``n_step_return``).
    """

    T: int
    B: int
    samples: Any
    valid: np.ndarray
    t: int
    _buffer_full: bool
    async_: bool

    def __init__(self, example: Any, **kwargs: Any) -> None:
        observation = np.asarray(getattr(example, "observation", None))
        if observation.ndim != 3 or not np.issubdtype(observation.dtype, np.integer):
            raise ValueError(
                f"{type(self).__name__} stores stacked image frames: example.observation must "
                f"be a [C, H, W] integer (uint8) array, but it has shape {observation.shape} "
                f"and dtype {observation.dtype}. Use UniformReplayBuffer / "
                "PrioritizedReplayBuffer for vector or float observations."
            )
        self.n_frames, self.frame_shape = observation.shape[0], observation.shape[1:]
        super().__init__(example=example, **kwargs)  # type: ignore[call-arg]
        frame_example = observation[0]
        self.samples_frames = zeros_from_example(
            frame_example, (self.T + self.n_frames - 1, self.B), share_memory=self.async_
        )

    def _off_forward(self) -> int:
        """The next write overwrites a frame that rows up to ``t + C - 2`` still read."""
        return max(1, self.n_frames - 1)

    def _storage_example(self, example: Any) -> Any:
        return example._replace(observation=None)

    def _write_rows(self, t: int, T_new: int, samples: Any) -> None:
        """Store the other fields, then the newest frame of each step (and its duplicate)."""
        super()._write_rows(t, T_new, samples)  # type: ignore[misc]
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
        """Rebuild ``[len, C, H, W]`` observations of rows ``(T_idxs, B_idxs)``.

        Frame ``j`` (0 = oldest, step ``t - C + 1 + j``) is zeroed when a boundary (done or
        invalid row) lies in steps ``[t - C + 1 + j, t - 1]``: it belongs to an earlier episode.
        """
        C = self.n_frames
        offsets = np.arange(C)
        observation = self.samples_frames[T_idxs[:, None] + offsets, B_idxs[:, None]]
        if C > 1:
            steps = (T_idxs[:, None] + offsets[:-1] - (C - 1)) % self.T  # t-C+1 .. t-1
            stop = self.boundary(steps, B_idxs[:, None])  # type: ignore[attr-defined]
            zero = np.logical_or.accumulate(stop[:, ::-1], axis=1)[:, ::-1]  # any at or after
            observation[:, :-1][zero] = 0
        return observation

    def _state_arrays(self) -> dict[str, np.ndarray]:
        arrays = super()._state_arrays()  # type: ignore[misc]
        arrays["samples_frames"] = self.samples_frames
        return arrays
