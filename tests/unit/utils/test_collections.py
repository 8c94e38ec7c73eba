"""namedarraytuple and schema records: indexing semantics, errors, pickling, spawn."""

import multiprocessing as mp
import pickle
import pickletools
import sys
from collections import namedtuple

import numpy as np
import pytest

import rlpyt.utils.collections as collections_module
from rlpyt.envs.traj_info import TrajInfo
from rlpyt.utils.collections import (
    AttrDict,
    NamedArrayTupleSchema,
    NamedArrayTupleSchema_like,
    NamedTupleSchema,
    is_namedarraytuple,
    is_namedarraytuple_class,
    is_namedtuple,
    is_namedtuple_class,
    namedarraytuple,
    namedarraytuple_like,
)

from . import records
from .records import Outer, PlainInfo, Point


def make_outer(T=4, B=3):
    point = Point(x=np.zeros((T, B, 2)), y=np.zeros((T, B), dtype=np.int64))
    return Outer(point=point, z=np.zeros((T, B)), extra=None)


def test_indexing_applies_to_every_field_and_skips_none():
    outer = make_outer()
    outer.point.x[2, 1] = [5.0, 6.0]
    outer.z[2, 1] = 7.0
    item = outer[2, 1]
    assert isinstance(item, Outer) and isinstance(item.point, Point)
    assert item.point.x.tolist() == [5.0, 6.0] and item.z == 7.0 and item.extra is None
    window = outer[1:3]
    assert window.point.x.shape == (2, 3, 2) and window.z.shape == (2, 3)
    assert np.shares_memory(window.z, outer.z)  # slices are views


def test_assigning_one_value_broadcasts_into_all_fields():
    outer = make_outer()
    outer[1] = 3
    assert (outer.point.x[1] == 3).all() and (outer.point.y[1] == 3).all()
    assert (outer.z[1] == 3).all() and outer.extra is None
    assert (outer.z[0] == 0).all() and (outer.z[2:] == 0).all()


def test_assigning_a_record_writes_field_by_field_recursively():
    outer = make_outer()
    step = Outer(point=Point(x=np.array([1.0, 2.0]), y=9), z=4.0, extra=None)
    outer[3, 2] = step
    assert outer.point.x[3, 2].tolist() == [1.0, 2.0] and outer.point.y[3, 2] == 9
    assert outer.z[3, 2] == 4.0
    # A None field in the value leaves the destination untouched.
    outer[0, 0] = Outer(point=Point(x=None, y=5), z=None, extra=None)
    assert outer.point.y[0, 0] == 5 and outer.point.x[0, 0].tolist() == [0.0, 0.0]


def test_whole_record_assignment_with_slice():
    outer = make_outer(T=2, B=2)
    source = make_outer(T=2, B=2)
    source.point.x[...] = np.arange(8).reshape(2, 2, 2)
    source.z[...] = 1.5
    outer[:] = source
    assert np.array_equal(outer.point.x, source.point.x) and (outer.z == 1.5).all()
    assert not np.shares_memory(outer.z, source.z)


def test_errors_name_the_offending_field():
    outer = make_outer()
    with pytest.raises(ValueError, match="field 'x'"):
        outer[0, 0] = Outer(point=Point(x=np.zeros(5), y=1), z=0.0, extra=None)
    bad = Point(x=np.zeros(3), y=np.zeros(1))
    with pytest.raises(IndexError, match="at field 'y'"):
        bad[2]


def test_assigning_a_record_with_other_fields_is_rejected():
    outer = make_outer()
    with pytest.raises(ValueError, match="field names differ"):
        outer.point[0] = PlainInfo(score=1, flag=2)


def test_get_items_and_contains():
    p = Point(x=np.arange(3), y=None)
    assert p.get(1) is None and p.get(0) is p.x  # plain tuple indexing
    assert list(p.items()) == [("x", p.x), ("y", None)]
    assert "x" in p and "z" not in p


@pytest.mark.parametrize("name", ["get", "items"])
def test_reserved_field_names_are_rejected(name):
    with pytest.raises(ValueError, match="reserved"):
        namedarraytuple("Bad", ["a", name])


