"""save__init__args: which names are saved and who wins when several classes save."""

import pytest

from rlpyt.utils.quick_args import save__init__args


class Base:
    def __init__(self, lr=1.0, discount=0.99, overwrite=False):
        save__init__args(locals(), overwrite=overwrite)


class SavesFirst(Base):
    def __init__(self, lr=2.0, batch_size=32, **kwargs):
        save__init__args(locals())
        super().__init__(lr=5.0, **kwargs)  # the base sees a different lr


class SavesLast(Base):
    def __init__(self, lr=2.0, batch_size=32, **kwargs):
        super().__init__(lr=5.0, **kwargs)
        save__init__args(locals())


def test_all_arguments_become_attributes():
    base = Base(lr=0.5)
    assert (base.lr, base.discount, base.overwrite) == (0.5, 0.99, False)


def test_subclass_saving_first_keeps_precedence():
    obj = SavesFirst(lr=3.0, discount=0.9)
    assert obj.lr == 3.0 and obj.batch_size == 32 and obj.discount == 0.9


def test_overwrite_lets_the_later_save_win():
    obj = SavesFirst(lr=3.0, overwrite=True)
    assert obj.lr == 5.0  # the base saved last, with overwrite


def test_subclass_saving_last_does_not_overwrite_base_values():
    obj = SavesLast(lr=3.0)
    assert obj.lr == 5.0 and obj.batch_size == 32


def test_underscore_prefix_and_keyword_only_names():
    class Private:
        def __init__(self, a, *args, b=2, **kwargs):
            save__init__args(locals(), underscore=True)

    obj = Private(1, 9, extra=4)
    assert (obj._a, obj._b) == (1, 2)
    assert not hasattr(obj, "a") and not hasattr(obj, "_args") and not hasattr(obj, "_kwargs")


def test_subclass_only_skips_base_class_names():
    class Child(Base):
        def __init__(self, width=3):
            save__init__args(dict(locals(), lr=7.0), subclass_only=True)

    obj = Child()
    assert obj.width == 3 and not hasattr(obj, "lr")


def test_locals_without_self_is_an_error():
    with pytest.raises(ValueError, match="self"):
        save__init__args({"a": 1})
