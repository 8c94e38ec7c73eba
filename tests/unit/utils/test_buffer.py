"""buffer_from_example and the structure-walking helpers of rlpyt.utils.buffer."""

import numpy as np
import pytest
import torch

from rlpyt.utils.buffer import (
    buffer_from_example,
    buffer_func,
    buffer_method,
    buffer_to,
    get_leading_dims,
    numpify_buffer,
    torchify_buffer,
)
from rlpyt.utils.collections import NamedArrayTupleSchema, NamedTuple, namedarraytuple_like
from rlpyt.utils.shared_memory import is_shared

from .records import Outer, PlainInfo, Point


def example_step():
    point = Point(x=np.zeros((3, 2), dtype=np.float32), y=np.uint8(4))
    return Outer(point=point, z=np.int32(2), extra=None)


@pytest.mark.parametrize("share_memory", [False, True])
def test_shapes_dtypes_sentinels_none_and_nesting(share_memory):
    buffer = buffer_from_example(example_step(), (5, 2), share_memory=share_memory)
    assert isinstance(buffer, Outer) and isinstance(buffer.point, Point) and buffer.extra is None
    x, y, z = buffer.point.x, buffer.point.y, buffer.z
    assert (x.shape, x.dtype) == ((5, 2, 3, 2), np.float32)
    assert (y.shape, y.dtype) == ((5, 2), np.uint8)
    assert (z.shape, z.dtype) == ((5, 2), np.int32)
    assert np.isnan(x).all() and (y == 255).all() and (z == -1).all()
    assert all(is_shared(a) == share_memory for a in (x, y, z))


def test_int_leading_dims_and_plain_values():
    buffer = buffer_from_example(PlainInfo(score=1.5, flag=True), 4)
    assert buffer.score.shape == (4,) and buffer.score.dtype == np.float64
    assert buffer.flag.dtype == np.bool_ and not buffer.flag.any()
    assert buffer_from_example(None, (2,)) is None
    assert buffer_from_example(np.int64(1), (2, 3)).tolist() == [[-1] * 3] * 2


def test_plain_namedtuple_example_gives_its_namedarraytuple_class():
    buffer = buffer_from_example(PlainInfo(score=1.0, flag=False), (2,))
    assert type(buffer) is namedarraytuple_like(PlainInfo)
    buffer[1] = PlainInfo(score=3.0, flag=True)
    assert buffer.score[1] == 3.0 and buffer.flag[1]


def test_schema_example_gives_schema_records():
    schema = NamedArrayTupleSchema("Obs", ["pos", "vel"])
    buffer = buffer_from_example(schema(pos=np.zeros(2), vel=0.0), (3,))
    assert isinstance(buffer, NamedTuple) and buffer._typename == "Obs"
    assert buffer.pos.shape == (3, 2)
    forced = buffer_from_example(example_step(), (2,), use_NatSchema=True)
    assert isinstance(forced, NamedTuple) and forced._typename == "Outer"


def test_object_and_string_examples_are_rejected_clearly():
    with pytest.raises(TypeError, match="object array"):
        buffer_from_example(PlainInfo(score=np.array([None]), flag=True), (2,))
    with pytest.raises(TypeError, match="string"):
        buffer_from_example(PlainInfo(score="win", flag=True), (2,))


def test_fill_overrides_sentinel():
    buffer = buffer_from_example(example_step(), (2,), fill=0)
    assert not buffer.point.x.any() and not buffer.z.any()


@pytest.mark.parametrize("share_memory", [False, True])
def test_torchify_shares_memory_and_numpify_returns_it(share_memory):
    buffer = buffer_from_example(example_step(), (4,), share_memory=share_memory)
    tensors = torchify_buffer(buffer)
    assert isinstance(tensors.point.x, torch.Tensor) and tensors.extra is None
    tensors.point.x[2] = 7.0
    tensors.z[1] = 3
    assert (buffer.point.x[2] == 7.0).all() and buffer.z[1] == 3
    back = numpify_buffer(tensors)
    assert isinstance(back.point.x, np.ndarray) and np.shares_memory(back.point.x, buffer.point.x)
    assert torchify_buffer(tensors).point.x is tensors.point.x


def test_numpify_detaches_tensors_that_require_grad():
    weight = torch.ones(3, requires_grad=True)
    out = numpify_buffer((weight * 2, torch.arange(3)))
    assert isinstance(out[0], np.ndarray) and out[0].tolist() == [2.0, 2.0, 2.0]
    assert out[1].tolist() == [0, 1, 2]
    assert numpify_buffer((weight,))[0].tolist() == [1.0, 1.0, 1.0]  # a leaf needing grad too


def test_buffer_to_method_and_func_preserve_structure_and_none():
    tensors = torchify_buffer(buffer_from_example(example_step(), (2,), fill=1))
    moved = buffer_to(tensors, "cpu")
    assert isinstance(moved, Outer) and moved.extra is None
    doubled = buffer_method(tensors, "mul", 2)
    assert (doubled.point.x == 2).all() and doubled.extra is None
    summed = buffer_func(tensors, torch.sum)
    assert summed.point.x.item() == 12 and summed.z.item() == 2
    pair = buffer_func((np.ones(2), None), np.sum)
    assert pair == (2.0, None)


def test_get_leading_dims_agrees_or_names_the_mismatch():
    buffer = buffer_from_example(example_step(), (5, 2))
    assert get_leading_dims(buffer, 2) == (5, 2)
    assert get_leading_dims(buffer) == (5,)
    broken = buffer._replace(z=np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"point\.x has \(5,\), z has \(4,\)"):
        get_leading_dims(broken)
    with pytest.raises(ValueError, match="no array"):
        get_leading_dims(Point(x=None, y=None))
