"""Packaging stays consistent: setup.py (read with ast, never run), conda files, pyproject."""

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONDA_FILES = ["linux_cpu.yml", "linux_cuda12.yml", "macos_cpu.yml"]
REQUIRED_EXTRAS = {"test", "dev", "tensorboard", "mujoco", "plot", "ray", "slurm", "all"}


def normalise(requirement):
    """PEP 503 project name of a requirement line: no extras, versions or markers."""
    name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert name, f"not a requirement: {requirement!r}"
    return re.sub(r"[-_.]+", "-", name.group(1)).lower()


def setup_tree():
    return ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))


def setup_call(tree):
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setup"
    ]
    assert len(calls) == 1, "setup.py should call setup() exactly once"
    return {kw.arg: kw.value for kw in calls[0].keywords}


def install_requires():
    return [normalise(r) for r in ast.literal_eval(setup_call(setup_tree())["install_requires"])]


def extras_names():
    """Keys of extras_require: a dict literal, or a name bound to one and extended by item."""
    tree = setup_tree()
    value = setup_call(tree)["extras_require"]
    if isinstance(value, ast.Dict):
        return {ast.literal_eval(key) for key in value.keys}
    assert isinstance(value, ast.Name), "extras_require should be a dict or a module-level name"
    keys = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == value.id:
                keys |= {ast.literal_eval(key) for key in node.value.keys}
            elif (
                isinstance(target, ast.Subscript) and getattr(target.value, "id", None) == value.id
            ):
                keys.add(ast.literal_eval(target.slice))
    return keys


def parse_conda_file(path):
    """Top-level name, conda dependencies and pip lines of a conda environment file.

    A small reader for the subset these files use (no PyYAML needed): ``name:``, a
    ``dependencies:`` list and one nested ``- pip:`` list. Comments are dropped.
    """
    name, conda, pip = None, [], []
    pip_indent = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        indent = len(line) - len(line.lstrip())
        item = line.strip()
        if indent == 0 and item.startswith("name:"):
            name = item.split(":", 1)[1].strip()
        elif pip_indent is not None and indent > pip_indent and item.startswith("- "):
            pip.append(item[2:].strip())
        elif item == "- pip:":
            pip_indent = indent
        elif item.startswith("- "):
            pip_indent = None if indent <= (pip_indent or 0) else pip_indent
            conda.append(item[2:].strip())
    return name, conda, pip


@pytest.mark.parametrize("file_name", CONDA_FILES)
def test_conda_file_installs_every_runtime_requirement(file_name):
    name, conda, pip = parse_conda_file(ROOT / file_name)
    assert name == "rlpyt"
    assert "python=3.11" in conda and "pip" in conda
    packages = {normalise(line) for line in pip if not line.startswith("-")}
    missing = set(install_requires()) - packages
    assert not missing, f"{file_name} lacks {sorted(missing)} from setup.py install_requires"
    assert "torch" in packages
    assert "-e .[test,dev,plot]" in pip


def test_linux_cpu_file_uses_the_cpu_wheel_index():
    _, _, pip = parse_conda_file(ROOT / "linux_cpu.yml")
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in pip


def test_conda_reader_and_normaliser_on_a_known_text(tmp_path):
    path = tmp_path / "env.yml"
    path.write_text(
        "# comment\nname: x\ndependencies:\n  - python=3.11  # pinned\n  - pip\n"
        "  - pip:\n      - Foo_Bar[extra]>=1 ; python_version>'3'\n      - -e .\n  - later\n"
    )
    name, conda, pip = parse_conda_file(path)
    assert (name, conda) == ("x", ["python=3.11", "pip", "later"])
    assert pip == ["Foo_Bar[extra]>=1 ; python_version>'3'", "-e ."]
    assert normalise(pip[0]) == "foo-bar"


def test_setup_declares_the_required_extras():
    missing = REQUIRED_EXTRAS - extras_names()
    assert not missing, f"setup.py extras_require lacks {sorted(missing)}"


def test_setup_requires_the_runtime_stack():
    assert {"torch", "numpy", "gymnasium", "ale-py", "psutil"} <= set(install_requires())


def test_pyproject_holds_only_build_system_and_tool_tables():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "build-system" in data
    assert set(data) <= {"build-system", "tool"}, f"unexpected tables: {set(data) - {'tool'}}"


def test_torch_is_installed_first_from_one_spec_and_the_readme_says_how_to_get_the_cpu_wheel():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install_lines = [line.strip() for line in makefile.splitlines() if "pip install" in line]
    assert (
        install_lines[0] == '$(BIN)/python -m pip install --quiet $(TORCH_PIP_ARGS) "$(TORCH_SPEC)"'
    )
    assert re.search(r"^TORCH_SPEC \?= torch==\d", makefile, re.M)
    assert re.search(r"^TORCH_PIP_ARGS \?=\s*$", makefile, re.M)
    assert 'TORCH_PIP_ARGS="--index-url https://download.pytorch.org/whl/cpu"' in readme
    assert "`make test` also installs the `ray` extra" in readme
