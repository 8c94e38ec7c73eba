"""The grid of an ``rlpyt sweep``: ``--grid`` options and sweep files as rlpyt variants.

Box: command line. ``--grid key=v1,v2`` (or a sweep file's ``grid``) becomes one
``VariantLevel`` per key, crossed by ``make_variants``; each run of the sweep reads its variant
back (``rlpyt.cli.sweep_run``) and applies it as ``--set`` overrides (:func:`flatten_variant`).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from rlpyt.cli.overrides import parse_value

__all__ = ["FILE_KEYS", "flatten_variant", "load_sweep_file", "make_grid", "parse_grid_option"]

# Keys a sweep file may hold; each matches the command-line option of the same name.
FILE_KEYS = frozenset(
    {"algo", "env", "sampler", "n_workers", "steps", "seed", "config", "config_file", "seeds"}
    | {"target_reward", "eval_episodes", "log_interval_steps", "set", "grid"}
    | {"runner", "ranks", "vector", "check_finite", "snapshot_replay"}
)


def parse_grid_option(text: str) -> tuple[str, list[Any]]:
    """``"algo.learning_rate=3e-4,1e-3"`` -> ``("algo.learning_rate", [0.0003, 0.001])``.

    Values are Python literals separated by commas (``model.hidden_sizes=[32,32],[64,64]``
    gives two lists); text that is no literal stays a string.

    Raises:
        ValueError: no ``section.key=`` before the values, or no value.
    """
    key, sep, values = text.partition("=")
    key = key.strip()
    if not sep or "." not in key or not values.strip():
        raise ValueError(
            f"--grid {text!r} is not of the form section.key=v1,v2,...; write e.g. "
            "--grid algo.learning_rate=3e-4,1e-3."
        )
    try:
        parsed = ast.literal_eval(f"[{values}]")
    except (ValueError, SyntaxError):
        parsed = [parse_value(value) for value in values.split(",")]
    return key, list(parsed)


def load_sweep_file(path: str) -> dict[str, Any]:
    """A sweep YAML (or JSON) file as a dict; unknown keys fail with the valid ones.

    Example::

        algo: ppo
        env: CartPole-v1
        steps: 20000
        seeds: 2
        set: {algo.epochs: 4}
        grid:
          algo.learning_rate: [3.0e-4, 1.0e-3]
    """
    import yaml  # noqa: PLC0415 (JSON is YAML too)

    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    if not isinstance(data, dict):
        raise ValueError(f"Sweep file {path!r} must hold a mapping, not {type(data).__name__}.")
    unknown = sorted(set(data) - FILE_KEYS)
    if unknown:
        raise ValueError(
            f"Sweep file {path!r}: unknown keys {unknown}; valid keys: {sorted(FILE_KEYS)}."
        )
    for section in ("set", "grid"):
        if not isinstance(data.get(section, {}), dict):
            raise ValueError(f"Sweep file {path!r}: {section!r} must map section.key to values.")
    return data


def make_grid(grid: dict[str, list[Any]]) -> tuple[list[dict], list[str]]:
    """Variants (nested override dicts) and their folders: every combination of the grid.

    An empty grid gives one setting with no overrides, in the folder ``default``.
    """
    from rlpyt.utils.launching.variant import VariantLevel, make_variants  # noqa: PLC0415

    if not grid:
        return [{}], ["default"]
    levels = [
        VariantLevel(
            keys=[tuple(key.split("."))],
            values=[(value,) for value in values],
            dir_names=[_dir_name(key, value) for value in values],
        )
        for key, values in grid.items()
    ]
    return make_variants(*levels)


def _dir_name(key: str, value: object) -> str:
    text = f"{key.rsplit('.', 1)[-1]}_{value}"
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "", text.replace(" ", "").replace(",", "-"))


def flatten_variant(variant: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"algo": {"learning_rate": 1e-3}}`` -> ``{"algo.learning_rate": 1e-3}``."""
    flat: dict[str, Any] = {}
    for key, value in variant.items():
        if isinstance(value, dict):
            flat.update(flatten_variant(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
