"""rlpyt.utils.tensor against naive Python loops."""

import itertools

import numpy as np
import pytest
import torch

from rlpyt.utils.tensor import (
    from_onehot,
    infer_leading_dims,
    restore_leading_dims,
    select_at_indexes,
    to_onehot,
    valid_mean,
)

from .naive import loop_valid_mean

LEADS = [(), (5,), (4, 3)]


@pytest.mark.parametrize("lead", LEADS)
@pytest.mark.parametrize("rest", [(), (2,), (2, 3)])
def test_select_at_indexes_matches_loop(lead, rest):
    gen = torch.Generator().manual_seed(0)
    n = 6
    tensor = torch.randn(lead + (n,) + rest, generator=gen)
    indexes = torch.randint(0, n, lead, generator=gen)
    out = select_at_indexes(indexes, tensor)
    assert out.shape == lead + rest
    for pos in itertools.product(*(range(d) for d in lead)):
        assert torch.equal(out[pos], tensor[pos + (int(indexes[pos]),)])


def test_select_at_indexes_passes_gradient_to_selected_entries_only():
    tensor = torch.zeros(3, 4, requires_grad=True)
    indexes = torch.tensor([1, 3, 0])
    select_at_indexes(indexes, tensor).sum().backward()
    expected = torch.zeros(3, 4)
    expected[[0, 1, 2], [1, 3, 0]] = 1
    assert torch.equal(tensor.grad, expected)


def test_select_at_indexes_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="leading dims"):
        select_at_indexes(torch.zeros(3, dtype=torch.long), torch.zeros(4, 5))


@pytest.mark.parametrize("lead", LEADS)
def test_to_onehot_matches_loop(lead):
    gen = torch.Generator().manual_seed(1)
    num = 5
    indexes = torch.randint(0, num, lead, generator=gen)
    onehot = to_onehot(indexes, num, dtype=torch.float32)
    assert onehot.shape == lead + (num,) and onehot.dtype == torch.float32
    for pos in itertools.product(*(range(d) for d in lead)):
        for k in range(num):
            assert onehot[pos + (k,)] == (1.0 if k == int(indexes[pos]) else 0.0)


def test_to_onehot_default_dtype_is_that_of_indexes():
    assert to_onehot(torch.tensor([0, 2], dtype=torch.int32), 3).dtype == torch.int32


@pytest.mark.parametrize("lead", LEADS)
def test_from_onehot_is_argmax_and_inverts_to_onehot(lead):
    gen = torch.Generator().manual_seed(2)
    scores = torch.randn(lead + (7,), generator=gen)
    out = from_onehot(scores)
    for pos in itertools.product(*(range(d) for d in lead)):
        row = scores[pos].tolist()
        assert int(out[pos]) == row.index(max(row))
    indexes = torch.randint(0, 7, lead, generator=gen)
    assert torch.equal(from_onehot(to_onehot(indexes, 7)), indexes)
    assert from_onehot(to_onehot(indexes, 7), dtype=torch.int16).dtype == torch.int16


def test_from_onehot_along_another_dim():
    onehot = to_onehot(torch.tensor([[2, 0], [1, 1]]), 3)  # [2, 2, 3]
    assert torch.equal(from_onehot(onehot.permute(2, 0, 1), dim=0), torch.tensor([[2, 0], [1, 1]]))


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_valid_mean_matches_loop(dim):
    gen = torch.Generator().manual_seed(3)
    values = torch.randn(6, 4, generator=gen, dtype=torch.float64)
    valid = torch.rand(6, 4, generator=gen) > 0.3
    valid[0] = True  # every column has a valid entry
    valid[:, 0] = True  # every row too
    out = valid_mean(values, valid, dim=dim)
    expected = loop_valid_mean(values.tolist(), valid.int().tolist(), dim)
    assert np.allclose(np.asarray(out), np.asarray(expected))


def test_valid_mean_without_mask_is_mean_and_all_invalid_is_nan():
    values = torch.arange(6.0).reshape(2, 3)
    assert valid_mean(values) == 2.5
    assert torch.equal(valid_mean(values, dim=1), torch.tensor([1.0, 4.0]))
    assert torch.isnan(valid_mean(values, torch.zeros(2, 3)))


@pytest.mark.parametrize("lead", LEADS)
def test_infer_then_restore_leading_dims_round_trip(lead):
    data_shape = (3, 2)
    x = torch.randn(lead + data_shape)
    lead_dim, T, B, shape = infer_leading_dims(x, len(data_shape))
    assert lead_dim == len(lead)
    assert (T, B) == {0: (1, 1), 1: (1, lead[0] if lead else 1), 2: lead}[len(lead)]
    assert tuple(shape) == data_shape
    flat = x.reshape(T * B, *shape)  # what a model does before its layers
    out_a, out_none, out_b = restore_leading_dims((flat, None, flat.sum(-1)), lead_dim, T, B)
    assert torch.equal(out_a, x)
    assert out_none is None
    assert torch.equal(out_b, x.sum(-1))
    single = restore_leading_dims(flat, lead_dim, T, B)
    assert torch.equal(single, x)
    as_list = restore_leading_dims([flat], lead_dim, T, B)
    assert isinstance(as_list, list) and torch.equal(as_list[0], x)


def test_infer_leading_dims_rejects_too_many_or_too_few_dims():
    with pytest.raises(ValueError, match=r"\[T, B\]"):
        infer_leading_dims(torch.zeros(2, 3, 4, 5), 1)
    with pytest.raises(ValueError):
        infer_leading_dims(torch.zeros(4), 2)


def test_restore_leading_dims_rejects_batch_without_lead_dim():
    with pytest.raises(ValueError, match="B=3"):
        restore_leading_dims(torch.zeros(3, 2), 0, B=3)
