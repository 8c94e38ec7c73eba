"""Uniform sequence replay: every field of a replayed sequence against naive loops over the
recorded history (across the wrap-around, episode starts, time limits and wait-reset padding),
stored recurrent states for rnn_state_interval 0, 1 and k > 1, where starts may fall, errors."""

import numpy as np
import pytest
import torch

from rlpyt.replays.sequence.uniform import UniformSequenceReplayBuffer

from .naive_replay import fill
from .naive_sequence import H, SeqStream, legal_starts, naive_sequence, row_of

DISCOUNT = 0.9


def check_sequences(replay, stream, starts, timeouts=True):
    """Extract the sequences at ``starts`` ((abs step, column) pairs), compare with naive loops."""
    starts = sorted(starts)
    T_idxs = np.array([row_of(replay, a) for a, _ in starts])
    B_idxs = np.array([b for _, b in starts])
    extra = {"is_weights": np.ones(len(starts), np.float32)}
    batch = replay.extract_batch(T_idxs, B_idxs, **extra)
    batch_T, n = replay.batch_T, replay.n_step_return
    assert batch.all_action.shape[:2] == (batch_T + n + 1, len(starts))
    assert batch.all_observation.shape[:2] == (batch_T + n, len(starts))
    assert batch.bootstrap_t.dtype == torch.int64
    assert batch.target_discount.dtype == torch.float32
    for i, (a, b) in enumerate(starts):
        want = naive_sequence(stream.history, a, b, batch_T, n, DISCOUNT, timeouts)
        np.testing.assert_array_equal(batch.all_action[:, i].numpy(), want["all_action"])
        np.testing.assert_array_equal(batch.all_reward[:, i].numpy(), want["all_reward"])
        for j, ok in enumerate(want["obs_valid"]):
            if ok:  # padding rows of wait-reset batches hold whatever the collector wrote
                obs = batch.all_observation[j, i].numpy()
                np.testing.assert_array_equal(obs, want["all_observation"][j])
        np.testing.assert_allclose(batch.return_[:, i].numpy(), want["return_"], rtol=1e-6)
        np.testing.assert_array_equal(batch.done_n[:, i].numpy(), want["done_n"])
        np.testing.assert_array_equal(batch.done[:, i].numpy(), want["done"])
        np.testing.assert_array_equal(batch.bootstrap_t[:, i].numpy(), want["bootstrap_t"])
        np.testing.assert_allclose(
            batch.target_discount[:, i].numpy(), want["target_discount"], rtol=1e-6
        )
        if replay.rnn_state_interval == 0:
            assert batch.init_rnn_state is None
        else:
            h, c = want["rnn_state"]
            np.testing.assert_array_equal(batch.init_rnn_state.h[:, i].numpy(), h[b])
            np.testing.assert_array_equal(batch.init_rnn_state.c[:, i].numpy(), c[b])
    return batch


@pytest.mark.parametrize(
    "k,n,timeouts,wait_reset",
    [
        (0, 1, False, False),
        (1, 3, True, False),
        (3, 3, True, True),
        (3, 1, True, False),
        (1, 1, True, True),
        (0, 3, False, True),
        (3, 3, False, False),
    ],
)
def test_sequence_fields_match_naive_loops_across_wrap(k, n, timeouts, wait_reset):
    B, batch_T = 3, 5
    stream = SeqStream(B, seed=10 * k + n, timeouts=timeouts, wait_reset=wait_reset, p_done=0.2)
    replay = UniformSequenceReplayBuffer(
        example=stream.example(),
        size=31 * B,
        B=B,
        rnn_state_interval=k,
        batch_T=batch_T,
        discount=DISCOUNT,
        n_step_return=n,
    )
    assert replay.T % max(1, k) == 0 and replay.T >= 31
    checked, zeroed_prev = 0, 0
    for length in [4] * 4 + [5, 2, 7] + [4, 6] * 6:  # before the wrap, at it, well after it
        fill(replay, stream, [length])
        starts = legal_starts(replay, stream)
        if starts:
            batch = check_sequences(replay, stream, starts, timeouts)
            checked += len(starts)
            zeroed_prev += int((batch.all_action[0] == 0).sum())
    assert replay._buffer_full and checked > 300 // max(1, k)
    assert zeroed_prev > 0  # starts right after an episode boundary were exercised


