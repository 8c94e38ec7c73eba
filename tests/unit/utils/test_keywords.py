"""extends_keywords: one keyword list per class, full signatures."""

import inspect

import pytest

from rlpyt.utils.keywords import extends_keywords


class Base:
    def __init__(self, a=1, b=2, c=3):
        self.received = dict(a=a, b=b, c=c)


@extends_keywords()
class Child(Base):
    def __init__(self, x=10, **kwargs):
        self.x = x
        super().__init__(**kwargs)


@extends_keywords(defaults={"b": 20}, drop=("c",), order=["a", "x", "b"])
class Reordered(Base):
    def __init__(self, x=10, **kwargs):
        self.x = x
        super().__init__(**kwargs)


class PassOnMixin:
    def __init__(self, **kwargs):
        self.mixed = True
        super().__init__(**kwargs)


@extends_keywords(parent=Base)
class NoInit(PassOnMixin, Base):
    pass


def _listing(cls):
    return [(p.name, p.default) for p in inspect.signature(cls).parameters.values()]


def test_signature_is_own_keywords_then_the_parents():
    assert _listing(Child) == [("x", 10), ("a", 1), ("b", 2), ("c", 3)]
    child = Child(11, 12, c=13)  # positional in the listed order
    assert (child.x, child.received) == (11, {"a": 12, "b": 2, "c": 13})


def test_defaults_drop_and_order():
    assert _listing(Reordered) == [("a", 1), ("x", 10), ("b", 20)]
    obj = Reordered(4, 5)
    assert (obj.x, obj.received) == (5, {"a": 4, "b": 20, "c": 3})  # c: the parent's default
    with pytest.raises(TypeError, match="'c'"):
        Reordered(c=1)


def test_class_without_init_passes_every_keyword_on():
    assert _listing(NoInit) == [("a", 1), ("b", 2), ("c", 3)]
    obj = NoInit(b=9)
    assert obj.mixed and obj.received == {"a": 1, "b": 9, "c": 3}


def test_misspelt_keyword_names_class_keyword_and_nearest():
    with pytest.raises(TypeError, match=r"Child\(\) .*'bb' \(did you mean 'b'\?\)"):
        Child(bb=1)
    with pytest.raises(TypeError, match="Child"):
        Child(1, 2, 3, 4, 5)  # too many positional arguments

    class Grandchild(Child):
        pass

    with pytest.raises(TypeError, match=r"^Grandchild\(\) .*'bb'"):
        Grandchild(bb=1)


def test_declaration_errors():
    with pytest.raises(TypeError, match="not keywords of its parent"):
        extends_keywords(defaults={"zz": 1})(type("Bad", (Base,), {"__init__": Child.__init__}))
    with pytest.raises(TypeError, match=r"order misses \['c'\]"):

        @extends_keywords(order=["x", "a", "b"])
        class Short(Base):
            def __init__(self, x=0, **kwargs):
                super().__init__(**kwargs)