def test_invalid_and_duplicate_field_names_are_rejected():
    with pytest.raises(ValueError):
        namedarraytuple("Bad", ["a", "a"])
    with pytest.raises(ValueError):
        namedarraytuple("Bad", ["_private"])


def test_class_module_is_the_callers_and_pickle_round_trips():
    assert Point.__module__ == records.__name__
    p = Point(x=np.arange(4.0), y=None)
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is Point and np.array_equal(q.x, p.x) and q.y is None


def test_unpickles_in_a_spawned_child():
    ctx = mp.get_context("spawn")
    outer = make_outer(T=2, B=1)
    outer.z[1, 0] = 8.0
    parent_conn, child_conn = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=records.describe_record, args=(outer, child_conn))
    proc.start()
    child_conn.close()
    assert parent_conn.poll(60), "child sent nothing"
    name, module, fields, values = parent_conn.recv()
    proc.join(30)
    assert proc.exitcode == 0
    assert (name, module, fields) == ("Outer", records.__name__, ("point", "z", "extra"))
    assert values == [("Point", ("x", "y")), [[0.0], [8.0]], None]


def test_predicates_and_like():
    assert is_namedtuple_class(PlainInfo) and not is_namedarraytuple_class(PlainInfo)
    assert is_namedarraytuple_class(Point) and is_namedarraytuple(Point(1, 2))
    assert is_namedtuple(PlainInfo(1, 2)) and not is_namedarraytuple(PlainInfo(1, 2))
    assert not is_namedtuple((1, 2))
    assert namedarraytuple_like(Point) is Point and namedarraytuple_like(Point(1, 2)) is Point
    like = namedarraytuple_like(PlainInfo)
    assert like is namedarraytuple_like(PlainInfo(1, 2))  # one class per namedtuple class
    assert like._fields == PlainInfo._fields and is_namedarraytuple_class(like)


def test_like_class_of_a_plain_namedtuple_pickles_and_crosses_spawn():
    like = namedarraytuple_like(PlainInfo)
    record = like(score=np.arange(3.0), flag=np.array([True, False, True]))
    again = pickle.loads(pickle.dumps(record))
    assert type(again) is like and np.array_equal(again.score, record.score)
    ctx = mp.get_context("spawn")
    parent_conn, child_conn = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=records.describe_record, args=(record, child_conn))
    proc.start()
    child_conn.close()
    assert parent_conn.poll(60), "child sent nothing"
    name, _, fields, values = parent_conn.recv()
    proc.join(30)
    assert (name, fields, values) == ("PlainInfo", ("score", "flag"), [[0, 1, 2], [1, 0, 1]])


def test_attrdict_attributes_and_copy():
    d = AttrDict(a=1, inner=AttrDict(b=[1]))
    d.c = 3
    assert d["c"] == 3 and d.a == 1
    copy = d.copy()
    copy.inner.b2 = 5
    assert "b2" not in d.inner  # nested AttrDicts are copied
    assert copy.inner.b is d.inner.b  # other values are shared
    with pytest.raises(AttributeError):
        _ = d.missing
    assert pickle.loads(pickle.dumps(d)) == d


