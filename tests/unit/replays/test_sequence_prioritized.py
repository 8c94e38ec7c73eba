"""Prioritized sequence replay: one leaf per stored-state row, on exactly while its sequence may
be sampled; input priorities raised to alpha and shifted; importance weights and
priority updates against naive computations; the batch fields match the uniform buffer's."""

import multiprocessing as mp

import numpy as np
import pytest
import torch

from rlpyt.replays.sequence.prioritized import (
    AsyncPrioritizedSequenceReplayBuffer,
    AsyncSequenceSumTree,
    PrioritizedSequenceReplayBuffer,
    SamplesToBufferPri,
)

from .naive_replay import fill
from .naive_sequence import SeqStream, legal_starts, row_of
from .test_sequence_uniform import check_sequences


def make(k=3, B=2, size=45, wait_reset=False, seed=0, **kwargs):
    stream = SeqStream(B, seed=seed, wait_reset=wait_reset, p_done=0.25)
    replay = PrioritizedSequenceReplayBuffer(
        stream.example(), size * B, B, k, 5, 0.9, 2, **kwargs
    )  # positional: example, size, B, rnn_state_interval, batch_T, discount, n_step_return
    return replay, stream


def leaves_on(replay):
    tree = replay.priority_tree
    return {(int(i) * tree.period, int(b)) for i, b in np.argwhere(tree.priorities > 0)}


