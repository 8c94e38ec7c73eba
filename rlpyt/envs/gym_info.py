"""Info dicts of gymnasium envs as fixed-field records (the ``env_info`` of GymEnvWrapper).

Sample buffers are allocated once from one example ``env_info``, so every step must return a
record with the same fields, shapes and dtypes. :class:`InfoConverter` fixes that field set
from one example dict: numeric entries (Python/numpy numbers and bools, numeric arrays; nested
dicts become nested records) are kept, anything else (strings, objects, None) is dropped with
one warning. Later, missing keys are filled with zeros of the example's dtype and shape and
unseen keys are ignored. Records are ``NamedTupleSchema`` instances: no class is registered in
any module, so different envs in one process never clash and records pickle under spawn.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from numpy.typing import ArrayLike

from rlpyt.spaces.gym_wrapper import unique_identifiers
from rlpyt.utils.collections import NamedTuple, NamedTupleSchema

_MISSING = object()


def numeric_example(value: object) -> np.ndarray | np.generic | None:
    """``value`` as a numpy scalar/array when it is numeric (bool, int, float), else None."""
    if isinstance(value, bool | int | float | np.bool_ | np.integer | np.floating):
        return np.asarray(value)[()]
    if isinstance(value, np.ndarray | list | tuple):
        try:
            array = np.asarray(value)
        except (ValueError, TypeError):  # ragged sequences
            return None
        if array.dtype.kind in "biuf":
            return array
    return None


def _zeros(example: np.ndarray | np.generic) -> np.ndarray | np.generic:
    zeros = np.zeros(np.shape(example), dtype=example.dtype)
    return zeros[()] if zeros.ndim == 0 else zeros


class InfoConverter:
    """Turns info dicts into records with the fields of one example dict.

    Args:
        example: One info dict (e.g. from a reset and a random step).
        name: Typename of the record; nested records are ``<name>_<field>``.
        extra: Fields appended at the end, ``{field: default}``, whose values are passed to
            :meth:`__call__` positionally (GymEnvWrapper's ``timeout``); keys of ``example``
            with these names are ignored.

    Attributes:
        schema: The ``NamedTupleSchema`` of the records.
        dropped: Key paths (``"outer.inner"``) of the non-numeric entries left out.
    """

    def __init__(self, example: Mapping, name: str = "EnvInfo", extra: Mapping | None = None):
        extra = dict(extra or {})
        keys = [k for k in example if not (isinstance(k, str) and k in extra)]
        self._entries: list[tuple[Any, Any, Any, Any]] = []  # (key, dtype, default, child)
        self.dropped: list[str] = []
        kept_keys = []
        for key in keys:
            entry = self._make_entry(key, example[key], name)
            if entry is not None:
                self._entries.append(entry)
                kept_keys.append(key)
        fields = unique_identifiers(kept_keys + list(extra))
        self.schema = NamedTupleSchema(name, fields)
        self._extra_defaults = tuple(np.asarray(v)[()] for v in extra.values())
        self._warned: set[str] = set()
        self._constants: dict[tuple, NamedTuple] = {}  # immutable records, by extra values

    def _make_entry(self, key: object, value: object, name: str) -> tuple | None:
        if isinstance(value, Mapping):
            child = InfoConverter(value, f"{name}_{unique_identifiers([key])[0]}")
            self.dropped.extend(f"{key}.{path}" for path in child.dropped)
            if not child.schema._fields:
                return None
            return (key, None, child(_MISSING), child)
        numeric = numeric_example(value)
        if numeric is None:
            self.dropped.append(str(key))
            return None
        return (key, numeric.dtype, _zeros(numeric), None)

    @property
    def example(self) -> NamedTuple:
        """A record of the defaults (zeros), usable as a buffer example."""
        return self(_MISSING)

    def __call__(self, info: object, *extra_values: object) -> NamedTuple:
        """Convert one info dict (missing or None entries -> defaults; a non-dict is empty)."""
        if not self._entries:  # info carries nothing numeric: records repeat, reuse them
            return self._constant_record(extra_values)
        if not isinstance(info, Mapping):
            info = {}
        values = []
        for key, dtype, default, child in self._entries:
            value = info.get(key, _MISSING)
            if child is not None:
                values.append(child(value))
            elif value is _MISSING or value is None:
                values.append(default.copy() if isinstance(default, np.ndarray) else default)
            else:
                values.append(self._cast(key, value, dtype, default))
        values.extend(extra_values or self._extra_defaults)
        return self.schema._make(values)

    def _constant_record(self, extra_values: tuple) -> NamedTuple:
        try:
            return self._constants[extra_values]
        except KeyError:
            record = self._constants[extra_values] = self.schema._make(
                extra_values or self._extra_defaults
            )
            return record
        except TypeError:  # unhashable extra values (arrays): no reuse
            return self.schema._make(extra_values or self._extra_defaults)

    def _cast(
        self, key: object, value: ArrayLike, dtype: np.dtype, default: np.ndarray | np.generic
    ) -> Any:
        """``value`` in the example's dtype/shape; on mismatch the default and one warning."""
        try:
            if np.ndim(default) == 0 and np.ndim(value) == 0:
                return dtype.type(value)
            array = np.asarray(value, dtype=dtype)
            if array.shape == default.shape:
                return array
        except (TypeError, ValueError, OverflowError):
            pass
        if str(key) not in self._warned:
            self._warned.add(str(key))
            warnings.warn(
                f"env info entry {key!r} = {value!r} does not match its first value "
                f"(dtype {dtype}, shape {np.shape(default)}); recording zeros for it instead. "
                "Give the env a fixed info layout (or pass info_example to rlpyt.envs.gym.make).",
                stacklevel=3,
            )
        return default


def info_to_nt(info: object, converter: InfoConverter, *extra_values: object) -> NamedTuple:
    """Convert an info dict with ``converter`` (functional spelling of ``converter(info)``)."""
    return converter(info, *extra_values)


def _zeros_like_info(value: object) -> object:
    if isinstance(value, Mapping):
        return {k: _zeros_like_info(v) for k, v in value.items()}
    numeric = numeric_example(value)
    return value if numeric is None else _zeros(numeric)


def infill_info(info: dict, sometimes_info: Mapping) -> dict:
    """Add (in place) zero-valued entries for the keys of ``sometimes_info`` absent from info.

    Args:
        info: An info dict from the env.
        sometimes_info: An example holding every key that appears at least sometimes (e.g.
            ``episode`` statistics present only at episode end); nested dicts are filled too.

    Returns:
        ``info``, completed.
    """
    for key, example in sometimes_info.items():
        if key not in info:
            info[key] = _zeros_like_info(example)
        elif isinstance(example, Mapping) and isinstance(info[key], dict):
            infill_info(info[key], example)
    return info


class EnvInfoWrapper(gymnasium.Wrapper):
    """Gymnasium wrapper that pads every info dict to the key set of ``info_example``.

    Use it (via ``make(..., info_example=...)``) when some info keys appear only at some steps:
    GymEnvWrapper fixes its record fields from the first step, and this makes sure they are all
    there.
    """

    def __init__(self, env: gymnasium.Env, info_example: Mapping):
        super().__init__(env)
        self.info_example = info_example

    def step(self, action: Any) -> tuple:
        """Gymnasium step; the info dict is padded."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        return observation, reward, terminated, truncated, infill_info(info, self.info_example)

    def reset(self, **kwargs: Any) -> tuple:
        """Gymnasium reset; the info dict is padded."""
        observation, info = self.env.reset(**kwargs)
        return observation, infill_info(info, self.info_example)