@pytest.mark.parametrize("k", [1, 4])
def test_draws_only_legal_starts_and_cover_them(k):
    np.random.seed(k)
    B = 2
    stream = SeqStream(B, seed=k, wait_reset=True, p_done=0.25)
    replay = UniformSequenceReplayBuffer(
        example=stream.example(), size=40 * B, B=B, rnn_state_interval=k, batch_T=6,
        n_step_return=2,
    )  # fmt: skip
    with pytest.raises(ValueError, match="no valid sequence start"):
        replay.sample_batch(4)
    for lengths in ([5] * 3, [7, 3], [5] * 9, [6] * 5):
        fill(replay, stream, lengths)
        legal = legal_starts(replay, stream)
        rows = {(row_of(replay, a), b): a for a, b in legal}
        drawn = set()
        for _ in range(40):
            T_idxs, B_idxs = replay.sample_idxs(16)
            drawn.update(zip(T_idxs.tolist(), B_idxs.tolist(), strict=True))
        assert drawn <= set(rows)  # never a padding row, never in the cursor zone
        assert drawn == set(rows)  # and every legal start can be drawn
        assert all(r % k == 0 for r, _ in drawn)


def test_rnn_state_storage_layouts():
    B = 2
    stream = SeqStream(B, seed=5)
    kwargs = dict(example=stream.example(), size=20 * B, B=B, batch_T=4, n_step_return=1)
    every = UniformSequenceReplayBuffer(rnn_state_interval=1, **kwargs)
    assert every.samples.prev_rnn_state.h.shape == (20, B, 1, H)
    sparse = UniformSequenceReplayBuffer(rnn_state_interval=3, **kwargs)
    assert sparse.T == 21  # rounded up to a multiple of 3
    assert sparse.samples.prev_rnn_state is None  # kept only in its own [T // k, B] array
    assert sparse.samples_prev_rnn_state.h.shape == (7, B, 1, H)
    none = UniformSequenceReplayBuffer(rnn_state_interval=0, **kwargs)
    assert none.samples.prev_rnn_state is None and none.samples_prev_rnn_state is None
    fill(sparse, stream, [5] * 9)  # wrapped; chunks not aligned to k
    for row in range(0, sparse.T, 3):
        a = max(s for s in range(stream.step_count) if s % sparse.T == row)
        np.testing.assert_array_equal(
            sparse.samples_prev_rnn_state.h[row // 3], stream.history[a]["prev_rnn_state"][0]
        )
    batch = sparse.sample_batch(5)
    assert batch.init_rnn_state.h.shape == (1, 5, H)  # [N, batch_B, H], ready for nn.LSTM
    assert batch.init_rnn_state.h.is_contiguous()


def test_clear_errors():
    stream = SeqStream(2, seed=0)
    example = stream.example()
    no_state = example._replace(prev_rnn_state=None)
    with pytest.raises(ValueError, match="prev_rnn_state"):
        UniformSequenceReplayBuffer(no_state, 40, 2, rnn_state_interval=2, batch_T=4)
    UniformSequenceReplayBuffer(no_state, 40, 2, rnn_state_interval=0, batch_T=4)
    with pytest.raises(ValueError, match="use size >= "):
        UniformSequenceReplayBuffer(example, 16, 2, rnn_state_interval=4, batch_T=6)
    with pytest.raises(ValueError, match="rnn_state_interval"):
        UniformSequenceReplayBuffer(example, 40, 2, rnn_state_interval=-1, batch_T=4)
    replay = UniformSequenceReplayBuffer(example, 40, 2, rnn_state_interval=2, batch_T=4)
    with pytest.raises(ValueError, match="batch_B"):
        replay.sample_batch(1000)
    samples, _ = stream.chunk(3)
    with pytest.raises(ValueError, match="prev_rnn_state"):
        replay.append_samples(samples._replace(prev_rnn_state=None))