@pytest.mark.parametrize("k", [0, 1, 4])
@pytest.mark.parametrize("wait_reset", [False, True])
def test_leaves_on_exactly_at_legal_starts(k, wait_reset):
    replay, stream = make(k=k, wait_reset=wait_reset, alpha=0.5, default_priority=3.0)
    tree = replay.priority_tree
    assert tree.priorities.shape == (replay.T // max(1, k), replay.B)
    for length in [4, 4, 3, 7, 5] + [6, 4, 5] * 7:  # chunk starts not aligned to k
        fill(replay, stream, [length])
        legal = {(row_of(replay, a), b) for a, b in legal_starts(replay, stream)}
        assert leaves_on(replay) == legal
        on = tree.priorities[tree.priorities > 0]
        np.testing.assert_allclose(on, 3.0**0.5)
        np.testing.assert_allclose(tree.tree[0], on.sum())  # the root sums the leaves
    assert replay._buffer_full


def test_input_priorities_raised_to_alpha_and_shifted():
    k, shift, alpha = 3, 1, 0.5
    replay, stream = make(
        k=k, alpha=alpha, input_priorities=True, input_priority_shift=shift, size=40
    )
    given = {}  # absolute stored-state row index -> [B] priorities
    for length in [6, 3, 6, 4, 5, 6, 3] * 4:
        first = stream.step_count
        state_rows = [a for a in range(first, first + length) if a % k == 0]
        priorities = np.random.default_rng(first).uniform(1, 9, (len(state_rows), replay.B))
        samples, _ = stream.chunk(length)
        replay.append_samples(SamplesToBufferPri(samples=samples, priorities=priorities))
        given.update({a // k: priorities[i] for i, a in enumerate(state_rows)})
        for a, b in legal_starts(replay, stream):
            leaf = replay.priority_tree.priorities[row_of(replay, a) // k, b]
            assert leaf == pytest.approx(given[a // k + shift][b] ** alpha)
    with pytest.raises(ValueError, match="one priority per stored-state row"):
        replay.append_samples(SamplesToBufferPri(stream.chunk(6)[0], np.ones((3, replay.B))))
    with pytest.raises(ValueError, match="SamplesToBufferPri"):
        replay.append_samples(stream.chunk(3)[0])


def test_is_weights_updates_and_fields():
    np.random.seed(1)
    replay, stream = make(k=2, alpha=0.7, beta=0.5, wait_reset=True)
    fill(replay, stream, [5] * 20)
    legal = {(row_of(replay, a), b): (a, b) for a, b in legal_starts(replay, stream)}
    tree = replay.priority_tree
    batch = replay.sample_batch(32)
    drawn_rows, drawn_cols = np.divmod(tree.prev_tree_idxs - tree.low_idx, replay.B)
    starts = list(zip((drawn_rows * 2).tolist(), drawn_cols.tolist(), strict=True))
    assert set(starts) <= set(legal)
    check_sequences(replay, stream, [legal[s] for s in set(starts)])  # fields vs naive loops
    naive = [(1 / tree.tree[i]) ** 0.5 for i in tree.prev_tree_idxs]
    np.testing.assert_allclose(batch.is_weights.numpy(), np.array(naive) / max(naive), rtol=1e-6)
    assert batch.is_weights.dtype == torch.float32
    td = torch.rand(32) + 0.1
    replay.update_batch_priorities(td)
    first = {}
    for i, s in enumerate(starts):
        first.setdefault(s, td[i].item() ** 0.7)
    for (row, b), value in first.items():
        assert tree.priorities[row // 2, b] == pytest.approx(value)


def test_update_keeps_leaves_turned_off_since_the_draw():
    replay, stream = make(k=2, size=30)
    fill(replay, stream, [6] * 8)
    replay.sample_batch(20)
    tree = replay.priority_tree
    drawn = tree.prev_tree_idxs.copy()
    fill(replay, stream, [6])  # an append between draw and update (async copier)
    turned_off = tree.tree[drawn] == 0
    assert turned_off.any() and not turned_off.all()
    replay.update_batch_priorities(np.full(20, 5.0))
    assert (tree.tree[drawn[turned_off]] == 0).all()
    assert (tree.tree[drawn[~turned_off]] == 5.0**0.6).all()
    assert tree.tree[0] == pytest.approx(tree.priorities.sum())
    assert leaves_on(replay) == {(row_of(replay, a), b) for a, b in legal_starts(replay, stream)}


def test_draws_follow_priorities():
    np.random.seed(2)
    replay, stream = make(k=2, alpha=1.0)
    fill(replay, stream, [6] * 12)
    replay.sample_batch(1)
    replay.update_batch_priorities(np.array([1000.0]))  # one sequence 1000x the others
    heavy = int(replay.priority_tree.prev_tree_idxs[0])
    n_on = int(np.count_nonzero(replay.priority_tree.priorities))
    replay.priority_tree.sample(4000)  # the draw sample_batch makes, without the extraction
    share = np.mean(replay.priority_tree.prev_tree_idxs == heavy)
    expected = 1000 / (1000 + n_on - 1)
    assert abs(share - expected) < 0.05


def _append_chunks(replay, seed, n_chunks):
    """A memory copier: append ``n_chunks`` chunks of a seeded stream with input priorities."""
    stream = SeqStream(2, seed=seed)
    for i in range(n_chunks):
        samples, _ = stream.chunk(5)  # rows not aligned to k: 2 or 3 stored-state rows
        n_states = len([a for a in range(5 * i, 5 * i + 5) if a % 2 == 0])
        priorities = np.arange(1, 1 + 2 * n_states, dtype=float).reshape(n_states, 2) + i
        replay.append_samples(SamplesToBufferPri(samples, priorities))


def test_async_buffer_written_by_another_process_equals_a_serial_one():
    kwargs = dict(
        example=SeqStream(2, seed=3).example(), size=60, B=2, rnn_state_interval=2, batch_T=4,
        n_step_return=2, alpha=0.5, input_priorities=True, input_priority_shift=1,
    )  # fmt: skip
    shared = AsyncPrioritizedSequenceReplayBuffer(**kwargs)
    assert isinstance(shared.priority_tree, AsyncSequenceSumTree)
    writer = mp.get_context("fork").Process(target=_append_chunks, args=(shared, 3, 9))
    writer.start()
    writer.join(timeout=60)
    assert writer.exitcode == 0
    serial = PrioritizedSequenceReplayBuffer(**kwargs)
    _append_chunks(serial, 3, 9)
    mine, theirs = shared.state_dict(), serial.state_dict()
    assert mine.keys() == theirs.keys() and "samples_prev_rnn_state.h" in mine
    for key in ("samples.observation", "samples_prev_rnn_state.h", "valid", "t"):
        np.testing.assert_array_equal(mine[key], theirs[key])
    for key in ("tree", "input_priorities", "t", "_buffer_full"):
        np.testing.assert_array_equal(mine["sum_tree"][key], theirs["sum_tree"][key])
    batch = shared.sample_batch(6)
    assert batch.all_observation.shape[:2] == (6, 6) and batch.is_weights.shape == (6,)
