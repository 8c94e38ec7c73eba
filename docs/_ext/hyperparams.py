"""Griffe extension: a class with declared hyperparameters shows its derived constructor and table.

Box: docs tooling (loaded by mkdocstrings, see mkdocs.yml); not part of the package. Griffe reads
the source, where a class built on ``rlpyt.utils.hyperparams.Hyperparams`` has neither an
``__init__`` nor the ``Args:`` table: both are made when the class is created. For each such
class this extension imports it and gives the API reference what Python sees: the class
docstring with its generated table (Sphinx roles rewritten as ``sphinx_roles`` does) and an
``__init__`` with every keyword in positional order, its kind, type and default.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

import griffe

sys.path.insert(0, str(Path(__file__).parent))
from sphinx_roles import split_grouped_args, strip_roles  # noqa: E402


def _runtime_class(path: str) -> type | None:
    """The class at dotted ``path`` (module, then class), or None when it cannot be imported."""
    module_name, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), name, None)
    except Exception:  # noqa: BLE001 (docs build: fall back to the static view)
        return None


def _annotation(value: Any) -> str | None:
    if value is inspect.Parameter.empty:
        return None
    if isinstance(value, type) and not getattr(value, "__args__", None):
        return value.__name__
    return str(value).replace("typing.", "").replace("collections.abc.", "")


_KINDS = {
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
}


def _default(value: Any) -> str:
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    return repr(value)


class Hyperparams(griffe.Extension):
    """Replaces the static docstring and constructor of hyperparameter classes by the runtime's."""

    def on_class_members(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        """Give ``cls`` its generated docstring and ``__init__`` (other classes: no change)."""
        runtime = _runtime_class(cls.path)
        if runtime is None or "__hyperparams__" not in vars(runtime):
            return
        doc = runtime.__doc__ or ""
        cls.docstring = griffe.Docstring(split_grouped_args(strip_roles(doc)), parent=cls)
        if "__init__" in vars(runtime) and hasattr(runtime.__init__, "__signature__"):
            signature = runtime.__init__.__signature__
            parameters = griffe.Parameters(
                *(
                    griffe.Parameter(
                        name,
                        annotation=_annotation(p.annotation),
                        kind=_KINDS[p.kind],
                        default=None if p.default is p.empty else _default(p.default),
                    )
                    for name, p in signature.parameters.items()
                )
            )
            init = griffe.Function("__init__", parameters=parameters, returns="None")
            cls.set_member("__init__", init)
