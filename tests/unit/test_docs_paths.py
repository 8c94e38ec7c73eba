"""The run folders named in ``rlpyt <command> <path>`` examples are the folders the code writes.

Every example in the README, the docs pages and the command line's help texts that hands a
folder to ``rlpyt plot``, ``play``, ``compare`` or ``train --resume`` must name a folder of one of
the layouts below, each derived from the function that makes it: ``rlpyt train``'s run folder
(:func:`rlpyt.cli.train.default_log_dir` and ``run_<N>``), ``rlpyt sweep``'s sweep folder
(:func:`rlpyt.utils.logging.context.get_log_dir` under :data:`rlpyt.cli.spec.RUNS_DIR`),
``rlpyt tune``'s study folder, or a launch script's sweep folder (``get_log_dir`` under
``LOG_DIR``, ``data/``) for a title that a launch script or a ``logger_context`` call really uses.
"""

import ast
import os
import pathlib
import re

import click
import pytest

from rlpyt.cli import tune as tune_command
from rlpyt.cli.main import MAIN_HELP
from rlpyt.cli.main import rlpyt as rlpyt_group
from rlpyt.cli.spec import RUNS_DIR
from rlpyt.cli.train import RUN_FOLDER, default_log_dir
from rlpyt.utils.logging.context import get_log_dir

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAME = r"[^/\s`]+"
DATE = r"(?:\d{8}|<date>|<yyyymmdd>)"
TIME = r"(?:\d{6}|<time>|<HHMMSS>)"
STAMP = r"(?:\d{8}-\d{6}|<time>|<yyyymmdd-HHMMSS>)"
EXAMPLE = re.compile(r"\brlpyt (plot|play|compare|train)\b([^`|\n]*)")


def relative(path):
    """``path`` relative to the working directory when it is inside it."""
    return os.path.relpath(path) if os.path.isabs(path) else path


def dated(path, title):
    """A ``.../local/<yyyymmdd>/<HHMMSS>/<title>`` folder as a pattern, ``title`` one name."""
    *head, date, time, name = pathlib.PurePath(relative(path)).parts
    assert re.fullmatch(r"\d{8}", date) and re.fullmatch(r"\d{6}", time) and name == title
    return "/".join(map(re.escape, head)) + f"/{DATE}/{TIME}/"


def launch_titles():
    """Sweep titles of the launch scripts and ``logger_context`` names of the scripts and docs."""
    titles = set()
    sources = [*ROOT.glob("experiments/**/*.py"), *ROOT.glob("examples/*.py")]
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                if "EXPERIMENT_TITLE" in names:
                    titles.add(node.value.value)
    code = "\n".join(path.read_text() for path in [*sources, *doc_pages()])
    titles.update(re.findall(r"logger_context\(\s*\"([^\"]+)\"", code))
    return titles


def layouts():
    """Name -> pattern of the folders each writer makes (absolute or relative)."""
    run = RUN_FOLDER.pattern.strip("^$")
    train = re.escape(relative(default_log_dir("ALGO", "ENV"))).replace("ALGO_ENV", NAME)
    tune_head, study = os.path.split(relative(tune_command._study_dir("ALGO", "ENV")))
    assert re.fullmatch(r"ALGO_ENV_\d{8}-\d{6}", study), study
    titles = "|".join(map(re.escape, sorted(launch_titles())))
    return {
        "rlpyt train": f"{train}(?:/{run})?",
        "rlpyt sweep": dated(get_log_dir("TITLE", root_log_dir=RUNS_DIR), "TITLE") + f"{NAME}.*",
        "rlpyt tune": f"{re.escape(tune_head)}/{NAME}_{STAMP}(?:/{run})?",
        "a launch script or logger_context": dated(get_log_dir("TITLE"), "TITLE")
        + f"(?:{titles})(?:/.*)?",
    }


def doc_pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def help_texts():
    """``MAIN_HELP`` and the help of every command and option of the ``rlpyt`` group."""
    texts = [("rlpyt --help", MAIN_HELP)]
    for name, command in rlpyt_group.commands.items():
        parts = [command.help or ""]
        parts += [p.help or "" for p in command.params if isinstance(p, click.Option)]
        texts.append((f"rlpyt {name} --help", "\n".join(parts)))
    return texts


def example_paths(text):
    """``(command, folder)`` of each example: positional folders, or ``train --resume``'s."""
    found = []
    for command, rest in EXAMPLE.findall(text):
        words = rest.split()
        if command == "train":
            folders = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--resume"]
        else:
            folders = words[: next((i for i, w in enumerate(words) if w.startswith("-")), None)]
        found += [(command, folder) for folder in folders if "/" in folder]
    return found


def all_examples():
    sources = [(str(p.relative_to(ROOT)), p.read_text()) for p in doc_pages()] + help_texts()
    return [(where, *example) for where, text in sources for example in example_paths(text)]


def layout_of(folder, patterns):
    """The writer whose folders ``folder`` is one of (absolute: from its ``runs/`` or ``data/``)."""
    for writer, pattern in patterns.items():
        if re.fullmatch(rf"(?:/\S*/)?{pattern}", folder.rstrip("/")):
            return writer
    return None


def test_the_layouts_are_the_folders_the_commands_write():
    patterns = layouts()
    assert layout_of("runs/ppo_CartPole-v1/run_0", patterns) == "rlpyt train"
    assert layout_of("/home/me/runs/ppo_CartPole-v1/run_3", patterns) == "rlpyt train"
    assert layout_of("runs/local/20260101/120000/ppo_CartPole-v1", patterns) == "rlpyt sweep"
    assert layout_of("runs/tune/ppo_CartPole-v1_20260101-120000/run_2", patterns) == "rlpyt tune"
    demo = "data/local/<date>/<time>/cartpole_ppo_demo"
    assert layout_of(demo, patterns) == "a launch script or logger_context"
    # A command's folder under the launch scripts' root, or a run folder without its runs/:
    assert layout_of("data/local/<date>/<time>/ppo_CartPole-v1", patterns) is None
    assert layout_of("ppo_CartPole-v1/run_0", patterns) is None
    assert layout_of("runs/local/<date>/ppo_CartPole-v1", patterns) is None


def test_examples_are_found_in_docs_and_help():
    examples = all_examples()
    places = {where for where, _, _ in examples}
    assert {"README.md", "docs/getting-started.md", "rlpyt --help"} <= places, places
    commands = {command for _, command, _ in examples}
    assert commands == {"plot", "play", "compare", "train"}, commands


@pytest.mark.parametrize(
    ("where", "command", "folder"), all_examples(), ids=lambda v: str(v).replace(" ", "_")
)
def test_every_example_names_a_folder_the_code_writes(where, command, folder):
    assert layout_of(folder, layouts()) is not None, (
        f"{where}: `rlpyt {command} {folder}` names no folder rlpyt writes: "
        f"`rlpyt train` writes {RUNS_DIR}/<algo>_<env>/run_<N>, `rlpyt sweep` "
        f"{RUNS_DIR}/local/<date>/<time>/<title>, `rlpyt tune` {RUNS_DIR}/tune/...; "
        "data/local/<date>/<time>/<title> is a launch script's (its title must be one)."
    )
