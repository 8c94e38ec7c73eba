"""Griffe extension: docstrings in the house style become what mkdocstrings renders well.

Box: docs tooling (loaded by mkdocstrings, see mkdocs.yml); not part of the package. Before a
docstring is parsed it is rewritten in two ways:

- Sphinx cross-reference roles (``:class:`~rlpyt.x.Y```), which Markdown would print verbatim,
  become code spans of their target, shortened to the last dotted part when the target starts
  with ``~`` (Sphinx's rule);
- an ``Args:`` entry that documents several keywords at once (``algo, agent, sampler: As
  :class:`X`.``, its names possibly wrapped over two lines) becomes one entry per name with the
  same description, which Google-style parsers expect.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|obj|data|exc|const):`(~?)([^`]+)`")
ARGS_HEADERS = {"Args:", "Arguments:", "Parameters:", "Keyword Args:", "Other Parameters:"}
NAMES = r"\*{0,2}\w+(?:,\s*\*{0,2}\w+)+"
GROUPED = re.compile(rf"^(\s+)({NAMES}):(.*)$")
WRAPPED_NAMES = re.compile(rf"^\s+{NAMES},$")


def _code_span(match: re.Match[str]) -> str:
    """Return the code span for one role: ``:class:`~a.B``` -> ```B```."""
    short, target = match.group(1), match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


def strip_roles(text: str) -> str:
    """Return ``text`` with every Sphinx role replaced by a code span of its target."""
    return ROLE.sub(_code_span, text)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _entry_end(lines: list[str], start: int) -> int:
    """Index after the entry that starts at ``start``: its lines indented deeper, or blank."""
    end, indent = start + 1, _indent(lines[start])
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def split_grouped_args(text: str) -> str:
    """Return ``text`` with each ``a, b: description`` Args entry split into one per name."""
    lines, out, in_args, i = text.split("\n"), [], False, 0
    while i < len(lines):
        line = lines[i]
        if line.strip() in ARGS_HEADERS:
            in_args = True
        elif line.strip() and _indent(line) == 0:
            in_args = False
        elif in_args and WRAPPED_NAMES.match(line) and i + 1 < len(lines):
            lines[i + 1] = line.rstrip() + " " + lines[i + 1].strip()
            i += 1
            continue
        match = GROUPED.match(line) if in_args else None
        if match is None:
            out.append(line)
            i += 1
            continue
        end = _entry_end(lines, i)
        indent, names, first = match.groups()
        for name in re.split(r",\s*", names):
            out += [f"{indent}{name}:{first}", *lines[i + 1 : end]]
        i = end
    return "\n".join(out)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles and the grouped Args entries of every docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring in place (objects without one are left alone)."""
        if obj.docstring is not None:
            obj.docstring.value = split_grouped_args(strip_roles(obj.docstring.value))
