"""rlpyt.utils.array (numpy twins) against naive Python loops."""

import itertools

import numpy as np
import pytest

from rlpyt.utils.array import (
    from_onehot,
    infer_leading_dims,
    select_at_indexes,
    to_onehot,
    valid_mean,
)

from .naive import loop_valid_mean

LEADS = [(), (5,), (4, 3)]


@pytest.mark.parametrize("lead", LEADS)
@pytest.mark.parametrize("rest", [(), (2,), (2, 3)])
def test_select_at_indexes_matches_loop(lead, rest):
    rng = np.random.default_rng(0)
    n = 6
    array = rng.normal(size=lead + (n,) + rest)
    indexes = rng.integers(0, n, size=lead)
    out = select_at_indexes(indexes, array)
    assert out.shape == lead + rest
    for pos in itertools.product(*(range(d) for d in lead)):
        assert np.array_equal(out[pos], array[pos + (int(indexes[pos]),)])


def test_select_at_indexes_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="leading dims"):
        select_at_indexes(np.zeros(3, dtype=int), np.zeros((4, 5)))


@pytest.mark.parametrize("lead", LEADS)
def test_to_onehot_matches_loop(lead):
    rng = np.random.default_rng(1)
    num = 5
    indexes = rng.integers(0, num, size=lead)
    onehot = to_onehot(indexes, num, dtype=np.float32)
    assert onehot.shape == lead + (num,) and onehot.dtype == np.float32
    for pos in itertools.product(*(range(d) for d in lead)):
        for k in range(num):
            assert onehot[pos + (k,)] == (1.0 if k == int(indexes[pos]) else 0.0)
    assert to_onehot(indexes.astype(np.int32), num).dtype == np.int32


@pytest.mark.parametrize("lead", LEADS)
def test_from_onehot_is_argmax_and_inverts_to_onehot(lead):
    rng = np.random.default_rng(2)
    scores = rng.normal(size=lead + (7,))
    out = from_onehot(scores)
    for pos in itertools.product(*(range(d) for d in lead)):
        row = list(scores[pos])
        assert int(out[pos]) == row.index(max(row))
    indexes = rng.integers(0, 7, size=lead)
    assert np.array_equal(from_onehot(to_onehot(indexes, 7)), indexes)
    assert from_onehot(to_onehot(indexes, 7), dtype=np.int16).dtype == np.int16
    assert np.array_equal(from_onehot(np.moveaxis(to_onehot(indexes, 7), -1, 0), axis=0), indexes)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_valid_mean_matches_loop(axis):
    rng = np.random.default_rng(3)
    values = rng.normal(size=(6, 4))
    valid = rng.random((6, 4)) > 0.3
    valid[0] = True
    valid[:, 0] = True
    out = valid_mean(values, valid, axis=axis)
    assert np.allclose(out, loop_valid_mean(values.tolist(), valid.astype(int).tolist(), axis))


def test_valid_mean_without_mask_is_mean_and_all_invalid_is_nan():
    values = np.arange(6.0).reshape(2, 3)
    assert valid_mean(values) == 2.5
    assert np.array_equal(valid_mean(values, axis=1), [1.0, 4.0])
    assert np.isnan(valid_mean(values, np.zeros((2, 3), dtype=bool)))


@pytest.mark.parametrize("lead", LEADS)
@pytest.mark.parametrize("data_shape", [(), (3,), (3, 2)])
def test_infer_leading_dims(lead, data_shape):
    T, B, shape, has_T, has_B = infer_leading_dims(np.zeros(lead + data_shape), len(data_shape))
    assert shape == data_shape
    assert (has_T, has_B) == (len(lead) == 2, len(lead) >= 1)
    assert (T, B) == {0: (1, 1), 1: (1, lead[0] if lead else 1), 2: lead}[len(lead)]


def test_infer_leading_dims_rejects_too_many_dims():
    with pytest.raises(ValueError, match=r"\[T, B\]"):
        infer_leading_dims(np.zeros((2, 3, 4, 5)), 1)
