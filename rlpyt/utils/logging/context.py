"""Run folders: :func:`logger_context` points the logger at ``<log_dir>/run_<run_ID>/``.

Wrap a runner's ``train()`` call in it::

    with logger_context(log_dir, run_ID, name, config, snapshot_mode="last"):
        runner.train()

The run folder gets ``progress.csv`` (diagnostics, one row per log), ``debug.log`` (every
logged line), ``params.json`` and ``variant.json`` (the same content: the config plus
``name``, ``run_ID``, ``exp_name``, ``git_commit``, ``package_versions``), snapshots
(``params.pkl`` / ``itr_<N>.pkl`` per snapshot mode) and, when asked for, TensorBoard event
files. viskit and ``python -m rlpyt.plot`` read such folders as they are.

``LOG_DIR`` is ``<current working directory>/data``, looked up at each call (never inside the
installed package); assign ``context.LOG_DIR = ...`` to move it.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from rlpyt.utils.logging import logger
from rlpyt.utils.logging import wandb as wandb_logging
from rlpyt.utils.logging.atomic import atomic_write

if TYPE_CHECKING:
    from torch.utils.tensorboard import SummaryWriter

# Key in params.json -> distribution name whose version is recorded.
PACKAGE_DISTRIBUTIONS = {
    "rlpyt": "rlpyt",
    "torch": "torch",
    "numpy": "numpy",
    "gymnasium": "gymnasium",
    "ale_py": "ale-py",
}
EXPERIMENT_MARKER = "experiments_tree.txt"  # written by run_experiments at the experiment root
_MARKER_SEARCH_LEVELS = 8
PARAMS_FILES = ("params.json", "variant.json")
SNAPSHOT_FILE_PATTERN = re.compile(r"^(params|itr_\d+)\.pkl$")  # what the logger saves


@dataclass(frozen=True)
class RunFolder:
    """The run folder a ``logger_context`` has open, and whether it was opened to resume.

    Runners read it (:func:`active_run`) so that ``train(resume_from=...)`` and
    ``logger_context(resume=...)`` agree.
    """

    path: str
    resume: bool


_open_runs: list[RunFolder] = []  # innermost last


def active_run() -> RunFolder | None:
    """The run folder of the innermost open ``logger_context``, or None outside one."""
    return _open_runs[-1] if _open_runs else None


def __getattr__(name: str) -> Any:
    # LOG_DIR follows the working directory at the time it is read, unless assigned.
    if name == "LOG_DIR":
        return os.path.join(os.getcwd(), "data")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _log_root() -> str:
    assigned = globals().get("LOG_DIR")
    return os.path.abspath(assigned if assigned else os.path.join(os.getcwd(), "data"))


def get_log_dir(experiment_name: str, root_log_dir: str | None = None, date: bool = True) -> str:
    """A fresh dated folder for an experiment.

    Args:
        experiment_name: the experiment's folder name (may contain ``/``).
        root_log_dir: where to put it; default ``LOG_DIR`` (``<cwd>/data``).
        date: if True (default) ``<root>/local/<yyyymmdd>/<HHMMSS>/<experiment_name>``;
            if False ``<root>/local/<experiment_name>``.

    Returns:
        The folder path (not created).
    """
    root = _log_root() if root_log_dir is None else root_log_dir
    if not date:
        return os.path.join(root, "local", experiment_name)
    now = datetime.datetime.today()
    return os.path.join(root, "local", f"{now:%Y%m%d}", f"{now:%H%M%S}", experiment_name)


@contextmanager
def logger_context(
    log_dir: str,
    run_ID: int | str,  # noqa: N803 (rlpyt's keyword)
    name: str,
    log_params: dict | None = None,
    snapshot_mode: str = "none",
    override_prefix: bool = False,
    use_summary_writer: bool = False,
    *,
    resume: bool = False,
    overwrite: bool = False,
    wandb: bool | dict[str, Any] | None = None,
) -> Iterator[str]:
    """Sends the logger's outputs to the run folder ``<log_dir>/run_<run_ID>`` while inside.

    Where the folder goes: an absolute ``log_dir``, or one inside ``LOG_DIR``, or any
    ``log_dir`` with ``override_prefix=True`` is used as given; a relative ``log_dir`` outside
    ``LOG_DIR`` is placed under ``LOG_DIR/local/<yyyymmdd>/<HHMMSS>/`` with a logged notice.

    Args:
        log_dir: the folder holding the run folders of one setting.
        run_ID: the run's number (seed index) within the setting.
        name: the experiment name; text lines are prefixed ``"<name>_<run_ID> "``, or, for a
            run of a sweep (``run_experiments``), ``"<name> <setting>/run_<run_ID> "`` (e.g.
            ``"CartPole-v1 lr_0.001/run_0 "``), so runs of different settings differ.
        log_params: the config, saved to params.json / variant.json (the caller's dict is
            not modified). Values JSON cannot hold become their type's name; ``-inf`` becomes
            the string ``"-inf"`` (viskit cannot load it).
        snapshot_mode: "none", "last", "all", "gap" or "last+gap" (see
            :func:`rlpyt.utils.logging.logger.set_snapshot_mode`); the gap is set with
            ``logger.set_snapshot_gap``.
        override_prefix: use ``log_dir`` as given even when outside ``LOG_DIR``.
        use_summary_writer: also write TensorBoard event files into the run folder.
        resume: continue an existing run: the folder must exist, ``progress.csv`` is appended
            under its existing header, params files already there are left as they are.
            Use it with ``runner.train(resume_from=True)``; the runner refuses to start when
            the two switches disagree.
        overwrite: start the run folder anew although it holds a ``progress.csv`` from an
            earlier run: ``progress.csv`` and ``debug.log`` are emptied and that run's
            snapshots (``params.pkl``, ``itr_<N>.pkl``) deleted. Without it (the default) a
            run folder whose ``progress.csv`` has content is refused unless ``resume=True``.
        wandb: also log to Weights & Biases: ``True``, or a dict with any of ``project``,
            ``entity``, ``group``, ``tags``, ``name``, ``upload_snapshots`` (default False),
            ``mode`` and ``dir`` (see :class:`rlpyt.utils.logging.wandb.WandbSettings`). The
            W&B run gets every progress.csv row (same names and values, env steps
            ``Diagnostics/CumSteps`` as x-axis) and params.json as its config; its id goes
            to params.json under ``"wandb"``, and a resumed run continues it.
            ``WANDB_MODE=offline`` keeps it local. Default None: no W&B.

    Yields:
        The absolute path of the run folder.

    Raises:
        FileNotFoundError: ``resume=True`` and the run folder does not exist.
        FileExistsError: the run folder holds a non-empty ``progress.csv`` and neither
            ``resume`` nor ``overwrite`` is True (nothing is written).
        ValueError: ``resume`` and ``overwrite`` are both True, or an unknown snapshot mode.
        ImportError: ``use_summary_writer=True`` without TensorBoard installed, or ``wandb``
            without the wandb package.
        TypeError: a ``wandb`` dict with an unknown key.
    """
    wandb_settings = wandb_logging.WandbSettings.from_option(wandb)
    if wandb_settings is not None:
        wandb_logging.import_wandb()  # fails before anything is written
    exp_dir, notice = _resolve_exp_dir(log_dir, run_ID, override_prefix)
    _check_run_folder(exp_dir, resume, overwrite)
    if snapshot_mode not in logger.SNAPSHOT_MODES:
        raise ValueError(
            f"Unknown snapshot_mode {snapshot_mode!r}; use one of {logger.SNAPSHOT_MODES}."
        )
    exp_name = _experiment_name(exp_dir, log_dir, run_ID)
    params = make_run_params(log_params, name, run_ID, exp_name)
    writer = _make_summary_writer(exp_dir) if use_summary_writer else None
    discarded = _clear_run_folder(exp_dir) if overwrite else []
    prefix = f"{name} {exp_name} " if _sweep_root(exp_dir) else f"{name}_{run_ID} "
    with _logger_outputs(exp_dir, prefix, snapshot_mode, writer, resume):
        if notice:
            logger.log(notice)
        if discarded:
            logger.log(
                f"logger_context(overwrite=True): started {exp_dir} anew; discarded "
                f"the earlier run's {', '.join(discarded)}."
            )
        _write_params(exp_dir, params, keep_existing=resume)
        _open_runs.append(RunFolder(exp_dir, resume))
        try:
            with _wandb_run(wandb_settings, exp_dir, resume):
                yield exp_dir
        finally:
            _open_runs.pop()


@contextmanager
def _wandb_run(
    settings: wandb_logging.WandbSettings | None, exp_dir: str, resume: bool
) -> Iterator[None]:
    """The run folder's W&B run while inside (none for ``settings=None``)."""
    if settings is None:
        yield
        return
    with open(os.path.join(exp_dir, "params.json")) as f:
        params = json.load(f)
    with wandb_logging.wandb_output(settings, exp_dir, params, resume) as wandb_run:
        run = wandb_run.run
        record = {key: getattr(run, key, None) for key in ("project", "entity", "group")}
        _write_params_section(wandb_logging.PARAMS_SECTION, {"id": wandb_run.id, **record})
        yield


