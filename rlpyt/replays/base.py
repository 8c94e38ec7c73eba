"""The replay buffer interface and its lazy storage allocation.

Box: Replay. Who calls it: replay algorithms (DQN family, Q-function policy gradients) call
``append_samples`` once per sampler batch and ``sample_batch`` once per gradient step; the
concrete buffers live in ``rlpyt.replays.non_sequence`` (and, later, ``sequence``).
Invariant: storage is allocated once, at construction, with pages the OS maps lazily (or in
shared memory when ``async_``), so a large buffer costs memory only as it fills.
"""

from __future__ import annotations

import abc
import contextlib
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from rlpyt.utils.buffer import buffer_from_example
from rlpyt.utils.collections import is_namedtuple

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from rlpyt.utils.buffer import ArrayTree
    from rlpyt.utils.collections import NamedArrayTupleLike


def zeros_from_example(
    example: ArrayTree, leading_dims: tuple[int, ...], share_memory: bool = False
) -> Any:
    """Zero-filled storage with the structure of ``example`` and extra leading dims.

    ``rlpyt.utils.buffer.buffer_from_example`` with ``fill=0`` (not its default sentinels,
    which touch every page): private arrays come from ``np.zeros``, whose pages the OS maps on
    first write, so a million-transition replay does not claim its memory at construction.

    Args:
        example: One step of what is stored: an array/scalar or a (nested) namedtuple of them;
            ``None`` fields stay ``None``.
        leading_dims: e.g. ``(T, B)``.
        share_memory: Allocate in OS shared memory (for async replays).

    Returns:
        The same structure, namedarraytuples in place of namedtuples, ``[*leading_dims,
        *shape]`` arrays at the leaves.
    """
    return buffer_from_example(example, tuple(leading_dims), share_memory, fill=0)


def flat_fields(record: Any, prefix: str = "") -> dict[str, np.ndarray]:
    """``{"field.subfield": array}`` for every array leaf of a (nested) record."""
    out: dict[str, np.ndarray] = {}
    if record is None:
        return out
    if is_namedtuple(record):
        for name, value in zip(record._fields, record, strict=True):
            out.update(flat_fields(value, f"{prefix}{name}."))
        return out
    out[prefix[:-1]] = record
    return out


class BaseReplayBuffer(abc.ABC):
    """What every replay buffer offers: append a sampler batch, sample a training batch.

    ``async_`` (class attribute) says whether storage goes to shared memory; the Async variants
    set it to True and guard the methods below with a read-write lock
    (``rlpyt.replays.async_``).
    """

    async_: ClassVar[bool] = False

    @property
    def sampleable_transitions(self) -> int:
        """Transitions a full replay can draw a batch from (0: not known).

        Algorithms serve several updates from one draw up to this many transitions.
        """
        return 0

    def write_guard(self) -> AbstractContextManager[object]:
        """Held around a write beyond ``append_samples`` (a priority update).

        Nothing here; the write lock in async replays (``rlpyt.replays.async_``).
        """
        return contextlib.nullcontext()

    @abc.abstractmethod
    def append_samples(
        self, samples: NamedArrayTupleLike, valid: ArrayLike | None = None
    ) -> tuple[int, np.ndarray]:
        """Write a ``[T_new, B]`` batch at the cursor; returns ``(T_new, row indexes)``."""

    @abc.abstractmethod
    def sample_batch(self, batch_B: int) -> Any:
        """Draw ``batch_B`` transitions (torch tensors with leading dim ``[batch_B]``)."""