class ScoredTrajInfo(TrajInfo):
    """A user's TrajInfo subclass with a field of its own (module level: it must pickle)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.Score = 0.0


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_attrdicts_pickle_their_items_once_and_come_back_equal(protocol):
    traj_info = ScoredTrajInfo(discount=0.5)
    traj_info.Return, traj_info.Score, traj_info.Length = 1.2345, -7.5, 3
    data = pickle.dumps([traj_info, AttrDict(a=AttrDict(b=2))], protocol=protocol)
    back, nested = pickle.loads(data)
    assert type(back) is ScoredTrajInfo and back == traj_info and back.Score == -7.5
    assert type(nested.a) is AttrDict and nested.a.b == 2
    if protocol >= 2:  # binary floats: the default dict-subclass reduction wrote each item twice
        floats = [arg for op, arg, _ in pickletools.genops(data) if op.name == "BINFLOAT"]
        assert floats.count(1.2345) == 1


def test_attrdict_pickles_of_earlier_versions_still_load():
    # A TrajInfo pickled (protocol 4) by the reduction before __reduce__: items, then the same
    # items again as a state dict for __setstate__.
    old = (
        b"\x80\x04\x95\xdd\x00\x00\x00\x00\x00\x00\x00\x8c\x14rlpyt.envs.traj_info\x94\x8c\x08"
        b"TrajInfo\x94\x93\x94)\x81\x94(\x8c\t_discount\x94G?\xe0\x00\x00\x00\x00\x00\x00\x8c\x06"
        b"Length\x94K\x03\x8c\x06Return\x94G?\xf4\x00\x00\x00\x00\x00\x00\x8c\x0eNonzeroRewards\x94"
        b"K\x00\x8c\x10DiscountedReturn\x94G\x00\x00\x00\x00\x00\x00\x00\x00\x8c\r_cur_discount\x94G"
        b"?\xf0\x00\x00\x00\x00\x00\x00u}\x94(h\x04G?\xe0\x00\x00\x00\x00\x00\x00h\x05K\x03h\x06G"
        b"?\xf4\x00\x00\x00\x00\x00\x00h\x07K\x00h\x08G\x00\x00\x00\x00\x00\x00\x00\x00h\tG?\xf0"
        b"\x00\x00\x00\x00\x00\x00ub."
    )
    traj_info = pickle.loads(old)
    expected = TrajInfo(discount=0.5)
    expected.Length, expected.Return = 3, 1.25
    assert type(traj_info) is TrajInfo and traj_info == expected
    traj_info["Return"] = 9.0  # no stale copy of the state as instance attributes
    assert traj_info.Return == 9.0


# ---------------------------------------------------------------------------------------------
# Schema records


def test_schema_records_behave_like_namedarraytuples():
    Schema = NamedArrayTupleSchema("Obs", ["pixels", "position"])
    obs = Schema(pixels=np.zeros((3, 2)), position=np.zeros(3))
    obs[1] = 4.0
    assert obs.pixels[1].tolist() == [4.0, 4.0] and obs.position[1] == 4.0
    sub = obs[1:]
    assert sub._fields == ("pixels", "position") and sub.pixels.shape == (2, 2)
    assert "pixels" in obs and list(dict(obs.items())) == ["pixels", "position"]
    assert is_namedtuple(obs) and is_namedarraytuple(obs)
    with pytest.raises(IndexError, match="Obs at field 'position'"):
        obs[:, 0]


def test_schema_records_pickle_and_need_no_module_globals():
    globals_before = dict(vars(collections_module))
    modules_before = set(sys.modules)
    Schema = NamedArrayTupleSchema("Info", ["a", "b"])
    record = Schema(a=np.arange(2), b=None)
    again = pickle.loads(pickle.dumps(record))
    assert again._typename == "Info" and again._fields == ("a", "b") and again.b is None
    assert np.array_equal(again.a, record.a) and again.schema == Schema
    assert dict(vars(collections_module)) == globals_before
    assert set(sys.modules) == modules_before


def test_two_schemas_with_one_typename_coexist():
    first = NamedTupleSchema("EnvInfo", ["lives"])
    second = NamedTupleSchema("EnvInfo", ["score", "timeout"])
    a, b = first(lives=3), second(score=1.0, timeout=False)
    assert a._fields == ("lives",) and b._fields == ("score", "timeout")
    assert a.lives == 3 and b.timeout is False
    assert first != second
    with pytest.raises(TypeError, match="no field"):
        first(score=1)
    with pytest.raises(TypeError, match="missing"):
        second(score=1.0)


def test_schema_like_and_plain_schema_records_are_immutable():
    schema = NamedArrayTupleSchema_like(PlainInfo)
    assert isinstance(schema, NamedArrayTupleSchema) and schema._fields == PlainInfo._fields
    record = NamedTupleSchema("R", ["a"])(a=1)
    with pytest.raises(AttributeError):
        record.a = 2
    assert record._replace(a=5).a == 5 and record._asdict() == {"a": 1}


def test_plain_namedtuple_field_still_works_for_like():
    Info = namedtuple("Info", ["a"])
    nat = namedarraytuple_like(Info)
    assert nat(a=np.arange(3))[1].a == 1