def _check_run_folder(exp_dir: str, resume: bool, overwrite: bool) -> None:
    """Refuses, before anything is written, a resume without folder or a silent truncation."""
    if resume and overwrite:
        raise ValueError(
            "logger_context(resume=True, overwrite=True): choose one; resume=True continues "
            f"the run in {exp_dir}, overwrite=True discards it."
        )
    if resume and not os.path.isdir(exp_dir):
        raise FileNotFoundError(
            f"logger_context(resume=True) found no run folder at {exp_dir}. Pass the log_dir "
            "(absolute, or inside LOG_DIR) and run_ID of the run to resume."
        )
    progress = os.path.join(exp_dir, "progress.csv")
    if resume or overwrite or not os.path.isfile(progress) or os.path.getsize(progress) == 0:
        return
    with open(progress, newline="") as f:
        n_rows = max(0, sum(1 for _ in f) - 1)
    raise FileExistsError(
        f"logger_context: the run folder {exp_dir} already holds a progress.csv ({n_rows} "
        "rows) from an earlier run, and opening it for a new run would truncate it. To "
        "continue that run: logger_context(..., resume=True) and runner.train("
        "resume_from=True). To discard it and start over: logger_context(..., "
        "overwrite=True). To keep it: use a new run_ID or log_dir."
    )


