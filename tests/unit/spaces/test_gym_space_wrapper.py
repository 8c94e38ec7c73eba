"""GymSpaceWrapper over every supported gymnasium space, incl. nested Dict and Tuple."""

import pickle

import gymnasium.spaces as gs
import numpy as np
import pytest

import rlpyt.spaces.gym_wrapper as gym_wrapper_module
from rlpyt.spaces.composite import Composite
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.gym_wrapper import GymSpaceWrapper
from rlpyt.spaces.int_box import IntBox
from rlpyt.utils.buffer import buffer_from_example


def nested_dict_space():
    return gs.Dict(
        {
            "pos": gs.Box(-1.0, 1.0, (2,), np.float64),
            "sensor.id": gs.Discrete(4),
            "grid": gs.Dict({"cell": gs.MultiDiscrete([3, 5]), "mask": gs.MultiBinary(3)}),
        }
    )


def test_box_float64_forced_to_float32_unless_asked():
    box = gs.Box(-2.0, 2.0, (3,), np.float64)
    wrapped = GymSpaceWrapper(box)
    assert isinstance(wrapped.rlpyt_space, FloatBox)
    assert wrapped.dtype == np.float32 and wrapped.sample().dtype == np.float32
    assert wrapped.convert(np.ones(3)).dtype == np.float32
    assert wrapped.shape == (3,) and wrapped.low.tolist() == [-2.0] * 3
    assert GymSpaceWrapper(box, force_float32=False).sample().dtype == np.float64


def test_discrete_with_start_becomes_intbox_and_null_falls_back_to_low():
    wrapped = GymSpaceWrapper(gs.Discrete(3, start=2))
    assert isinstance(wrapped.rlpyt_space, IntBox)
    assert (wrapped.low, wrapped.high, wrapped.n) == (2, 5, 3)
    assert wrapped.null_value() == 2  # null 0 would lie outside [2, 5)
    assert {int(wrapped.sample()) for _ in range(200)} == {2, 3, 4}
    assert GymSpaceWrapper(gs.Discrete(4), null_value=3).null_value() == 3


def test_multidiscrete_multibinary_and_integer_box():
    md = GymSpaceWrapper(gs.MultiDiscrete([3, 5], start=[1, 0]))
    md.seed(0)
    np.testing.assert_array_equal(md.low, [1, 0])
    np.testing.assert_array_equal(md.high, [4, 5])
    np.testing.assert_array_equal(md.n, [3, 5])
    draws = np.stack([md.sample() for _ in range(300)])
    assert draws[:, 0].min() == 1 and draws[:, 0].max() == 3 and draws[:, 1].max() == 4
    mb = GymSpaceWrapper(gs.MultiBinary(4))
    assert mb.dtype == np.int8 and mb.shape == (4,) and set(np.unique(mb.sample())) <= {0, 1}
    image = GymSpaceWrapper(gs.Box(0, 255, (2, 2), np.uint8))
    image.seed(0)  # 8,000 draws miss 255 with probability 3e-14; seeded, the result is fixed
    assert image.high.max() == 256 and image.dtype == np.uint8  # gymnasium's high is inclusive
    assert max(image.sample().max() for _ in range(2000)) == 255


def test_nested_dict_convert_revert_round_trip():
    wrapped = GymSpaceWrapper(nested_dict_space())
    assert isinstance(wrapped.rlpyt_space, Composite)
    raw = wrapped.space.sample()
    record = wrapped.convert(raw)
    assert record._fields == ("grid", "pos", "sensor_id")  # gymnasium sorts keys; dots -> _
    assert record.grid._fields == ("cell", "mask")
    assert record.pos.dtype == np.float32
    back = wrapped.revert(record)
    assert set(back) == {"pos", "sensor.id", "grid"} and set(back["grid"]) == {"cell", "mask"}
    np.testing.assert_allclose(back["pos"], raw["pos"], rtol=1e-6)
    assert back["sensor.id"] == raw["sensor.id"]
    np.testing.assert_array_equal(back["grid"]["cell"], raw["grid"]["cell"])
    assert wrapped.contains(raw) and wrapped.contains(record)
    assert not wrapped.contains({"pos": np.zeros(2)})


def test_dict_sample_null_shape_dtype_are_records():
    wrapped = GymSpaceWrapper(nested_dict_space(), null_value=0)
    sample, null = wrapped.sample(), wrapped.null_value()
    assert sample._fields == null._fields == ("grid", "pos", "sensor_id")
    assert wrapped.contains(sample)
    assert null.pos.tolist() == [0.0, 0.0] and null.grid.cell.tolist() == [0, 0]
    assert wrapped.shape.grid.cell == (2,) and wrapped.dtype.pos == np.float32
    with pytest.raises(AttributeError, match="IntBox/FloatBox parts"):
        _ = wrapped.n


def test_tuple_space_fields_and_revert():
    wrapped = GymSpaceWrapper(gs.Tuple((gs.Discrete(2), gs.Box(0, 1, (2,)))), name="act")
    record = wrapped.convert((1, np.array([0.5, 0.25], np.float32)))
    assert record._fields == ("f0", "f1") and int(record.f0) == 1
    back = wrapped.revert(record)
    assert isinstance(back, tuple) and int(back[0]) == 1 and back[1].tolist() == [0.5, 0.25]


def test_dict_seeding_reproducible():
    wrapped = GymSpaceWrapper(nested_dict_space())
    wrapped.seed(11)
    first = [wrapped.sample() for _ in range(5)]
    wrapped.seed(11)
    again = [wrapped.sample() for _ in range(5)]
    for x, y in zip(first, again, strict=True):
        np.testing.assert_array_equal(x.pos, y.pos)
        np.testing.assert_array_equal(x.grid.cell, y.grid.cell)
    wrapped.seed(12)
    other = wrapped.sample()
    assert not np.array_equal(other.pos, first[0].pos)


def test_two_different_dict_spaces_with_one_name_do_not_clash():
    globals_before = set(vars(gym_wrapper_module))
    a = GymSpaceWrapper(gs.Dict({"x": gs.Discrete(2)}), name="obs")
    b = GymSpaceWrapper(gs.Dict({"y": gs.Box(0, 1, (2,)), "z": gs.Discrete(3)}), name="obs")
    assert a.sample()._fields == ("x",)
    assert b.sample()._fields == ("y", "z")
    assert set(vars(gym_wrapper_module)) == globals_before  # nothing registered


def test_records_pickle_and_build_buffers():
    wrapped = GymSpaceWrapper(nested_dict_space())
    record = wrapped.sample()
    clone = pickle.loads(pickle.dumps(record))
    assert clone._fields == record._fields and clone.grid._fields == record.grid._fields
    np.testing.assert_array_equal(clone.pos, record.pos)
    buffer = buffer_from_example(record, (3, 2))
    assert buffer.pos.shape == (3, 2, 2) and buffer.grid.cell.shape == (3, 2, 2)
    buffer[1, 0] = record
    np.testing.assert_array_equal(buffer.grid.mask[1, 0], record.grid.mask)
    assert pickle.loads(pickle.dumps(wrapped)).sample()._fields == record._fields


def test_unsupported_space_names_itself():
    with pytest.raises(TypeError, match="Text"):
        GymSpaceWrapper(gs.Text(5))
