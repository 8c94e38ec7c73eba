"""rlpyt.utils.misc: minibatch indexes, allocation by dtype kind, ring-buffer windows."""

import numpy as np
import pytest
import torch

from rlpyt.utils.misc import empty, extract_sequences, iterate_mb_idxs, zeros
from rlpyt.utils.seed import set_seed

from .naive import loop_windows
from .records import Point


@pytest.mark.parametrize(("length", "size"), [(10, 3), (12, 4), (5, 5), (4, 6)])
def test_iterate_mb_idxs_without_shuffle_yields_full_consecutive_slices(length, size):
    batches = list(iterate_mb_idxs(length, size))
    assert len(batches) == length // size
    covered = [i for batch in batches for i in range(length)[batch]]
    assert covered == list(range((length // size) * size))


def test_iterate_mb_idxs_shuffle_is_a_seeded_permutation_minus_remainder():
    set_seed(11)
    batches = list(iterate_mb_idxs(10, 3, shuffle=True))
    assert [len(b) for b in batches] == [3, 3, 3]
    flat = np.concatenate(batches)
    assert len(set(flat.tolist())) == 9 and set(flat.tolist()) <= set(range(10))
    np.random.seed(11)
    assert np.array_equal(flat, np.random.permutation(10)[:9])
    set_seed(11)
    again = np.concatenate(list(iterate_mb_idxs(10, 3, shuffle=True)))
    assert np.array_equal(flat, again)


def test_iterate_mb_idxs_rejects_nonpositive_size():
    with pytest.raises(ValueError, match="minibatch_size"):
        list(iterate_mb_idxs(4, 0))


def test_zeros_and_empty_pick_library_by_dtype():
    z = zeros((2, 3), torch.float32)
    assert isinstance(z, torch.Tensor) and z.dtype == torch.float32 and not z.any()
    z = zeros((2, 3), np.int16)
    assert isinstance(z, np.ndarray) and z.dtype == np.int16 and not z.any()
    assert isinstance(empty(4, torch.int64), torch.Tensor)
    e = empty((4,), np.uint8)
    assert isinstance(e, np.ndarray) and e.dtype == np.uint8 and e.shape == (4,)


def test_extract_sequences_wraps_at_either_end_by_hand():
    buffer = np.arange(6 * 2).reshape(6, 2)  # buffer[t, b] = 2 t + b
    out = extract_sequences(buffer, [4, -2, 1], [1, 0, 1], 4)
    assert out[:, 0].tolist() == [9, 11, 1, 3]  # t = 4, 5, 0, 1 at b = 1
    assert out[:, 1].tolist() == [8, 10, 0, 2]  # t = -2 starts at t = 4, then wraps
    assert out[:, 2].tolist() == [3, 5, 7, 9]


@pytest.mark.parametrize("use_torch", [False, True])
def test_extract_sequences_matches_loop(use_torch):
    rng = np.random.default_rng(4)
    length, n_envs, T, n = 9, 3, 4, 20
    buffer = rng.normal(size=(length, n_envs, 2)).astype(np.float32)
    T_idxs = rng.integers(-T, length, size=n)
    B_idxs = rng.integers(0, n_envs, size=n)
    source = torch.from_numpy(buffer) if use_torch else buffer
    out = extract_sequences(source, T_idxs, B_idxs, T)
    assert isinstance(out, torch.Tensor) == use_torch
    assert tuple(out.shape) == (T, n, 2)
    expected = np.array(loop_windows(buffer.tolist(), T_idxs.tolist(), B_idxs.tolist(), T))
    assert np.array_equal(np.asarray(out), expected)
    out[...] = 0  # a copy: the buffer is untouched
    assert np.abs(buffer).sum() > 0


def test_extract_sequences_on_namedarraytuple_keeps_structure_and_none():
    buffer = Point(x=np.arange(10).reshape(5, 2), y=None)
    out = extract_sequences(buffer, [3], [0], 3)
    assert isinstance(out, Point) and out.y is None
    assert out.x[:, 0].tolist() == [6, 8, 0]
