"""Constructor-time checks of user input: numbers in range, keywords that a callable accepts.

Who calls it: sampler and algorithm constructors (numbers, ``env_kwargs``) and agents'
``initialize`` (action spaces, ``space_description``). Invariant: a check either returns the
value (numbers converted to ``int`` where an integer is asked for) or raises an error whose
message names the owner, the keyword, the value given and what is valid, so that a mistake
fails where it was made, not later in a worker or inside numpy.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def _range_text(
    low: float | None, high: float | None, low_open: bool, high_open: bool, integer: bool
) -> str:
    kind = "an integer" if integer else "a number"
    if low is not None and high is not None:
        left, right = "(" if low_open else "[", ")" if high_open else "]"
        return f"{kind} in {left}{low:g}, {high:g}{right}"
    if low is not None:
        return f"{kind} {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{kind} {'<' if high_open else '<='} {high:g}"
    return f"a finite {kind[2:] if integer else 'number'}"


def check_number(
    owner: str,
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    integer: bool = False,
    allow_inf: bool = False,
) -> Any:
    """``value`` if it is a number in the given range (an ``int`` if ``integer``), else raise.

    Args:
        owner: Who takes the keyword, for the message (e.g. ``"PPO"``).
        name: The keyword.
        value: What the user passed. Integral floats (``1e5``) count as integers.
        low: Lower bound (None: unbounded below).
        high: Upper bound (None: unbounded above).
        low_open: Exclude ``low`` itself.
        high_open: Exclude ``high`` itself.
        integer: The value must be a whole number; it is returned as ``int``.
        allow_inf: ``inf`` passes the upper side (e.g. ``clip_grad_norm=inf``: no clipping).

    Raises:
        TypeError: ``value`` is not a number (bools are not numbers here).
        ValueError: ``value`` is NaN, infinite (unless allowed), fractional where an integer
            is needed, or out of range. The message says ``owner: name=value`` and the range.
    """
    valid = _range_text(low, high, low_open, high_open, integer)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name}={value!r} is not a number; it must be {valid}.")
    number = float(value)
    bad = math.isnan(number) or (math.isinf(number) and not (allow_inf and number > 0))
    if integer and not bad and not math.isinf(number):
        bad = number != int(number)
    if not bad:
        bad = (low is not None and (number < low or (low_open and number == low))) or (
            high is not None and (number > high or (high_open and number == high))
        )
    if bad:
        raise ValueError(f"{owner}: {name}={value!r} is invalid; it must be {valid}.")
    if integer and not math.isinf(number):
        return int(number)
    return value


def check_kwargs(
    owner: str,
    name: str,
    func: Callable[..., Any],
    kwargs: Mapping[str, Any],
    through_bases: bool = False,
) -> None:
    """Raise unless ``func(**kwargs)`` binds: no unknown keyword, no required one missing.

    Callables that take ``**kwargs`` or whose signature cannot be read pass unchecked (the
    keywords go on to code we cannot see), except with ``through_bases`` for a class known to
    hand its ``**kwargs`` to its base classes (gymnasium's MuJoCo envs pass theirs to
    ``MujocoEnv``): then the bases' ``__init__`` keywords count too, up to the first base
    ``__init__`` without ``**kwargs``.

    Args:
        owner: Who takes ``kwargs``, for the message (e.g. ``"SerialSampler"``).
        name: The keyword holding ``kwargs`` (e.g. ``"env_kwargs"``).
        func: The callable they are for (e.g. ``EnvCls``).
        kwargs: The keywords.
        through_bases: ``func`` is a class whose ``__init__`` passes ``**kwargs`` on to its
            base classes' ``__init__``.

    Raises:
        TypeError: naming the offending keyword(s), the callable and the keywords it accepts.
    """
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return
    params = signature.parameters.values()
    accepted = _keyword_names(params)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        inherited = _inherited_keywords(func) if through_bases else None
        if inherited is None:
            return
        accepted += [name for name in inherited if name not in accepted]
    target = getattr(func, "__qualname__", repr(func))
    unknown = [key for key in kwargs if key not in accepted]
    if unknown:
        raise TypeError(
            f"{owner}: {name} has {_quoted(unknown)}, which {target} does not accept; it "
            f"accepts {_quoted(accepted) if accepted else 'no keywords'}."
        )
    try:
        signature.bind(**kwargs)
    except TypeError as exc:
        raise TypeError(f"{owner}: {name} does not fit {target}: {exc}.") from None


def _keyword_names(params: Iterable[inspect.Parameter]) -> list[str]:
    keyword_kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in params if p.kind in keyword_kinds and p.name != "self"]


def _inherited_keywords(func: Callable[..., Any]) -> list[str] | None:
    """Keywords a class's ``**kwargs`` can reach, or None where unknown.

    Its bases' ``__init__`` keywords in MRO order, up to the first ``__init__`` without
    ``**kwargs``; None for a non-class, an unreadable signature or ``**kwargs`` all the way up.
    """
    if not isinstance(func, type):
        return None
    names: list[str] = []
    for base in func.__mro__[1:]:
        init = base.__dict__.get("__init__")
        if init is None:
            continue
        if base is object:
            return None
        try:
            params = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            return None
        names += _keyword_names(params)
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
            return names
    return None


def space_description(space: object) -> str:
    """How a space reads in messages: the gymnasium space where wrapped (``Discrete(2)``)."""
    return repr(getattr(space, "space", space))


def _quoted(names: list[str]) -> str:
    return ", ".join(repr(name) for name in names)


def leaf_space(space: object) -> Any:
    """The rlpyt space behind a space: a ``GymSpaceWrapper``'s IntBox/FloatBox, else itself."""
    return getattr(space, "rlpyt_space", space)


def space_kind_error(agent_name: str, needed: str, space: object, advice: str) -> ValueError:
    """The error of an agent given the wrong kind of action space, in the issue's words.

    ``"<Agent>: this agent needs a <needed> action space; the env has <space>. <advice>"``.
    """
    return ValueError(
        f"{agent_name}: this agent needs {needed} action space; the env has "
        f"{space_description(space)}. {advice}"
    )
