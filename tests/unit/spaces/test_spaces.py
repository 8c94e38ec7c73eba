"""IntBox, FloatBox and Composite: bounds, null values, membership and seeded sampling."""

import numpy as np
import pytest

from rlpyt.spaces.composite import Composite
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.int_box import IntBox
from rlpyt.utils.collections import NamedArrayTupleSchema, namedarraytuple

Pair = namedarraytuple("Pair", ["a", "b"])


def samples(space, n=500):
    return np.stack([space.sample() for _ in range(n)])


def test_intbox_scalar_range_dtype_and_null():
    space = IntBox(2, 7)
    draws = samples(space)
    assert draws.dtype == np.int32 and draws.shape == (500,)
    assert set(np.unique(draws)) == {2, 3, 4, 5, 6}  # high is exclusive, every value reachable
    assert space.n == 5
    assert space.null_value() == 2 and space.null_value().dtype == np.int32
    assert IntBox(0, 4, null_value=3).null_value() == 3


def test_intbox_uint8_image_space_reaches_255():
    space = IntBox(0, 256, shape=(3, 4), dtype="uint8")
    space.seed(0)
    draws = samples(space, 300)
    assert draws.dtype == np.uint8 and draws.shape == (300, 3, 4)
    assert draws.max() == 255 and draws.min() == 0
    assert space.null_value().shape == (3, 4)


def test_intbox_array_bounds_for_unequal_multidiscrete():
    space = IntBox(np.array([0, 10]), np.array([2, 15]), dtype="int64")
    assert space.shape == (2,)
    np.testing.assert_array_equal(space.n, [2, 5])
    draws = samples(space)
    assert set(np.unique(draws[:, 0])) == {0, 1}
    assert set(np.unique(draws[:, 1])) == set(range(10, 15))
    np.testing.assert_array_equal(space.null_value(), [0, 10])


def test_intbox_contains():
    space = IntBox(0, 3, shape=(2,))
    assert space.contains(np.array([0, 2]))
    assert not space.contains(np.array([0, 3]))  # high exclusive
    assert not space.contains(np.array([-1, 0]))
    assert not space.contains(np.array([0.0, 1.0]))  # floats are not integers
    assert not space.contains(np.array([0, 1, 2]))  # wrong shape
    assert 1 in IntBox(0, 3)


def test_intbox_rejects_bad_arguments():
    with pytest.raises(ValueError, match="high > low"):
        IntBox(3, 3)
    with pytest.raises(TypeError, match="integer dtype"):
        IntBox(0, 3, dtype="float32")
    with pytest.raises(ValueError, match="null_value"):
        IntBox(0, 3, null_value=5)


@pytest.mark.parametrize(
    "space",
    [IntBox(0, 100, shape=(5,)), FloatBox(-1, 1, shape=(5,)), FloatBox(-np.inf, np.inf, (5,))],
)
def test_equal_seeds_equal_streams_different_seeds_differ(space):
    space.seed(7)
    first = samples(space, 20)
    space.seed(7)
    again = samples(space, 20)
    space.seed(8)
    other = samples(space, 20)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_floatbox_bounded_uniform_and_null():
    space = FloatBox(np.array([-1.0, 0.0]), np.array([1.0, 10.0]))
    draws = samples(space, 2000)
    assert draws.dtype == np.float32 and draws.shape == (2000, 2)
    assert draws[:, 0].min() >= -1 and draws[:, 0].max() <= 1
    assert draws[:, 1].min() >= 0 and draws[:, 1].max() <= 10
    assert abs(draws[:, 1].mean() - 5) < 0.5  # uniform, not piled at a bound
    np.testing.assert_array_equal(space.null_value(), [0.0, 0.0])
    assert FloatBox(-1, 1, shape=3, null_value=0.5).null_value().tolist() == [0.5] * 3


def test_floatbox_unbounded_and_half_bounded_samples_are_finite_and_respect_bounds():
    space = FloatBox(np.array([-np.inf, 0.0, -np.inf]), np.array([np.inf, np.inf, 3.0]))
    draws = samples(space, 1000)
    assert np.all(np.isfinite(draws))
    assert draws[:, 1].min() >= 0 and draws[:, 2].max() <= 3
    assert draws[:, 0].min() < 0 < draws[:, 0].max()


def test_floatbox_dtype_and_contains():
    space = FloatBox(-1, 1, shape=(2,), dtype="float64")
    assert space.sample().dtype == np.float64
    assert space.contains(np.array([0.5, -1.0]))
    assert not space.contains(np.array([1.5, 0.0]))
    assert not space.contains(np.zeros(3))
    with pytest.raises(TypeError, match="float dtype"):
        FloatBox(0, 1, dtype="int32")


@pytest.mark.parametrize("record_type", [Pair, NamedArrayTupleSchema("Pair", ["a", "b"])])
def test_composite_records_of_sub_values(record_type):
    space = Composite([IntBox(0, 4), FloatBox(-1, 1, shape=(3,))], record_type)
    sample = space.sample()
    assert sample._fields == ("a", "b")
    assert 0 <= sample.a < 4 and sample.b.shape == (3,)
    null = space.null_value()
    assert null.a == 0 and null.b.tolist() == [0.0, 0.0, 0.0]
    assert space.shape == record_type((), (3,))
    assert space.dtype.b == np.float32
    assert space.contains(sample)
    assert not space.contains(record_type(np.int32(9), sample.b))
    assert not space.contains((1, sample.b))  # not a record


def test_composite_seeding_reproducible_and_parts_independent():
    space = Composite([IntBox(0, 1000), IntBox(0, 1000)], Pair)
    space.seed(3)
    first = [space.sample() for _ in range(10)]
    space.seed(3)
    again = [space.sample() for _ in range(10)]
    assert [tuple(map(int, s)) for s in first] == [tuple(map(int, s)) for s in again]
    # Parts get different derived seeds, so they are not copies of each other.
    assert [int(s.a) for s in first] != [int(s.b) for s in first]


def test_composite_field_count_mismatch_fails():
    with pytest.raises(ValueError, match="2 record fields"):
        Composite([IntBox(0, 2)], Pair)
