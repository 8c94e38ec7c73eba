"""``save__init__args``: turn constructor arguments into attributes in one call.

Kept for user code written against rlpyt. The library itself stores each hyperparameter
explicitly (``self.discount = discount``), so misspelt keys fail at construction.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def save__init__args(
    values: dict[str, Any],
    underscore: bool = False,
    overwrite: bool = False,
    subclass_only: bool = False,
) -> None:
    """Set ``self.<name>`` for every ``__init__`` argument found in ``values``.

    Call it inside ``__init__`` as ``save__init__args(locals())``. Argument names come from
    the ``__init__`` of every class in ``type(self).__mro__`` that defines one (positional and
    keyword-only names; not ``*args``/``**kwargs``). An attribute that already exists is left
    alone unless ``overwrite=True``, so a subclass that saves before calling
    ``super().__init__`` keeps its values when the base class saves too.

    Args:
        values: The caller's ``locals()``; must contain ``self``.
        underscore: Store as ``self._<name>`` instead.
        overwrite: Replace attributes that already exist.
        subclass_only: Use only the argument names of ``type(self)`` (the class actually
            instantiated), not of its bases.
    """
    if "self" not in values:
        raise ValueError("save__init__args expects the caller's locals(), which must hold 'self'.")
    instance = values["self"]
    prefix = "_" if underscore else ""
    classes = type(instance).__mro__[:1] if subclass_only else type(instance).__mro__
    for cls in classes:
        if "__init__" not in vars(cls):
            continue
        for name in _init_arg_names(vars(cls)["__init__"]):
            attr = prefix + name
            if name in values and (overwrite or not hasattr(instance, attr)):
                setattr(instance, attr, values[name])


def _init_arg_names(init: Callable[..., object]) -> list[str]:
    """Positional-or-keyword and keyword-only parameter names of ``init``, without ``self``."""
    try:
        spec = inspect.getfullargspec(init)
    except TypeError:  # builtins without a signature (object, dict, ...) add no names
        return []
    return spec.args[1:] + spec.kwonlyargs
