"""Sequence frame buffers: ``all_observation [batch_T + n, batch_B, C, H, W]`` rebuilt from one
stored frame per step equals the real frame stacks (frames before each step's episode start
zeroed), across the wrap-around; the other fields as the non-frame buffer; snapshots resume."""

import numpy as np
import pytest
import torch

from rlpyt.replays.frame import stack_frames
from rlpyt.replays.sequence.frame import (
    AsyncUniformSequenceReplayFrameBuffer,
    PrioritizedSequenceReplayFrameBuffer,
    UniformSequenceReplayFrameBuffer,
)
from rlpyt.replays.sequence.prioritized import PrioritizedSequenceReplayBuffer
from rlpyt.replays.sequence.uniform import UniformSequenceReplayBuffer

from .naive_replay import fill
from .naive_sequence import SeqStream, legal_starts
from .test_sequence_uniform import check_sequences, row_of


@pytest.mark.parametrize("C", [1, 4])
@pytest.mark.parametrize("wait_reset", [False, True])
@pytest.mark.parametrize(
    "Cls", [UniformSequenceReplayFrameBuffer, PrioritizedSequenceReplayFrameBuffer]
)
def test_rebuilt_sequences_equal_real_stacks(C, wait_reset, Cls):
    B, k = 2, 2
    stream = SeqStream(B, seed=C, C=C, frames=True, wait_reset=wait_reset, p_done=0.2)
    replay = Cls(stream.example(), 30 * B, B, k, 5, 0.9, 2)
    assert replay.off_forward == max(1, C - 1)
    assert replay.samples.observation is None and replay.samples.prev_rnn_state is None
    checked, zeroed = 0, 0
    for length in [3, 4, 5] * 8:
        fill(replay, stream, [length])
        starts = legal_starts(replay, stream)
        if not starts:
            continue
        batch = check_sequences(replay, stream, starts)
        check_compact_frames(replay, starts, batch)
        assert batch.all_observation.shape == (5 + 2, len(starts), C, 3, 2)
        assert batch.all_observation.dtype == torch.uint8
        zeroed += int((batch.all_observation == 0).all(dim=(-1, -2)).any(dim=-1).sum())
        checked += len(starts)
    assert replay._buffer_full and checked > 100
    if C > 1:
        assert zeroed > 20  # frames before episode starts inside sequences were exercised


def check_compact_frames(replay, starts, batch):
    """With ``compact_frames`` the same sequences come as one frame per step and the zero
    mask (what R2D1 sends to a GPU); ``stack_frames`` rebuilds exactly ``batch``."""
    starts = sorted(starts)
    T_idxs = np.array([row_of(replay, a) for a, _ in starts])
    B_idxs = np.array([b for _, b in starts])
    replay.compact_frames = True
    try:
        compact = replay.extract_batch(T_idxs, B_idxs, is_weights=np.ones(len(starts), np.float32))
    finally:
        replay.compact_frames = False
    stack = compact.all_observation
    L, C = batch.all_observation.shape[0], replay.n_frames  # noqa: N806
    assert stack.frames.shape == (L + C - 1, len(starts), 3, 2)
    assert stack.keep.shape == (L, len(starts), C) and stack.keep.dtype == torch.bool
    torch.testing.assert_close(stack_frames(stack), batch.all_observation, rtol=0, atol=0)
    assert_same(compact._replace(all_observation=None), batch._replace(all_observation=None))


def assert_same(a, b):
    for x, y in zip(a, b, strict=True):
        if isinstance(x, tuple) or x is None:
            assert (x is None) == (y is None)
            if x is not None:
                assert_same(x, y)
        else:
            torch.testing.assert_close(x, y, rtol=0, atol=0)


@pytest.mark.parametrize(
    "Cls,frames",
    [
        (UniformSequenceReplayBuffer, False),
        (PrioritizedSequenceReplayBuffer, False),
        (PrioritizedSequenceReplayFrameBuffer, True),
    ],
)
@pytest.mark.parametrize("k", [1, 3])
def test_state_dict_round_trip_draws_the_same_batches(Cls, frames, k):
    np.random.seed(4)
    stream = SeqStream(3, seed=7, frames=frames, wait_reset=True)
    kwargs = dict(
        example=stream.example(), size=25 * 3, B=3, rnn_state_interval=k, batch_T=4,
        discount=0.9, n_step_return=2,
    )  # fmt: skip
    replay = Cls(**kwargs)
    fill(replay, stream, [5] * 8)
    if hasattr(replay, "update_batch_priorities"):
        replay.sample_batch(6)
        replay.update_batch_priorities(np.arange(1, 7.0))
    state = replay.state_dict()
    if k > 1:
        assert "samples_prev_rnn_state.h" in state
    expected = [replay.sample_batch(6) for _ in range(3)]
    fill(replay, stream, [5] * 2)  # the state is a copy: later writes do not change it
    restored = Cls(**kwargs)
    restored.load_state_dict(state)
    for batch in expected:
        assert_same(batch, restored.sample_batch(6))
    other = Cls(**{**kwargs, "size": 40 * 3})
    with pytest.raises(ValueError, match="same example, size, B"):
        other.load_state_dict(state)


def test_async_frame_buffer_in_process():
    stream = SeqStream(2, seed=1, frames=True)
    replay = AsyncUniformSequenceReplayFrameBuffer(stream.example(), 60, 2, 2, 4, 0.9, 2)
    fill(replay, stream, [4] * 10)
    batch = replay.sample_batch(5)
    assert batch.all_observation.shape == (6, 5, 4, 3, 2)
    assert batch.init_rnn_state.h.shape == (1, 5, 4)


def test_r2d1_off_the_cpu_draws_frames_and_stacks_them_on_the_device():
    """R2D1 with its agent on a (fake) CUDA device sets ``compact_frames`` and rebuilds the
    observations after the batch crossed; on the CPU the replay stacks them, as before."""
    from types import SimpleNamespace

    from rlpyt.algos.dqn.r2d1 import R2D1
    from tests.fake_cuda import FAKE_DEVICE, FakeCuda, on_fake_cuda

    stream = SeqStream(2, seed=3, frames=True, p_done=0.2)
    replay = PrioritizedSequenceReplayFrameBuffer(stream.example(), 40 * 2, 2, 2, 5, 0.9, 2)
    fill(replay, stream, [5] * 12)
    algo = R2D1()
    algo.replay_buffer = replay
    state = replay.priority_tree.rng.bit_generator.state
    algo.agent = SimpleNamespace(device=torch.device("cpu"))
    on_host = algo.draw(6)
    assert not replay.compact_frames and isinstance(on_host.all_observation, torch.Tensor)
    replay.priority_tree.rng.bit_generator.state = state  # the same draw again
    algo.agent = SimpleNamespace(device=FAKE_DEVICE)
    with FakeCuda():
        on_device = algo.draw(6)
        assert replay.compact_frames and on_fake_cuda(on_device.all_observation)
    assert torch.equal(on_device.all_observation, on_host.all_observation)
    assert on_device.all_observation.shape == (5 + 2, 6, 4, 3, 2)
