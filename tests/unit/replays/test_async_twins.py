"""The shared-memory twin of each replay is declared by its class statement, not found by name.

``class AsyncX(AsyncReplayBufferMixin, X, twin_of=X)`` registers ``AsyncX`` as the twin of ``X``
(``async_twin``). Prioritized replays take the write lock around priority updates through the
declared ``write_guard`` (a no-op in one process); uniform ones have no
``update_batch_priorities`` at all.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import rlpyt.replays
from rlpyt.algos.replay_mixin import SamplesToBuffer
from rlpyt.replays.async_ import AsyncReplayBufferMixin, async_twin
from rlpyt.replays.base import BaseReplayBuffer
from rlpyt.replays.non_sequence.n_step import NStepReturnBuffer
from rlpyt.replays.non_sequence.prioritized import (
    AsyncPrioritizedReplayBuffer,
    PrioritizedReplayBuffer,
)
from rlpyt.replays.non_sequence.uniform import AsyncUniformReplayBuffer, UniformReplayBuffer
from rlpyt.replays.prioritized import PrioritizedReplay


def _replay_classes() -> list[type[BaseReplayBuffer]]:
    modules = pkgutil.walk_packages(rlpyt.replays.__path__, "rlpyt.replays.")
    found = []
    for info in modules:
        for value in vars(importlib.import_module(info.name)).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseReplayBuffer)
                and value.__module__ == info.name
                and not inspect.isabstract(value)
                and value.__name__.endswith("Buffer")  # not the sampling mixins
            ):
                found.append(value)
    return found


ASYNC = [cls for cls in _replay_classes() if cls.async_]
SYNC = [cls for cls in _replay_classes() if not cls.async_]


def test_every_replay_class_is_found():
    assert len(ASYNC) == len(SYNC) == 10


@pytest.mark.parametrize("cls", SYNC, ids=lambda cls: cls.__name__)
def test_each_sync_replay_has_its_declared_twin(cls):
    twin = async_twin(cls)
    assert twin is not None and twin.__name__ == "Async" + cls.__name__
    assert twin.__bases__[-1] is cls and twin.__module__ == cls.__module__
    assert async_twin(twin) is twin


@pytest.mark.parametrize("cls", ASYNC, ids=lambda cls: cls.__name__)
def test_priority_updates_only_where_there_are_priorities(cls):
    assert hasattr(cls, "update_batch_priorities") == issubclass(cls, PrioritizedReplay)


def test_a_class_without_a_declared_twin_has_none():
    class MyReplay(UniformReplayBuffer):
        pass

    class AsyncMyReplay(AsyncReplayBufferMixin, MyReplay):  # no twin_of: not registered
        pass

    assert async_twin(MyReplay) is None
    assert async_twin(AsyncMyReplay) is AsyncMyReplay
    assert async_twin(UniformReplayBuffer) is AsyncUniformReplayBuffer
    assert async_twin(int) is None


def test_twin_of_must_be_a_sync_base():
    with pytest.raises(TypeError, match="twin_of=PrioritizedReplayBuffer"):

        class Wrong(AsyncReplayBufferMixin, UniformReplayBuffer, twin_of=PrioritizedReplayBuffer):
            pass

    with pytest.raises(TypeError, match="twin_of=AsyncUniformReplayBuffer"):

        class Twice(AsyncUniformReplayBuffer, twin_of=AsyncUniformReplayBuffer):
            pass

    assert async_twin(UniformReplayBuffer) is AsyncUniformReplayBuffer


def test_the_mixins_derive_from_the_storage_they_run_over():
    assert issubclass(AsyncReplayBufferMixin, BaseReplayBuffer)
    assert not issubclass(PrioritizedReplay, NStepReturnBuffer)  # either family's storage
    for cls in ASYNC:
        assert issubclass(cls, AsyncReplayBufferMixin)


class _RecordingLock:
    """Stands in for the RWLock: records which side each guarded call took."""

    def __init__(self) -> None:
        self.taken: list[str] = []

    def __enter__(self):
        self.taken.append("read")

    def __exit__(self, *exc):
        return False

    @property
    def write_lock(self):
        self.taken.append("write")
        return contextlib.nullcontext()


def _example():
    return SamplesToBuffer(
        observation=np.zeros(3, np.float32),
        action=np.zeros((), np.int64),
        reward=np.zeros((), np.float32),
        done=np.zeros((), bool),
    )


def _chunk(T=4, B=2):
    return SamplesToBuffer(
        observation=np.ones((T, B, 3), np.float32),
        action=np.ones((T, B), np.int64),
        reward=np.ones((T, B), np.float32),
        done=np.zeros((T, B), bool),
    )


def test_priority_updates_take_the_write_lock():
    replay = AsyncPrioritizedReplayBuffer(example=_example(), size=40, B=2)
    for _ in range(3):
        replay.append_samples(_chunk())
    replay.rw_lock = lock = _RecordingLock()
    replay.sample_batch(4)
    replay.update_batch_priorities(np.full(4, 2.0))
    assert lock.taken == ["read", "write"]
    assert replay.priority_tree.priorities.max() == pytest.approx(2.0**replay.alpha)


def test_one_process_replays_guard_nothing():
    replay = PrioritizedReplayBuffer(example=_example(), size=40, B=2)
    for _ in range(3):
        replay.append_samples(_chunk())
    replay.sample_batch(4)
    with replay.write_guard() as held:
        assert held is None
    replay.update_batch_priorities(np.full(4, 3.0))
    assert replay.priority_tree.priorities.max() == pytest.approx(3.0**replay.alpha)


def test_sampleable_transitions_is_declared_on_every_replay():
    replay = UniformReplayBuffer(example=_example(), size=40, B=2)
    assert replay.sampleable_transitions == replay.sampleable_rows * replay.B == 36
    assert BaseReplayBuffer.sampleable_transitions.fget(replay) == 0  # the base: not known
