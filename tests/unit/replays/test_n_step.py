"""n-step returns, terminal/timeout flags, bootstrap rows and agent inputs against naive loops,
across the wrap-around, with and without time limits and wait-reset padding."""

import numpy as np
import pytest
import torch

from rlpyt.replays.non_sequence.prioritized import PrioritizedReplayBuffer
from rlpyt.replays.non_sequence.time_limit import TlUniformReplayBuffer
from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer

from .naive_replay import Stream, fill, naive_inputs, naive_target, sampleable_rows

DISCOUNT = 0.9


def check_rows(replay, stream, row_step, rows, timeouts):
    """Extract every (row, column) in ``rows`` and compare each field with the naive loops."""
    T_idxs = np.repeat(np.asarray(rows), replay.B)
    B_idxs = np.tile(np.arange(replay.B), len(rows))
    keep = replay.valid[T_idxs, B_idxs]
    T_idxs, B_idxs = T_idxs[keep], B_idxs[keep]
    batch = replay.extract_batch(T_idxs, B_idxs, is_weights=np.ones(len(T_idxs), np.float32))
    hist, n = stream.history, replay.n_step_return
    for i, (row, b) in enumerate(zip(T_idxs, B_idxs, strict=True)):
        a = row_step[int(row)]
        ret, done_n, timeout_n, target, tdisc = naive_target(hist, a, b, n, DISCOUNT, timeouts)
        assert batch.return_[i].item() == pytest.approx(ret, rel=1e-6)
        assert bool(batch.done_n[i]) == done_n
        assert batch.target_discount[i].item() == pytest.approx(tdisc, rel=1e-6)
        assert batch.target_discount.dtype == torch.float32
        assert bool(batch.done[i]) == bool(hist[a]["done"][b])
        assert int(batch.action[i]) == int(hist[a]["action"][b])
        for inputs, step in ((batch.agent_inputs, a), (batch.target_inputs, target)):
            obs, prev_action, prev_reward = naive_inputs(hist, step, b)
            np.testing.assert_array_equal(inputs.observation[i].numpy(), obs)
            assert int(inputs.prev_action[i]) == prev_action
            assert float(inputs.prev_reward[i]) == prev_reward
        if hasattr(batch, "timeout_n"):
            assert bool(batch.timeout_n[i]) == timeout_n
            assert bool(batch.timeout[i]) == bool(hist[a]["timeout"][b])
    return len(T_idxs)


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("B", [1, 3])
@pytest.mark.parametrize("timeouts", [False, True])
@pytest.mark.parametrize("wait_reset", [False, True])
def test_batch_fields_match_naive_loops_across_wrap(n, B, timeouts, wait_reset):
    stream = Stream(B, seed=n * 10 + B, timeouts=timeouts, wait_reset=wait_reset)
    Cls = TlUniformReplayBuffer if timeouts else UniformReplayBuffer
    replay = Cls(example=stream.example(), size=23 * B, B=B, discount=DISCOUNT, n_step_return=n)
    checked, row_step = 0, {}
    for chunk_lengths in ([4] * 4, [5, 3, 4], [4] * 7):  # before the wrap, at it, well after it
        row_step.update(fill(replay, stream, chunk_lengths))
        checked += check_rows(replay, stream, row_step, sampleable_rows(replay), timeouts)
    assert replay._buffer_full and checked > 20


def test_prioritized_batch_has_same_fields_and_honours_timeout():
    stream = Stream(2, seed=5, timeouts=True)
    replay = PrioritizedReplayBuffer(
        example=stream.example(), size=40, B=2, discount=DISCOUNT, n_step_return=3
    )
    row_step = fill(replay, stream, [4] * 8)
    assert replay._buffer_full
    assert check_rows(replay, stream, row_step, sampleable_rows(replay), timeouts=True) > 20
    batch = replay.sample_batch(8)
    assert batch._fields[-1] == "is_weights" and not hasattr(batch, "timeout_n")


def test_timeout_cases_by_hand():
    """A timeout at t itself, inside the window and at its end; and a terminal."""
    stream = Stream(1, seed=0, timeouts=True)
    replay = TlUniformReplayBuffer(
        example=stream.example(), size=16, B=1, discount=0.5, n_step_return=3
    )
    samples, _ = stream.chunk(10)
    samples.done[:] = False
    samples.timeout[:] = False
    samples.reward[:, 0] = np.arange(1, 11)
    samples.done[[2, 6]] = True  # timeout at row 2, terminal at row 6
    samples.timeout[2] = True
    replay.append_samples(samples)
    batch = replay.extract_batch(np.array([1, 2, 0, 4, 5]), np.zeros(5, int))
    # row 1: rewards 2, 3 then the timeout at 2 -> bootstrap from row 2 with 0.5**2
    # row 2: the timeout at t itself -> return 3, bootstrap from row 2 with 0.5
    # row 0: window 0..2 ends on the timeout at its last step -> bootstrap row 2, 0.5**3
    # row 4: rewards 5, 6, 7 with the terminal at 6 -> done_n
    # row 5: window 5..7 has the terminal at 6 -> done_n
    np.testing.assert_allclose(
        batch.return_.numpy(), [2 + 1.5, 3, 1 + 1 + 0.75, 5 + 3 + 1.75, 6 + 3.5]
    )
    np.testing.assert_allclose(batch.target_discount.numpy(), [0.25, 0.5, 0.125, 0.125, 0.25])
    np.testing.assert_array_equal(batch.timeout_n.numpy(), [True, True, True, False, False])
    np.testing.assert_array_equal(batch.done_n.numpy(), [False, False, False, True, True])
    obs = samples.observation[:, 0]
    np.testing.assert_array_equal(batch.target_inputs.observation.numpy(), obs[[2, 2, 2, 6, 6]])


def test_time_limit_buffer_requires_timeout_field():
    stream = Stream(1, seed=0, timeouts=False)
    with pytest.raises(ValueError, match="needs a 'timeout' field"):
        TlUniformReplayBuffer(example=stream.example(), size=20, B=1)


def test_invalid_row_in_window_is_a_terminal_with_a_written_bootstrap_row():
    """A padding row without a done before it: reward 0, done_n, bootstrap from the row
    before it (never the padding row, whose observation may be NaN)."""
    stream = Stream(1, seed=0, timeouts=False)
    replay = UniformReplayBuffer(
        example=stream.example(), size=20, B=1, discount=0.5, n_step_return=3
    )
    samples, valid = stream.chunk(8)
    samples.done[:] = False
    samples.reward[:, 0] = np.arange(1, 9)
    valid[4:6] = False
    samples.observation[4:6] = np.nan
    replay.append_samples(samples, valid)
    batch = replay.extract_batch(np.array([2, 3, 1]), np.zeros(3, int))
    np.testing.assert_allclose(batch.return_.numpy(), [3 + 2, 4, 2 + 1.5 + 1])
    # row 1: no boundary in 1..3, but the bootstrap row 4 is padding -> terminal, row 3
    np.testing.assert_array_equal(batch.done_n.numpy(), [True, True, True])
    np.testing.assert_allclose(batch.target_discount.numpy(), [0.125, 0.25, 0.125])
    obs = samples.observation[:, 0]
    np.testing.assert_array_equal(batch.target_inputs.observation.numpy(), obs[[3, 3, 3]])
    assert np.isfinite(batch.target_inputs.observation.numpy()).all()
