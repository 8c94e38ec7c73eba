"""Prioritized replay: importance weights against a naive computation, priorities stored as
p ** alpha, invalid rows at 0, input priorities raised to alpha and shifted."""

import numpy as np
import pytest
import torch

from rlpyt.replays.non_sequence.prioritized import PrioritizedReplayBuffer, SamplesToBufferPri
from rlpyt.replays.non_sequence.time_limit import TlPrioritizedReplayBuffer

from .naive_replay import Stream, fill, sampleable_rows


def make(B=2, size=40, **kwargs):
    stream = Stream(B, seed=0, wait_reset=kwargs.pop("wait_reset", False), p_done=0.3)
    replay = PrioritizedReplayBuffer(example=stream.example(), size=size, B=B, **kwargs)
    return replay, stream


def test_is_weights_and_priority_updates_against_naive():
    np.random.seed(0)
    replay, stream = make(alpha=0.7, beta=0.5, default_priority=2.0, n_step_return=2)
    fill(replay, stream, [4] * 8)
    leaves = replay.priority_tree.priorities
    on = leaves > 0
    assert np.allclose(leaves[on], 2.0**0.7)
    batch = replay.sample_batch(16)
    td = torch.rand(16) + 0.1
    replay.update_batch_priorities(td)
    T_idxs, B_idxs = np.divmod(
        replay.priority_tree.prev_tree_idxs - replay.priority_tree.low_idx, 2
    )
    first = {}
    for i, key in enumerate(zip(T_idxs.tolist(), B_idxs.tolist(), strict=True)):
        first.setdefault(key, td[i].item() ** 0.7)
    for (r, b), value in first.items():
        assert leaves[r, b] == pytest.approx(value)
    replay.set_beta(1.0)
    batch = replay.sample_batch(16)
    sampled = replay.priority_tree.tree[replay.priority_tree.prev_tree_idxs]
    naive = [(1 / p) ** 1.0 for p in sampled]
    naive = [w / max(naive) for w in naive]
    np.testing.assert_allclose(batch.is_weights.numpy(), naive, rtol=1e-6)
    assert batch.is_weights.dtype == torch.float32


def test_invalid_rows_get_zero_priority_and_are_never_sampled():
    replay, stream = make(B=4, size=80, wait_reset=True)
    fill(replay, stream, [5] * 9)
    leaves = replay.priority_tree.priorities
    assert not replay.valid.all()
    assert (leaves[~replay.valid] == 0).all()
    rows = sampleable_rows(replay)
    assert (leaves[rows][replay.valid[rows]] > 0).all()
    T_idxs, B_idxs, _ = replay.priority_tree.sample(5000)
    assert replay.valid[T_idxs, B_idxs].all()


def test_input_priorities_raised_to_alpha_and_shifted():
    B, shift, alpha = 2, 1, 0.5
    stream = Stream(B, seed=1, timeouts=True)
    replay = TlPrioritizedReplayBuffer(
        example=stream.example(),
        size=30 * B,
        B=B,
        n_step_return=2,
        alpha=alpha,
        input_priorities=True,
        input_priority_shift=shift,
    )
    given = {}
    for step_start in range(0, 20, 4):
        samples, _ = stream.chunk(4)
        priorities = np.arange(4 * B, dtype=float).reshape(4, B) + step_start + 1
        replay.append_samples(SamplesToBufferPri(samples=samples, priorities=priorities))
        for i in range(4):
            given[step_start + i] = priorities[i]
    for r in sampleable_rows(replay):
        np.testing.assert_allclose(replay.priority_tree.priorities[r], given[r + shift] ** alpha)
    batch = replay.sample_batch(8)
    assert {"is_weights", "timeout", "timeout_n"} <= set(batch._fields)
    with pytest.raises(ValueError, match="SamplesToBufferPri"):
        replay.append_samples(stream.chunk(2)[0])


def test_unique_batch_and_zero_rows_error():
    replay, stream = make(B=2, size=40, unique=True)
    with pytest.raises(ValueError, match="0 valid transitions"):
        replay.sample_batch(4)
    fill(replay, stream, [4] * 3)
    batch_idxs = replay.sample_batch(10)
    assert batch_idxs.return_.shape == (10,)
    tree = replay.priority_tree
    assert len(np.unique(tree.prev_tree_idxs)) == 10
    with pytest.raises(ValueError, match="distinct"):
        replay.sample_batch(30)
