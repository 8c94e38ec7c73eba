"""Keyword lists written once: a subclass that extends its parent's keywords.

rlpyt's classes take long keyword lists (an algorithm has twenty to thirty), and its users and
tests read them back with ``inspect.signature(Cls)``. The family bases declare their lists and
store each keyword explicitly; :func:`extends_keywords` is a class decorator for a subclass whose
``__init__`` names only its own keywords (and ``**kwargs``): its signature becomes its own
keywords plus its parent's (some dropped, some with other defaults, in a given order), positional
calls bind in that order, and the body gets every parent keyword, defaults applied, in
``kwargs``.

Example::

    @extends_keywords()
    class CategoricalDQN(DQN):
        def __init__(self, V_min=-10, V_max=10, **kwargs):
            ...
            super().__init__(**kwargs)

    inspect.signature(CategoricalDQN)  # (V_min=-10, V_max=10, discount=0.99, batch_size=32, ...)
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

__all__ = ["extends_keywords"]

T = TypeVar("T", bound=type)


def extends_keywords(
    *,
    defaults: Mapping[str, Any] | None = None,
    drop: Iterable[str] = (),
    order: Iterable[str] | None = None,
    parent: type | tuple[type, ...] | None = None,
) -> Callable[[T], T]:
    """Class decorator: the subclass's keywords are its own ``__init__``'s plus its parent's.

    The subclass's ``__init__`` takes its own keywords and ``**kwargs`` (a class without an
    ``__init__`` of its own passes every keyword on). The decorated constructor binds a call
    against the whole list (so a misspelt keyword raises ``TypeError`` naming it, and positional
    arguments follow ``order``) and calls that ``__init__`` with every keyword, defaults
    applied: the parent's arrive in ``kwargs``, ready for ``super().__init__(**kwargs)``.

    Args:
        defaults: Parent keywords whose default this class changes.
        drop: Parent keywords this class does not take (it passes them itself, or leaves the
            parent's default).
        order: Every keyword, in the order positional arguments bind (rlpyt's); None: the
            class's own keywords first, then the parent's.
        parent: The class whose keywords are extended, or several (a mixin's and its host's,
            in that order of keywords); None: the next class in the MRO. Name it where a mixin
            that passes ``**kwargs`` on comes first.

    Returns:
        The decorator.

    Raises:
        TypeError: at decoration, a default or drop naming no parent keyword, or an ``order``
            that is not exactly the class's keywords.
    """

    def decorate(cls: T) -> T:
        own_init = cls.__dict__.get("__init__") or _passing_on(cls)
        parents = parent if isinstance(parent, tuple) else (parent or cls.__mro__[1],)
        inits = [p.__init__ for p in parents]  # type: ignore[misc]  # __init__ of a type
        signature = _merged_signature(cls.__name__, own_init, inits, defaults, drop, order)
        own_names = [p.name for p in _named_parameters(own_init)]

        @functools.wraps(own_init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807
            try:
                bound = signature.bind(self, *args, **kwargs)
            except TypeError as error:
                raise _keyword_error(type(self).__name__, signature, kwargs, error) from None
            bound.apply_defaults()
            values = dict(bound.arguments)
            own = {name: values.pop(name) for name in own_names}
            own_init(**own, **values)

        __init__.__signature__ = signature  # type: ignore[attr-defined]
        cls.__init__ = __init__  # type: ignore[misc]  # mypy: assigning a method
        return cls

    return decorate


def _passing_on(cls: type[Any]) -> Callable[..., None]:
    """An ``__init__`` for ``cls`` that passes every keyword to the next class in its MRO."""

    def __init__(self: Any, **kwargs: Any) -> None:  # noqa: N807
        super(cls, self).__init__(**kwargs)

    return __init__


def _merged_signature(
    owner: str,
    own_init: Callable[..., None],
    parent_inits: list[Callable[..., None]],
    defaults: Mapping[str, Any] | None,
    drop: Iterable[str],
    order: Iterable[str] | None,
) -> inspect.Signature:
    """``self``, the subclass's own keywords, then the parents' (see :func:`extends_keywords`)."""
    own = _named_parameters(own_init)
    parent: dict[str, inspect.Parameter] = {}
    for init in parent_inits:
        for p in _named_parameters(init)[1:]:  # without self
            parent.setdefault(p.name, p)
    defaults, drop = dict(defaults or {}), set(drop)
    unknown = sorted((set(defaults) | drop) - set(parent))
    if unknown:
        raise TypeError(f"{owner}: {unknown} are not keywords of its parent class.")
    inherited = [
        p.replace(default=defaults.get(name, p.default))
        for name, p in parent.items()
        if name not in drop and name not in {q.name for q in own}
    ]
    params = {p.name: p for p in own[1:] + inherited}
    if order is not None:
        order = list(order)
        if sorted(order) != sorted(params):
            missing, extra = sorted(set(params) - set(order)), sorted(set(order) - set(params))
            raise TypeError(f"{owner}: order misses {missing} and has extra {extra}.")
        params = {name: params[name] for name in order}
    # Keyword-only keywords (the parent's after its ``*``) stay so, after the others.
    ordered = sorted(params.values(), key=lambda p: p.kind is p.KEYWORD_ONLY)
    return inspect.Signature([own[0], *ordered])


def _named_parameters(function: Callable[..., None]) -> list[inspect.Parameter]:
    """``function``'s parameters but ``*args`` and ``**kwargs``."""
    parameters = inspect.signature(function).parameters.values()
    return [p for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _keyword_error(
    owner: str, signature: inspect.Signature, kwargs: Mapping[str, Any], error: TypeError
) -> TypeError:
    """Python's message for a bad call, naming the class and the nearest keywords."""
    names = list(signature.parameters)[1:]
    unknown = [name for name in kwargs if name not in signature.parameters]
    if not unknown:
        return TypeError(f"{owner}(): {error}")
    hints = [
        f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name)
        for name in unknown
        for close in [difflib.get_close_matches(name, names, n=1)]
    ]
    return TypeError(f"{owner}() got unexpected keyword argument(s) {', '.join(hints)}")
