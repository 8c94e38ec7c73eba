"""Experiment variants: which config values a sweep changes, and where each setting logs.

Part of the launching box. A launch script describes its sweep as :class:`VariantLevel` s and
crosses them with :func:`make_variants`; the launcher saves each variant next to its runs
(:func:`save_variant`, file :data:`VARIANT`); the train script reads it back with
:func:`load_variant` and applies it to its default config with :func:`update_config`.

A variant is a nested dict holding only the overridden keys, e.g.
``{"algo": {"learning_rate": 1e-4}, "env": {"game": "pong"}}``.
"""

from __future__ import annotations

import json
import os
from collections import namedtuple
from copy import deepcopy

VARIANT = "variant_config.json"

VariantLevel = namedtuple("VariantLevel", ["keys", "values", "dir_names"])
VariantLevel.__doc__ = """One axis of a sweep: several settings of the same config keys.

Fields:
    keys: list of key paths into the config, each a tuple such as ``("algo", "learning_rate")``.
    values: list of settings; each is a sequence with one value per key path, in ``keys`` order.
    dir_names: one folder name per setting (same length as ``values``), unique within the level.
"""


def make_variants(*variant_levels: VariantLevel) -> tuple[list[dict], list[str]]:
    """Cross the levels in order: every setting of one level with every setting of the next.

    Two levels of 2 and 3 settings give 6 variants; the log dir of each joins the levels'
    dir names with ``os.sep`` (e.g. ``"pong/lr_1e-4"``).

    Returns:
        ``(variants, log_dirs)``: lists of equal length, variants as nested dicts.

    Raises:
        ValueError: malformed level (lengths disagree) or duplicate dir names.
    """
    variants: list[dict] = [{}]
    log_dirs = [""]
    for level in variant_levels:
        variants, log_dirs = _cross(variants, log_dirs, level)
    return variants, log_dirs


def _check_level(level: VariantLevel) -> None:
    keys, values, dir_names = level
    if len(values) != len(dir_names):
        raise ValueError(
            f"VariantLevel has {len(values)} settings but {len(dir_names)} dir_names: "
            f"give one folder name per setting."
        )
    for setting in values:
        if len(setting) != len(keys):
            raise ValueError(
                f"VariantLevel setting {setting!r} has {len(setting)} values for "
                f"{len(keys)} keys {list(keys)}: give one value per key path."
            )
    for key_path in keys:
        if isinstance(key_path, str) or len(key_path) == 0:
            raise ValueError(
                f"VariantLevel key {key_path!r} must be a non-empty tuple of keys, "
                f"e.g. ('algo', 'learning_rate')."
            )
    if len(set(dir_names)) != len(dir_names):
        raise ValueError(f"VariantLevel dir_names must be unique, got {list(dir_names)}.")


def _cross(
    prev_variants: list[dict], prev_log_dirs: list[str], level: VariantLevel
) -> tuple[list[dict], list[str]]:
    _check_level(level)
    variants, log_dirs = [], []
    for prev_variant, prev_log_dir in zip(prev_variants, prev_log_dirs, strict=True):
        for setting, dir_name in zip(level.values, level.dir_names, strict=True):
            variant = deepcopy(prev_variant)
            for key_path, value in zip(level.keys, setting, strict=True):
                set_nested(variant, key_path, value)
            variants.append(variant)
            log_dirs.append(os.path.join(prev_log_dir, dir_name) if prev_log_dir else dir_name)
    if len(set(log_dirs)) != len(log_dirs):
        raise ValueError(f"Duplicate log dirs after crossing variant levels: {log_dirs}.")
    return variants, log_dirs


def set_nested(config: dict, key_path: tuple, value: object) -> None:
    """``config[k0][k1]...[kn] = value``, creating intermediate dicts as needed."""
    node = config
    for key in key_path[:-1]:
        node = node.setdefault(key, {})
    node[key_path[-1]] = value


def save_variant(variant: dict, log_dir: str) -> None:
    """Write ``variant`` as JSON to ``<log_dir>/variant_config.json`` (creating ``log_dir``)."""
    os.makedirs(log_dir, exist_ok=True)
    with open(os.path.join(log_dir, VARIANT), "w", encoding="utf-8") as f:
        json.dump(variant, f, indent=2)


def load_variant(log_dir: str) -> dict:
    """Read ``<log_dir>/variant_config.json``."""
    with open(os.path.join(log_dir, VARIANT), encoding="utf-8") as f:
        return json.load(f)


def update_config(default: dict, variant: dict) -> dict:
    """Deep-merge ``variant`` into a deep copy of ``default``; neither argument is modified.

    Only keys already in ``default`` may be overridden, so a misspelt key fails here rather
    than being silently ignored; a dict may only replace a dict.

    Raises:
        KeyError: a variant key is missing from the default (message names the full path,
            e.g. ``algo.learning_rte``).
        TypeError: dict / non-dict mismatch at a key (message names the path).
    """
    config = deepcopy(default)
    _merge_into(config, variant, "")
    return config


def _merge_into(config: dict, variant: dict, path: str) -> None:
    for key, value in variant.items():
        key_path = f"{path}.{key}" if path else str(key)
        if key not in config:
            raise KeyError(
                f"Variant key {key_path!r} is not in the default config; keys there: "
                f"{sorted(map(str, config))}."
            )
        if isinstance(value, dict) != isinstance(config[key], dict):
            raise TypeError(
                f"Variant at {key_path!r} is a {type(value).__name__} but the default config "
                f"holds a {type(config[key]).__name__} there; a dict can only update a dict."
            )
        if isinstance(value, dict):
            _merge_into(config[key], value, key_path)
        else:
            config[key] = deepcopy(value)
