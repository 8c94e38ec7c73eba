"""state_dict / load_state_dict: a restored replay draws identical next batches; loading into
a replay of other sizes fails with a clear error."""

import numpy as np
import pytest
import torch

from rlpyt.replays.non_sequence.frame import PrioritizedReplayFrameBuffer, UniformReplayFrameBuffer
from rlpyt.replays.non_sequence.time_limit import TlUniformReplayBuffer
from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer

from .naive_replay import Stream, fill


def assert_same_batches(a, b):
    for x, y in zip(a, b, strict=True):
        if isinstance(x, tuple):
            assert_same_batches(x, y)
        else:
            torch.testing.assert_close(x, y, rtol=0, atol=0)


@pytest.mark.parametrize(
    "Cls,frames",
    [
        (UniformReplayBuffer, False),
        (TlUniformReplayBuffer, False),
        (UniformReplayFrameBuffer, True),
        (PrioritizedReplayFrameBuffer, True),
    ],
)
def test_round_trip_gives_identical_next_samples(Cls, frames):
    np.random.seed(3)
    stream = Stream(3, seed=2, frames=frames, timeouts=True)
    kwargs = dict(example=stream.example(), size=60, B=3, n_step_return=2, discount=0.9)
    replay = Cls(**kwargs)
    fill(replay, stream, [5] * 6)
    state = replay.state_dict()
    expected = [replay.sample_batch(8) for _ in range(3)]
    if hasattr(replay, "update_batch_priorities"):
        replay.update_batch_priorities(np.ones(8))
    fill(replay, stream, [5] * 2)  # state is a copy: later writes do not change it
    restored = Cls(**kwargs)
    restored.load_state_dict(state)
    for batch in expected:
        assert_same_batches(batch, restored.sample_batch(8))
    assert restored.t == state["t"] and restored._buffer_full


def test_load_into_other_sizes_raises():
    stream = Stream(2, seed=0)
    replay = UniformReplayBuffer(example=stream.example(), size=40, B=2)
    fill(replay, stream, [4])
    other = UniformReplayBuffer(example=stream.example(), size=60, B=2)
    with pytest.raises(ValueError, match="same example, size, B"):
        other.load_state_dict(replay.state_dict())
