"""The documentation stays valid: every docs page is in the site's nav, and the code compiles.

Every ```python block of ``docs/**/*.md`` and ``README.md`` is compiled and its top-level
imports are run (a moved or renamed name fails here). A block preceded by
``<!-- docs-test: run -->`` is cheap and self-contained and is also run, in a temporary working
directory (files it writes land there). ``<!-- docs-test: outline -->`` marks a block that
lists a signature or sketches code with ``...`` in argument lists (not compiled). The strict
MkDocs build (``make test``) checks links, anchors and the API reference; this file needs no
MkDocs.
"""

import ast
import importlib.util
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MARKER = re.compile(r"<!--\s*docs-test:\s*([\w-]+)\s*-->\s*\n\s*$")
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
MARKS = {"run", "outline"}


def doc_pages():
    """Markdown files of the site (``docs/_ext`` holds build tooling, not pages)."""
    return sorted(p for p in DOCS.rglob("*.md") if "_ext" not in p.relative_to(DOCS).parts)


def code_blocks(text):
    """Yield ``(line, language, marker, code)`` for each fenced block of ``text``.

    ``marker`` is the ``docs-test`` word of an HTML comment on the line just above the fence,
    else None.
    """
    for match in FENCE.finditer(text):
        before = text[: match.start()]
        marker = MARKER.search(before[-200:]) if before else None
        line = before.count("\n") + 1
        yield line, match.group(1), marker.group(1) if marker else None, match.group(2)


def python_blocks():
    """``(code, marker, where)`` per python block; ``where`` is ``file:line``."""
    blocks = []
    for path in [*doc_pages(), ROOT / "README.md"]:
        for line, language, marker, code in code_blocks(path.read_text(encoding="utf-8")):
            if language in ("python", "py"):
                blocks.append((code, marker, f"{path.relative_to(ROOT)}:{line}"))
    return blocks


def nav_pages(entries):
    """Every page path named in a MkDocs ``nav`` (nested lists of strings and dicts)."""
    pages = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            pages += nav_pages(value)
        elif not value.startswith(("http://", "https://")):
            pages.append(value)
    return pages


BLOCKS = python_blocks()
CODE = [pytest.param(*block, id=block[2]) for block in BLOCKS if block[1] != "outline"]


def test_code_blocks_are_found_with_their_markers():
    text = (
        "intro\n<!-- docs-test: run -->\n```python\nx = 1\n```\n\n"
        "```python\ny = 2\n```\n<!-- docs-test: outline -->\n```python\nf(a=1, ...)\n```\n"
        "```console\n$ rlpyt\n```\n"
    )
    blocks = list(code_blocks(text))
    assert [(b[1], b[2], b[3]) for b in blocks] == [
        ("python", "run", "x = 1\n"),
        ("python", None, "y = 2\n"),
        ("python", "outline", "f(a=1, ...)\n"),
        ("console", None, "$ rlpyt\n"),
    ]
    assert [b[0] for b in blocks] == [3, 7, 11, 14]


def test_every_docs_page_is_in_the_site_nav():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    in_nav = set(nav_pages(config["nav"]))
    on_disk = {p.relative_to(DOCS).as_posix() for p in doc_pages()}
    assert on_disk - in_nav == set(), "add these pages to mkdocs.yml's nav"


def test_the_docs_have_runnable_snippets():
    markers = [marker for _, marker, _ in BLOCKS]
    assert set(markers) <= MARKS | {None}, f"unknown docs-test markers: {set(markers) - MARKS}"
    assert markers.count("run") >= 3


def imports_of(tree):
    """A module of only the top-level import statements of ``tree``."""
    nodes = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    return ast.Module(body=nodes, type_ignores=[])


def test_imports_of_keeps_only_top_level_imports():
    tree = ast.parse("import os\nx = 1\nfrom math import pi\ndef f():\n    import sys\n")
    assert ast.unparse(imports_of(tree)) == "import os\nfrom math import pi"


@pytest.mark.parametrize(("code", "marker", "where"), CODE)
def test_python_block_compiles_and_runs_where_marked(code, marker, where, tmp_path, monkeypatch):
    tree = ast.parse(code, where)
    monkeypatch.chdir(tmp_path)
    if marker == "run":
        exec(compile(tree, where, "exec"), {"__name__": "__docs__"})
    else:
        exec(compile(imports_of(tree), where, "exec"), {"__name__": "__docs__"})


def load_docs_extension():
    """``docs/_ext/sphinx_roles.py`` as a module (it needs griffe, from the ``docs`` extra)."""
    pytest.importorskip("griffe")
    spec = importlib.util.spec_from_file_location("sphinx_roles", DOCS / "_ext" / "sphinx_roles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_extension_turns_sphinx_roles_into_code_spans():
    strip_roles = load_docs_extension().strip_roles
    text = "As :class:`~rlpyt.models.conv2d.Conv2dModel`, :func:`rlpyt.x.f` and :meth:`step`."
    assert strip_roles(text) == "As `Conv2dModel`, `rlpyt.x.f` and `step`."


def test_docs_extension_splits_grouped_args_entries():
    split = load_docs_extension().split_grouped_args
    text = (
        "Summary.\n\nArgs:\n    algo, agent,\n        seed: As `Base`.\n"
        "    window: Trajectories.\n    x, y: Two,\n        lines.\n\n"
        "Raises:\n    ValueError, TypeError: bad.\n"
    )
    assert split(text) == (
        "Summary.\n\nArgs:\n    algo: As `Base`.\n    agent: As `Base`.\n    seed: As `Base`.\n"
        "    window: Trajectories.\n    x: Two,\n        lines.\n    y: Two,\n        lines.\n\n"
        "Raises:\n    ValueError, TypeError: bad.\n"
    )


def test_every_benchmark_script_has_a_section_on_the_benchmarks_page():
    headings = re.findall(r"^## .*$", (DOCS / "benchmarks.md").read_text(encoding="utf-8"), re.M)
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("[!_]*.py"))
    missing = [name for name in scripts if not any(f"`{name}`" in h for h in headings)]
    assert missing == [], "give each benchmark a '## ... (`script.py`)' section in benchmarks.md"