def _clear_run_folder(exp_dir: str) -> list[str]:
    """Empties progress.csv and debug.log and deletes snapshots; returns what was there."""
    if not os.path.isdir(exp_dir):
        return []
    discarded = []
    for file_name in sorted(os.listdir(exp_dir)):
        path = os.path.join(exp_dir, file_name)
        if file_name in ("progress.csv", "debug.log") and os.path.getsize(path) > 0:
            open(path, "w").close()
            discarded.append(file_name)
        elif SNAPSHOT_FILE_PATTERN.match(file_name):
            os.remove(path)
            discarded.append(file_name)
    return discarded


@contextmanager
def _logger_outputs(
    exp_dir: str, prefix: str, snapshot_mode: str, writer: SummaryWriter | None, resume: bool
) -> Iterator[None]:
    """Attaches text, tabular, snapshot and TensorBoard outputs; detaches them all on exit."""
    text_file = os.path.join(exp_dir, "debug.log")
    tabular_file = os.path.join(exp_dir, "progress.csv")
    previous_snapshot = (logger.get_snapshot_dir(), logger.get_snapshot_mode())
    logger.set_log_tabular_only(False)
    logger.set_snapshot_dir(exp_dir)
    logger.set_snapshot_mode(snapshot_mode)
    logger.add_text_output(text_file)
    logger.add_tabular_output(tabular_file, append=resume)
    logger.push_prefix(prefix)
    if writer is not None:
        logger.set_tf_summary_writer(writer)
        logger.set_tf_summary_dir(exp_dir)
    try:
        yield
    finally:
        logger.remove_tabular_output(tabular_file)
        logger.remove_text_output(text_file)
        logger.pop_prefix()
        if writer is not None:
            writer.close()
            logger.set_tf_summary_writer(None)
            logger.set_tf_summary_dir(None)
        logger.set_snapshot_dir(previous_snapshot[0])
        logger.set_snapshot_mode(previous_snapshot[1])


def _resolve_exp_dir(log_dir: str, run_ID: int | str, override_prefix: bool) -> tuple[str, str]:  # noqa: N803
    run_dir = os.path.join(log_dir, f"run_{run_ID}")
    exp_dir = os.path.abspath(run_dir)
    root = _log_root()
    if override_prefix or os.path.isabs(log_dir) or _is_inside(exp_dir, root):
        return exp_dir, ""
    notice = (
        f"logger_context: log_dir {log_dir!r} is outside {root}; writing under "
        f"{root}/local/<yyyymmdd>/<HHMMSS>/ (use an absolute log_dir or override_prefix=True "
        "to write elsewhere)."
    )
    return os.path.abspath(get_log_dir(run_dir)), notice


def _is_inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives
        return False


def _make_summary_writer(exp_dir: str) -> SummaryWriter:
    try:
        from torch.utils.tensorboard import SummaryWriter  # noqa: PLC0415 (optional extra)
    except ImportError as error:
        raise ImportError(
            "logger_context(use_summary_writer=True) needs TensorBoard; install it with "
            'pip install "rlpyt[tensorboard]"'
        ) from error
    return SummaryWriter(exp_dir)


