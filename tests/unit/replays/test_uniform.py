"""Uniform sampling: never inside the cursor zone, never an invalid (wait-reset) row, uniform
over the valid rows; clear errors when it cannot sample."""

import numpy as np
import pytest
import torch

from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer

from .naive_replay import Stream, fill, sampleable_rows


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("wait_reset", [False, True])
def test_samples_only_sampleable_valid_rows(n, wait_reset):
    B = 4
    stream = Stream(B, seed=n, wait_reset=wait_reset, p_done=0.3)
    replay = UniformReplayBuffer(example=stream.example(), size=20 * B, B=B, n_step_return=n)
    for _ in range(12):  # wraps several times; check the zone after every append
        fill(replay, stream, [5])
        allowed = set(sampleable_rows(replay))
        if not allowed:
            continue
        T_idxs, B_idxs = replay.sample_idxs(500)
        assert set(T_idxs.tolist()) <= allowed
        assert replay.valid[T_idxs, B_idxs].all()
    assert replay._buffer_full
    if wait_reset:
        assert not replay.valid.all()  # padding rows existed and were never drawn


def test_frequencies_are_uniform_over_valid_rows():
    B = 2
    stream = Stream(B, seed=3, wait_reset=True, p_done=0.4)
    replay = UniformReplayBuffer(example=stream.example(), size=40, B=B)
    fill(replay, stream, [4] * 8)
    rows = np.array(sampleable_rows(replay))
    valid = [(r, b) for r in rows for b in range(B) if replay.valid[r, b]]
    T_idxs, B_idxs = replay.sample_idxs(40_000)
    counts = {key: 0 for key in valid}
    for key in zip(T_idxs.tolist(), B_idxs.tolist(), strict=True):
        counts[key] += 1
    expected = 40_000 / len(valid)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < len(valid) + 5 * np.sqrt(2 * len(valid))  # about 5 sigma


def test_few_valid_rows_take_the_exact_path():
    stream = Stream(8, seed=0, timeouts=False)
    replay = UniformReplayBuffer(example=stream.example(), size=400, B=8)
    samples, valid = stream.chunk(6)
    valid[:] = False
    valid[2, 5] = True  # the only valid transition
    replay.append_samples(samples, valid)
    T_idxs, B_idxs = replay.sample_idxs(64)
    assert (T_idxs == 2).all() and (B_idxs == 5).all()


def test_accepts_torch_samples_and_returns_torch_batches():
    stream = Stream(2, seed=0)
    replay = UniformReplayBuffer(example=stream.example(), size=40, B=2, n_step_return=2)
    samples, _ = stream.chunk(10)
    replay.append_samples(type(samples)(*(torch.as_tensor(x) for x in samples)))
    batch = replay.sample_batch(5)
    assert isinstance(batch.return_, torch.Tensor) and batch.return_.shape == (5,)
    assert batch.agent_inputs.observation.shape == (5, 3)


def test_errors_b_mismatch_no_valid_rows_and_small_capacity():
    stream = Stream(2, seed=0)
    replay = UniformReplayBuffer(example=stream.example(), size=40, B=3, n_step_return=3)
    with pytest.raises(ValueError, match=r"B=3, but append_samples got a batch of B=2"):
        replay.append_samples(stream.chunk(4)[0])
    with pytest.raises(ValueError, match="0 valid transitions.*min_steps_learn"):
        replay.sample_batch(4)
    stream3 = Stream(3, seed=0)
    replay.append_samples(stream3.chunk(4)[0])  # rows 1..0: none sampleable yet (n=3)
    with pytest.raises(ValueError, match="0 valid transitions"):
        replay.sample_batch(4)
    with pytest.raises(ValueError, match="fewer than batch_B=1000"):
        replay.sample_batch(1000)
    with pytest.raises(ValueError, match="no values for 'done'"):
        replay.append_samples(stream3.chunk(2)[0]._replace(done=None))
    with pytest.raises(ValueError, match="use size >= 15"):
        UniformReplayBuffer(example=stream.example(), size=10, B=3, n_step_return=3)
