"""``--set section.key=value`` overrides of an rlpyt-shaped config dict.

Box: command line. ``rlpyt train``, ``rlpyt sweep`` and ``rlpyt tune`` parse each ``--set``
with :func:`parse_assignment` and apply them with :func:`apply_overrides`, which refuses a key
that is neither in the config nor a keyword of the class the section is splatted into (the
composition passes those as ``extra_keys``), naming the valid keys and the closest match.
"""

from __future__ import annotations

import ast
import copy
import difflib
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