def _sweep_root(exp_dir: str) -> str | None:
    """The nearest folder above ``exp_dir`` holding ``experiments_tree.txt``, or None."""
    folder = os.path.dirname(exp_dir)
    for _ in range(_MARKER_SEARCH_LEVELS):
        if os.path.isfile(os.path.join(folder, EXPERIMENT_MARKER)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


def _experiment_name(exp_dir: str, log_dir: str, run_ID: int | str) -> str:  # noqa: N803
    """The run's label for viskit legends and ``rlpyt.plot``.

    The run folder's path relative to the experiment root (the nearest folder above holding
    ``experiments_tree.txt``, written by ``run_experiments``), e.g. ``lr_0.001/run_0``;
    without such a root, ``<last folder of log_dir>/run_<run_ID>``.
    """
    root = _sweep_root(exp_dir)
    if root is not None:
        return os.path.relpath(exp_dir, root).replace(os.sep, "/")
    setting = os.path.basename(os.path.normpath(log_dir))
    return f"{setting}/run_{run_ID}" if setting not in ("", ".", "..", os.sep) else f"run_{run_ID}"


def make_run_params(
    log_params: dict | None,
    name: str,
    run_ID: int | str,  # noqa: N803
    exp_name: str,
) -> dict[str, Any]:
    """The content of params.json / variant.json: a JSON-safe copy of the config plus run facts.

    Args:
        log_params: the config (not modified); None for an empty one.
        name: the experiment name.
        run_ID: the run's number.
        exp_name: the run's label (see ``logger_context``).

    Returns:
        A new dict: the config with non-JSON values replaced by their type's name and
        ``-inf`` by ``"-inf"``, then ``name``, ``run_ID``, ``exp_name``, ``git_commit`` and
        ``git_dirty`` (the code that ran: the git repository around the working directory,
        else rlpyt's own checkout; left out when neither is one), ``command_line`` (the
        process's command, interpreter included) and ``package_versions`` (rlpyt's among them).
    """
    if log_params is not None and not isinstance(log_params, dict):
        raise TypeError(f"log_params must be a dict (the config), not {type(log_params).__name__}.")
    params = json_safe(log_params or {})
    params.update(name=name, run_ID=run_ID, exp_name=exp_name)
    commit = git_commit()
    if commit is not None:
        params["git_commit"] = commit
        params["git_dirty"] = git_dirty()
    params["command_line"] = shlex.join(getattr(sys, "orig_argv", sys.argv))
    params["package_versions"] = package_versions()
    return params


def json_safe(value: object) -> Any:
    """A deep copy of ``value`` made of JSON types that viskit can load.

    dicts (keys as strings), lists and tuples (as lists), None, bool, int, float and str are
    kept; numpy scalars become Python numbers; ``-inf`` becomes ``"-inf"``; anything else
    becomes the name of its type (as rlpyt wrote it).
    """
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isinf(value) and value < 0:
        return "-inf"
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return type(value).__name__


def git_commit(cwd: str | None = None) -> str | None:
    """The commit hash checked out in the git repository of the code that runs.

    Args:
        cwd: Where to look; None: the working directory, else (not in a repository) the
            folder of rlpyt's own source (an editable install).

    Returns:
        The hash, or None when no such folder is in a git repository (or git is missing).
    """
    folder = _code_folder() if cwd is None else cwd
    return None if folder is None else _git(folder, "rev-parse", "HEAD")


def git_dirty(cwd: str | None = None) -> bool | None:
    """True if tracked files of that repository (see :func:`git_commit`) differ from its commit.

    Returns:
        None when there is no repository.
    """
    folder = _code_folder() if cwd is None else cwd
    status = None if folder is None else _git(folder, "status", "--porcelain", "-uno")
    return None if status is None else status != ""


def _code_folder() -> str | None:
    """The working directory if it is in a git repository, else rlpyt's source folder if it is."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for folder in (os.getcwd(), package):
        if _git(folder, "rev-parse", "HEAD") is not None:
            return folder
    return None


def _git(folder: str, *args: str) -> str | None:
    """Output of ``git <args>`` in ``folder`` (stripped), or None if it fails."""
    try:
        result = subprocess.run(
            ["git", *args],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    output = result.stdout.strip()
    return output if output or args[0] == "status" else None


def package_versions() -> dict[str, str | None]:
    """Installed versions of rlpyt, torch, numpy, gymnasium and ale_py (None if absent)."""
    versions: dict[str, str | None] = {}
    for key, distribution in PACKAGE_DISTRIBUTIONS.items():
        try:
            versions[key] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            versions[key] = None
    if versions["rlpyt"] is None:  # a source checkout that is not pip-installed
        import rlpyt  # noqa: PLC0415

        versions["rlpyt"] = getattr(rlpyt, "__version__", None)
    return versions


def _write_params(exp_dir: str, params: dict[str, Any], keep_existing: bool) -> None:
    for file_name in PARAMS_FILES:
        path = os.path.join(exp_dir, file_name)
        if not (keep_existing and os.path.exists(path)):
            _write_json(path, params)


def _write_json(path: str, data: object) -> None:
    def dump(f: IO[str]) -> None:
        json.dump(data, f, indent=2)
        f.write("\n")

    atomic_write(path, dump, text=True)


def record_resolved_config(resolved: dict[str, Any]) -> str | None:
    """Adds the run's resolved configuration to params.json of the open run folder.

    The runner calls it at start-up (see :mod:`rlpyt.runners.config_record`). It goes under
    the one key ``"resolved"``; the keys written by ``logger_context`` stay as they are.
    Only params.json gets it: viskit and ``rlpyt.plot`` read variant.json, where per-run values
    such as the seed would otherwise split the runs of one setting into separate curves. A
    resumed run keeps the section its first start recorded (its seed and settings made the
    snapshot the run continues from).

    Args:
        resolved: JSON-safe dict (classes as ``"module.qualname"``).

    Returns:
        The params.json path written, or None: outside a ``logger_context`` nothing is written.
    """
    return record_params_section("resolved", resolved)


def record_params_section(key: str, value: object) -> str | None:
    """Adds one top-level section to params.json (only) of the open run folder.

    For records that describe the run but must not group runs in viskit or ``rlpyt.plot``
    (those read variant.json): the resolved configuration, the ``rlpyt`` command line's run
    description (``"cli"``). A resumed run keeps the section its first start wrote.

    Args:
        key: The top-level key.
        value: Its content (made JSON-safe).

    Returns:
        The params.json path written, or None: outside a ``logger_context`` nothing is written.
    """
    path, written = _write_params_section(key, value)
    if written is not None:
        wandb_logging.update_config({key: written})  # the W&B config follows params.json
    return path


def _write_params_section(key: str, value: object) -> tuple[str | None, Any]:
    """Writes ``params[key]`` (JSON-safe) of the open run; returns (path, what was written).

    What was written is None when nothing was: outside a run, or a resumed run's existing key.
    """
    run = active_run()
    if run is None:
        return None, None
    path = os.path.join(run.path, "params.json")
    params: dict[str, Any] = {}
    if os.path.isfile(path):
        with open(path) as f:
            params = json.load(f)
    if run.resume and key in params:
        return path, None
    params[key] = json_safe(value)
    _write_json(path, params)
    return path, params[key]


def add_exp_param(
    param_name: str, param_val: object, exp_dir: str | None = None, overwrite: bool = False
) -> list[str]:
    """Adds a parameter after the fact to every params.json / variant.json below ``exp_dir``.

    Useful to give runs a new distinguishing key (e.g. a label combining several settings).
    Where the key exists it is kept unless ``overwrite``; when overwriting a dict with a
    dict, the old one is updated with the new.

    Args:
        param_name: the top-level key.
        param_val: its value (made JSON-safe like the config).
        exp_dir: the folder to search (recursively); default the working directory.
        overwrite: replace existing values.

    Returns:
        The files that were changed.
    """
    value = json_safe(param_val)
    changed = []
    for folder, _, files in os.walk(exp_dir or os.getcwd()):
        for file_name in PARAMS_FILES:
            if file_name in files and _add_param_to_file(
                os.path.join(folder, file_name), param_name, value, overwrite
            ):
                changed.append(os.path.join(folder, file_name))
    return changed


def _add_param_to_file(path: str, param_name: str, value: object, overwrite: bool) -> bool:
    with open(path) as f:
        params = json.load(f)
    old = params.get(param_name)
    if param_name in params and not overwrite:
        logger.log(f"{path}: {param_name} already set to {old!r}; kept (overwrite=False).")
        return False
    params[param_name] = (
        {**old, **value} if isinstance(old, dict) and isinstance(value, dict) else value
    )
    _write_json(path, params)
    return True


def check_progress(exp_dir: str | None = None) -> dict[str, int]:
    """Logs and returns the number of data rows of every progress.csv below ``exp_dir``."""
    counts = {}
    for folder, _, files in os.walk(exp_dir or os.getcwd()):
        if "progress.csv" in files:
            path = os.path.join(folder, "progress.csv")
            with open(path) as f:
                counts[path] = max(0, sum(1 for _ in f) - 1)
            logger.log(f"{counts[path]:8d} {path}", with_prefix=False)
    return counts
