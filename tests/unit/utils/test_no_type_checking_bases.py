"""Mixins are real subclasses of what they run over: no base class picked by ``TYPE_CHECKING``.

The pattern ``if TYPE_CHECKING: _Base = X`` / ``else: _Base = object`` makes a type checker see
one class hierarchy and the interpreter another. The replays and the record types derive from
the class they need (a mixin over an n-step storage is an n-step storage; the array-tuple
mixin is a tuple; the epsilon-greedy mixin is an agent), so the checker and the interpreter
see the same bases. The scan covers the whole package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PATHS = sorted((ROOT / "rlpyt").rglob("*.py"))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def base_tricks(source: str) -> list[int]:
    """Lines of ``if TYPE_CHECKING`` blocks that bind a name to ``object`` in their ``else``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.orelse:
                if (
                    isinstance(statement, ast.Assign)
                    and isinstance(statement.value, ast.Name)
                    and statement.value.id == "object"
                ):
                    lines.append(node.lineno)
    return lines


def test_the_finder_finds_the_pattern():
    source = "if TYPE_CHECKING:\n    _Base = int\nelse:\n    _Base = object\n"
    assert base_tricks(source) == [1]
    assert base_tricks("if TYPE_CHECKING:\n    import numpy\n") == []


@pytest.mark.parametrize("path", PATHS, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_base_class_picked_by_type_checking(path):
    assert base_tricks(path.read_text()) == []


def test_the_array_tuple_mixin_is_a_tuple():
    from rlpyt.utils.collections import NamedArrayTuple, _ArrayTupleMixin, namedarraytuple

    Point = namedarraytuple("Point", ["x", "y"])
    assert issubclass(_ArrayTupleMixin, tuple)
    assert Point.__mro__[1] is _ArrayTupleMixin and NamedArrayTuple.__mro__[1] is _ArrayTupleMixin
    assert Point(1, 2).get(1) == 2 and "x" in Point(1, 2)
