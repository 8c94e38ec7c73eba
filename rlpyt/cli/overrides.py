"""``--set section.key=value`` overrides of an rlpyt-shaped config dict.

Box: command line. ``rlpyt train``, ``rlpyt sweep`` and ``rlpyt tune`` parse each ``--set``
with :func:`parse_assignment` and apply them with :func:`apply_overrides`, which refuses a key
that is neither in the config nor a keyword of the class the section is splatted into (the
composition passes those as ``extra_keys``), naming the valid keys and the closest match;
:func:`check_value_types` refuses a value not of its keyword's type, naming the key and the type.
"""

from __future__ import annotations

import ast
import collections.abc
import copy
import difflib
import inspect
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

_WORDS = {"true": True, "false": False, "none": None, "null": None}


def parse_value(text: str) -> Any:
    """Parse a ``--set`` value.

    A Python literal (``3e-4``, ``[64, 64]``, ``'adam'``); ``true``, ``false``,
    ``none``/``null`` in any case; else the text itself as a string.
    """
    stripped = text.strip()
    if stripped.lower() in _WORDS:
        return _WORDS[stripped.lower()]
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return stripped


def parse_assignment(text: str) -> tuple[str, Any]:
    """Split ``"algo.learning_rate=3e-4"`` into ``("algo.learning_rate", 0.0003)``.

    Raises:
        ValueError: no ``=``, or no ``section.key`` before it.
    """
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or "." not in key or key.startswith(".") or key.endswith("."):
        raise ValueError(
            f"--set {text!r} is not of the form section.key=value; write e.g. "
            "--set algo.learning_rate=3e-4 or --set model.hidden_sizes=[64,64]."
        )
    return key, parse_value(value)


def parse_assignments(texts: Iterable[str]) -> dict[str, Any]:
    """Parse several ``--set`` texts into one dict (a later key wins)."""
    return dict(parse_assignment(text) for text in texts)


