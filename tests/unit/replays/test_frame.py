"""Frame buffers: observations rebuilt from one stored frame per step equal the real frame
stacks, across the wrap-around and episode starts; storage arithmetic; input checks."""

import resource

import numpy as np
import pytest

from rlpyt.replays.non_sequence.frame import (
    PrioritizedReplayFrameBuffer,
    UniformReplayFrameBuffer,
)

from .naive_replay import SamplesToBuffer, Stream, fill, naive_inputs, sampleable_rows


@pytest.mark.parametrize("C", [1, 2, 4])
@pytest.mark.parametrize("wait_reset", [False, True])
@pytest.mark.parametrize("Cls", [UniformReplayFrameBuffer, PrioritizedReplayFrameBuffer])
def test_rebuilt_observations_equal_real_stacks(C, wait_reset, Cls):
    B, n = 3, 2
    stream = Stream(B, seed=C, C=C, frames=True, timeouts=False, wait_reset=wait_reset, p_done=0.2)
    replay = Cls(example=stream.example(), size=20 * B, B=B, discount=0.9, n_step_return=n)
    assert replay.off_forward == max(1, C - 1)
    first = stream.stack.copy()
    row_step, checked, zeroed = {}, 0, 0
    for k, lengths in enumerate(([3] * 4, [4, 2, 3], [3] * 6)):
        row_step.update(fill(replay, stream, lengths))
        if k == 0:  # the very first append stored the older frames of the first observation
            older = first[:, : C - 1].swapaxes(0, 1)
            np.testing.assert_array_equal(replay.samples_frames[: C - 1], older)
        rows = np.repeat(sampleable_rows(replay), B)
        cols = np.tile(np.arange(B), len(rows) // B)
        keep = replay.valid[rows, cols]
        batch = replay.extract_batch(rows[keep], cols[keep], is_weights=np.ones(keep.sum()))
        for i, (row, b) in enumerate(zip(rows[keep], cols[keep], strict=True)):
            a = row_step[int(row)]
            obs = naive_inputs(stream.history, a, b)[0]
            np.testing.assert_array_equal(batch.agent_inputs.observation[i].numpy(), obs)
            zeroed += int((obs == 0).all(axis=(1, 2)).any())
            checked += 1
    assert replay._buffer_full and checked > 60
    if C > 1:
        assert zeroed > 5  # episode starts inside windows were exercised


def test_frames_array_size_and_duplicated_rows():
    C, B, H, W = 4, 2, 3, 2
    stream = Stream(B, seed=1, C=C, H=H, W=W, frames=True, timeouts=False)
    replay = UniformReplayFrameBuffer(example=stream.example(), size=30 * B, B=B)
    assert replay.samples_frames.shape == (30 + C - 1, B, H, W)
    assert replay.samples.observation is None  # only frames hold the observation
    fill(replay, stream, [7] * 6)  # 42 rows: wrapped once
    np.testing.assert_array_equal(replay.samples_frames[: C - 1], replay.samples_frames[-(C - 1) :])
    # newest frame of step s sits at frame row s + C - 1
    for s in range(42 - 30, 42):
        np.testing.assert_array_equal(
            replay.samples_frames[s % 30 + C - 1], stream.history[s]["observation"][:, -1]
        )


def test_million_transition_frame_buffer_is_lazy_and_within_memory_figure():
    example = SamplesToBuffer(np.zeros((4, 104, 80), np.uint8), np.int64(0), np.float32(0), False)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    replay = UniformReplayFrameBuffer(example=example, size=int(1e6), B=16, n_step_return=3)
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    frame_bytes = 104 * 80
    assert replay.samples_frames.nbytes <= 1.05 * 1e6 * frame_bytes
    small = sum(
        a.nbytes
        for a in (replay.samples.action, replay.samples.reward, replay.samples.done, replay.valid)
    )
    assert small == 1e6 * (8 + 4 + 1 + 1)
    assert grown_kb < 200_000  # the 8.3 GB of frames are not touched at construction


@pytest.mark.parametrize(
    "observation",
    [np.zeros((4, 84), np.uint8), np.zeros((4, 3, 2), np.float32), np.zeros(5, np.uint8)],
)
def test_frame_buffer_rejects_observations_it_cannot_hold(observation):
    example = SamplesToBuffer(observation, np.int64(0), np.float32(0), False)
    with pytest.raises(ValueError, match="UniformReplayBuffer"):
        UniformReplayFrameBuffer(example=example, size=100, B=1)


def test_batches_kept_alive_are_never_overwritten():
    stream = Stream(2, seed=4, frames=True, timeouts=False)
    replay = UniformReplayFrameBuffer(example=stream.example(), size=60, B=2, n_step_return=2)
    fill(replay, stream, [5] * 8)
    kept = [replay.sample_batch(6) for _ in range(7)]  # more than the pool holds
    copies = [b.agent_inputs.observation.clone() for b in kept]
    for _ in range(5):
        replay.sample_batch(6)
    for batch, copy in zip(kept, copies, strict=True):
        assert (batch.agent_inputs.observation == copy).all()
    del kept, copies, batch
    again = replay.sample_batch(6).agent_inputs.observation.numpy()
    assert any(np.shares_memory(again, pooled) for pooled in replay._out_pool)  # reused once free
