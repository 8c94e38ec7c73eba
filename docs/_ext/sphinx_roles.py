"""Griffe extension: Sphinx cross-reference roles in docstrings become Markdown code spans.

Box: docs tooling (loaded by mkdocstrings, see mkdocs.yml); not part of the package. The
docstrings use Sphinx roles (``:class:`~rlpyt.x.Y```), which Markdown would print verbatim.
Before a docstring is parsed, each role becomes a code span of its target, shortened to the
last dotted part when the target starts with ``~`` (Sphinx's rule).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|obj|data|exc|const):`(~?)([^`]+)`")


def _code_span(match: re.Match[str]) -> str:
    """Return the code span for one role: ``:class:`~a.B``` -> ```B```."""
    short, target = match.group(1), match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


def strip_roles(text: str) -> str:
    """Return ``text`` with every Sphinx role replaced by a code span of its target."""
    return ROLE.sub(_code_span, text)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring in place (objects without one are left alone)."""
        if obj.docstring is not None:
            obj.docstring.value = strip_roles(obj.docstring.value)