def flat_keys(config: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Dotted paths of every entry of a nested dict, dicts included.

    E.g. ``agent``, ``agent.model_kwargs``, ``agent.model_kwargs.hidden_sizes``.
    """
    keys: list[str] = []
    for key, value in config.items():
        path = f"{prefix}{key}"
        keys.append(path)
        if isinstance(value, Mapping):
            keys.extend(flat_keys(value, path + "."))
    return keys


def closest_key(key: str, valid: Iterable[str]) -> str | None:
    """The valid key most like ``key`` (difflib), or None when none is close."""
    matches = difflib.get_close_matches(key, list(valid), n=1, cutoff=0.5)
    return matches[0] if matches else None


def check_keys(keys: Iterable[str], valid: Iterable[str]) -> None:
    """Raise ValueError for the first key not in ``valid``, naming the closest valid key.

    A key below an open section (``env.*`` for gymnasium's free keyword arguments) is valid
    when ``valid`` holds ``"<section>.*"``; so is a key below a valid ``*_kwargs`` entry
    (``agent.model_kwargs.hidden_sizes``: the keywords of a class built later).
    """
    valid_set = set(valid)
    open_sections = {v[:-2] for v in valid_set if v.endswith(".*")}
    for key in keys:
        if (
            key in valid_set
            or key.split(".", 1)[0] in open_sections
            or _below_kwargs(key, valid_set)
        ):
            continue
        listed = sorted(k for k in valid_set if "." in k)
        match = closest_key(key, listed)
        hint = f" Did you mean {match!r}?" if match else ""
        raise ValueError(
            f"Unknown config key {key!r}.{hint} Valid keys: {', '.join(listed)}. "
            "Fix the --set key (section.key=value), or see `rlpyt train ALGO --env ID "
            "--show-config` for the whole config."
        )


def _below_kwargs(key: str, valid: set[str]) -> bool:
    parts = key.split(".")
    return any(
        parts[i - 1].endswith("_kwargs") and ".".join(parts[:i]) in valid
        for i in range(2, len(parts))
    )


def apply_overrides(
    config: dict[str, Any], overrides: Mapping[str, Any], extra_keys: Iterable[str] = ()
) -> dict[str, Any]:
    """A deep copy of ``config`` with each dotted key of ``overrides`` set to its value.

    Args:
        config: The nested config (``algo``, ``agent``, ``sampler``, ... sections); not modified.
        overrides: ``{"algo.learning_rate": 3e-4, "model.hidden_sizes": [32, 32]}``.
        extra_keys: Further valid dotted keys not yet in the config (a class's keywords);
            ``"env.*"`` opens a whole section.

    Returns:
        The updated copy; intermediate dicts are made as needed (also where the config holds
        None, e.g. ``agent.model_kwargs=None``).

    Raises:
        ValueError: a key is neither in the config nor in ``extra_keys``; the message lists
            the valid keys and the closest match.
    """
    check_keys(overrides, [*flat_keys(config), *extra_keys])
    updated = copy.deepcopy(config)
    for key, value in overrides.items():
        *parents, last = key.split(".")
        node = updated
        for part in parents:
            if not isinstance(node.get(part), dict):
                node[part] = {}
            node = node[part]
        node[last] = copy.deepcopy(value)
    return updated


# -- the type of a --set value ---------------------------------------------------------------

_UNKNOWN = object()  # no expected type: the value goes to the class as it is
_LIST_TYPES = (list, tuple, collections.abc.Sequence, collections.abc.Iterable)
_EXAMPLES: dict[Any, str] = {int: "4", float: "3e-4", bool: "true", str: "adam"}


def check_value_types(
    overrides: Mapping[str, Any], config: Mapping[str, Any], classes: Mapping[str, Any]
) -> None:
    """Raise ValueError for the first ``--set`` value not of its keyword's type.

    The expected type is the annotation of the keyword in the constructor of the class the
    section goes to (``classes``); without one, the type of the keyword's default or of the
    value the config holds now. Keys of the free ``env`` sections, and keywords whose type is
    not a plain one (a class, a callable), are not checked.

    Args:
        overrides: Dotted key -> parsed ``--set`` value.
        config: The config before the overrides (its values tell the type of unannotated keys).
        classes: Section -> the class its keywords go to (``agent.model_kwargs.*`` goes to
            ``classes["model"]``).

    Raises:
        ValueError: naming the key, the expected type with an example, and the value given.
    """
    for key, value in overrides.items():
        expected, example = expected_type(key, config, classes)
        if expected is _UNKNOWN or type_matches(value, expected) is not False:
            continue
        example = example or _example(expected)
        hint = f" (e.g. {example})" if example and expected is not bool else ""
        raise ValueError(
            f"--set {key}={_as_text(value)}: expected {describe_type(expected)}{hint}, not "
            f"{_describe_value(value)}."
        )


def expected_type(
    key: str, config: Mapping[str, Any], classes: Mapping[str, Any]
) -> tuple[Any, str | None]:
    """The type ``key``'s value must have (``_UNKNOWN``: any) and an example value as text."""
    parts = key.split(".")
    current = _lookup(config, parts)
    owner, name = classes.get(parts[0]), parts[-1]
    if parts[:2] == ["agent", "model_kwargs"] and len(parts) == 3:
        owner = classes.get("model")
    elif len(parts) != 2:
        owner = None
    if parts[0] in ("env", "eval_env") and owner is None:
        return _UNKNOWN, None
    annotation, default = _keyword(owner, name) if owner is not None else (_UNKNOWN, None)
    if annotation is not _UNKNOWN:
        for sample in (current, default):
            if sample is not None and type_matches(sample, annotation):
                return annotation, _as_text(sample)
        return annotation, None
    sample = current if current is not None else default
    return (_UNKNOWN, None) if sample is None else (_type_of(sample), _as_text(sample))


def type_matches(value: object, expected: object) -> bool | None:
    """Whether ``value`` has type ``expected`` (an annotation); None when it cannot tell."""
    origin, args = typing.get_origin(expected), typing.get_args(expected)
    if origin in (typing.Union, types.UnionType):
        answers = [type_matches(value, arg) for arg in args]
        return True if True in answers else (None if None in answers else False)
    if origin is typing.Literal:
        return value in args
    if expected in (bool, int, float, str, type(None), None):
        return _scalar_matches(value, expected)
    if origin in _LIST_TYPES or expected in (list, tuple):
        return _list_matches(value, args)
    if origin in (dict, collections.abc.Mapping) or expected in (dict, collections.abc.Mapping):
        return isinstance(value, dict)
    return None


def _scalar_matches(value: object, expected: object) -> bool:
    if expected is None or expected is type(None):
        return value is None
    if isinstance(value, bool) or expected is bool:
        return expected is bool and isinstance(value, bool)
    if expected is float:
        return isinstance(value, int | float)
    return isinstance(expected, type) and isinstance(value, expected)


def _list_matches(value: object, args: tuple[object, ...]) -> bool | None:
    if not isinstance(value, list | tuple):
        return False
    if not args:
        return True
    if len(args) == 2 and args[1] is Ellipsis or len(args) == 1:
        answers = [type_matches(item, args[0]) for item in value]
    elif len(args) == len(value):  # a fixed-length tuple
        answers = [type_matches(item, arg) for item, arg in zip(value, args, strict=True)]
    else:
        return False
    return False if False in answers else (None if None in answers else True)


def describe_type(expected: object) -> str:
    """The type in words: ``an int, a list of ints or none``."""
    origin, args = typing.get_origin(expected), typing.get_args(expected)
    if origin in (typing.Union, types.UnionType):
        words = [describe_type(arg) for arg in args]
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
    if origin is typing.Literal:
        return "one of " + ", ".join(_as_text(arg) for arg in args)
    if origin in _LIST_TYPES or expected in (list, tuple):
        inner = [arg for arg in args if arg is not Ellipsis]
        if len(inner) == 1:
            return f"a list of {_plural(describe_type(inner[0]))}"
        return "a list" if not inner else f"a list of {len(inner)} values"
    names: dict[object, str] = {bool: "true or false", int: "an int", float: "a number"}
    names.update({str: "a text", type(None): "none", dict: "a mapping such as {'key': 1}"})
    return names.get(expected, getattr(expected, "__name__", str(expected)))


def _plural(words: str) -> str:
    """``an int`` -> ``ints``, ``a number`` -> ``numbers``, ``true or false`` -> ``bools``."""
    if words == "true or false":
        return "bools"
    return words.split(" ", 1)[1] + "s" if words.startswith(("a ", "an ")) else words


def _example(expected: object) -> str | None:
    origin, args = typing.get_origin(expected), typing.get_args(expected)
    if origin in (typing.Union, types.UnionType):
        examples = [_example(arg) for arg in args if arg is not type(None)]
        return next((e for e in reversed(examples) if e), None)
    if origin in _LIST_TYPES:
        inner = [arg for arg in args if arg is not Ellipsis]
        item = _example(inner[0]) if inner else None
        return f"[{item},{item}]" if item else None
    return _EXAMPLES.get(expected)


def _keyword(owner: Any, name: str) -> tuple[Any, Any]:
    """The annotation (``_UNKNOWN``: none readable) and default of ``owner``'s keyword."""
    init = typing.cast(Any, owner).__init__ if isinstance(owner, type) else owner
    try:
        parameter = inspect.signature(owner).parameters.get(name)
    except (TypeError, ValueError):
        return _UNKNOWN, None
    if parameter is None:
        return _UNKNOWN, None
    default = None if parameter.default is inspect.Parameter.empty else parameter.default
    try:
        hints = typing.get_type_hints(init)
    except Exception:  # noqa: BLE001 (an annotation naming what only type checkers import)
        return _UNKNOWN, default
    return hints.get(name, _UNKNOWN), default


def _type_of(sample: object) -> Any:
    """The annotation a value stands for: ``[64, 64]`` -> ``list[int]``, ``0.5`` -> ``float``."""
    if isinstance(sample, list | tuple) and sample:
        kinds = {_type_of(item) for item in sample}
        return types.GenericAlias(list, (kinds.pop(),)) if len(kinds) == 1 else list
    if isinstance(sample, bool | int | float | str | dict | list | tuple):
        return type(sample) if not isinstance(sample, tuple) else list
    return _UNKNOWN


def _lookup(config: Mapping[str, Any], parts: list[str]) -> Any:
    node: Any = config
    for part in parts:
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _as_text(value: object) -> str:
    """A value as one would write it after ``--set key=``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | tuple):
        return "[" + ",".join(_as_text(item) for item in value) + "]"
    return value if isinstance(value, str) else repr(value)


def _describe_value(value: object) -> str:
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, bool) or value is None:
        return _as_text(value)
    if isinstance(value, list | tuple):
        return f"the list {_as_text(value)}"
    return f"the {'int' if isinstance(value, int) else 'number'} {value!r}"
