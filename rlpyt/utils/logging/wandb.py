"""Weights & Biases output of a run folder: progress.csv's rows, params.json as the config.

Box: Logger. ``logger_context(..., wandb=True)`` (or ``wandb=dict(project=..., ...)``, or
``rlpyt train --wandb``) opens one W&B run per run folder with :func:`wandb_output`, which
attaches :meth:`WandbRun.log_row` to the run's progress.csv through
:func:`rlpyt.utils.logging.logger.add_row_output`. Needs the ``wandb`` extra
(``pip install "rlpyt[wandb]"``), imported only when a run asks for W&B.

Invariants:

- the W&B history holds every row written to progress.csv, each under the same column names
  with the value of its CSV cell (parsed back from the text the CSV holds, so the two agree
  to the last digit);
- ``Diagnostics/CumSteps`` (env steps) is the x-axis of every other metric;
- the W&B config is params.json: the config and run facts at start, then every section the
  run adds (``"resolved"`` at runner start-up, ``"cli"``), sent as it is written;
- snapshots (``*.pkl``) are uploaded only with ``upload_snapshots=True``, once, at the end;
- W&B's own files go to ``<run folder>/wandb/`` unless ``dir`` or ``WANDB_DIR`` says
  otherwise; ``WANDB_MODE=offline`` (or ``mode="offline"``) keeps everything local.
"""

from __future__ import annotations

import configparser
import dataclasses
import glob
import netrc
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from rlpyt.utils.logging import logger

INSTALL_HINT = 'pip install "rlpyt[wandb]"'
STEP_KEY = logger.TENSORBOARD_STEP_KEY  # env steps: the x-axis of every metric
PARAMS_SECTION = "wandb"  # params.json key holding the W&B run's id (for resume)


@dataclass(frozen=True)
class WandbSettings:
    """Where and how a run folder's W&B run is made (the keys of ``logger_context(wandb=...)``).

    Attributes:
        project: W&B project (None: W&B's default, ``WANDB_PROJECT`` or "uncategorized").
        entity: W&B user or team (None: the default of the logged-in account).
        group: groups runs in the W&B interface, e.g. the sweep (None: no group).
        tags: tags of the run.
        name: the run's display name (None: the run's ``exp_name``, e.g. ``lr_0.001/run_0``).
        upload_snapshots: also upload the run folder's snapshots (``*.pkl``) when it ends.
        mode: ``"online"``, ``"offline"`` or ``"disabled"`` (None: ``WANDB_MODE``, else online).
        dir: folder for W&B's local files (None: ``WANDB_DIR``, else the run folder).
    """

    project: str | None = None
    entity: str | None = None
    group: str | None = None
    tags: tuple[str, ...] = ()
    name: str | None = None
    upload_snapshots: bool = False
    mode: str | None = None
    dir: str | None = None

    @classmethod
    def from_option(cls, option: bool | Mapping[str, Any] | WandbSettings | None) -> Any:
        """The settings an option value asks for: None or False none, True the defaults.

        Args:
            option: False/None, True, a dict of the attributes' names, or settings.

        Returns:
            A ``WandbSettings``, or None for no W&B.

        Raises:
            TypeError: a dict key that is no attribute (the message lists them).
        """
        if option is None or option is False:
            return None
        if option is True:
            return cls()
        if isinstance(option, cls):
            return option
        if not isinstance(option, Mapping):
            raise TypeError(f"wandb must be a bool or a dict, not {type(option).__name__}.")
        names = [field.name for field in dataclasses.fields(cls)]
        unknown = sorted(set(option) - set(names))
        if unknown:
            raise TypeError(f"wandb: unknown keys {unknown}; valid keys: {names}.")
        values = dict(option)
        if "tags" in values:
            tags = values["tags"]
            values["tags"] = (tags,) if isinstance(tags, str) else tuple(tags or ())
        return cls(**values)


def import_wandb() -> Any:
    """The ``wandb`` module; an ImportError naming the extra if it is not installed."""
    try:
        import wandb  # noqa: PLC0415 (optional extra)
    except ImportError as error:
        raise ImportError(f"Logging to Weights & Biases needs wandb: {INSTALL_HINT}") from error
    return wandb


DEFAULT_HOSTS = frozenset({"api.wandb.ai", "api.forge.coreweave.com"})  # wandb's default servers
LOCAL_MODES = frozenset({"offline", "disabled", "dryrun"})  # modes that need no W&B account


def setup_problem(settings: WandbSettings, cwd: str | None = None) -> str | None:
    """Why ``wandb.init`` would fail here before logging anything; None when it would not.

    Looks, without any network access, where the wandb client looks: the mode
    (``settings.mode``, ``WANDB_MODE``, ``WANDB_DISABLED``, the settings files), then the
    credentials (``WANDB_API_KEY``, ``WANDB_IDENTITY_TOKEN_FILE``, an ``api_key`` in the
    settings files, or a ``machine`` entry of the netrc file (``NETRC``, else ``~/.netrc`` or
    ``~/_netrc``) for the W&B host: ``WANDB_BASE_URL``'s, the settings files' ``base_url``,
    else W&B's own). The settings files are ``$WANDB_CONFIG_DIR/settings`` (default
    ``~/.config/wandb/settings``) and ``wandb/settings`` in ``WANDB_DIR`` or ``cwd``.
    Whether a key is valid is not checked (that needs the server).

    Args:
        settings: the run's W&B settings.
        cwd: the folder whose ``wandb/settings`` counts (None: the working directory).

    Returns:
        One message saying what is missing and how to provide it, or None.
    """
    try:
        import_wandb()
    except ImportError:
        return f"Logging to Weights & Biases (--wandb) needs the wandb package: {INSTALL_HINT}"
    files = _settings_files(cwd or os.getcwd())
    mode = settings.mode or os.environ.get("WANDB_MODE") or files.get("mode", "")
    disabled = os.environ.get("WANDB_DISABLED", "").lower() in ("true", "1", "yes")
    if disabled or mode.lower() in LOCAL_MODES or _has_credentials(files):
        return None
    base_url = os.environ.get("WANDB_BASE_URL") or files.get("base_url")
    server = f" for {base_url}" if base_url else ""
    return (
        f"Weights & Biases has no API key{server} on this machine, so a run cannot log to "
        "it. Run `wandb login` (or set WANDB_API_KEY), or keep the W&B run local with "
        "WANDB_MODE=offline (sync it later with `wandb sync`)."
    )


def _has_credentials(files: dict[str, str]) -> bool:
    if os.environ.get("WANDB_API_KEY") or os.environ.get("WANDB_IDENTITY_TOKEN_FILE"):
        return True
    if files.get("api_key"):
        return True
    base_url = os.environ.get("WANDB_BASE_URL") or files.get("base_url")
    hosts = set(DEFAULT_HOSTS)
    if base_url:
        host = urlsplit(base_url).netloc
        hosts = {host} | (DEFAULT_HOSTS if host in DEFAULT_HOSTS else set())
    try:
        entries = netrc.netrc(_netrc_path()).hosts
    except FileNotFoundError:
        return False
    except (netrc.NetrcParseError, OSError):
        return True  # unreadable here: let wandb decide (it says what is wrong with the file)
    return any(entries.get(host, (None, None, None))[2] for host in hosts)


def _netrc_path() -> str:
    """The netrc file wandb reads: ``NETRC``, else ``~/.netrc``, else ``~/_netrc``."""
    if os.environ.get("NETRC"):
        return os.path.expanduser(os.environ["NETRC"])
    unix = os.path.expanduser("~/.netrc")
    windows = os.path.expanduser("~/_netrc")
    return windows if not os.path.exists(unix) and os.path.exists(windows) else unix


def _settings_files(cwd: str) -> dict[str, str]:
    """The ``[default]`` entries of wandb's settings files, the workspace's over the global's."""
    config_dir = os.environ.get("WANDB_CONFIG_DIR") or os.path.join("~", ".config", "wandb")
    workspace = os.environ.get("WANDB_DIR") or cwd
    paths = [
        os.path.join(os.path.expanduser(config_dir), "settings"),
        os.path.join(workspace, "wandb", "settings"),
    ]
    values: dict[str, str] = {}
    for path in paths:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(path, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        if parser.has_section("default"):
            values.update(parser["default"])
    return values


def cell_value(text: str) -> int | float | None:
    """A progress.csv cell as the number it holds (``"nan"`` -> nan); None for other text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


class WandbRun:
    """The open W&B run of one run folder.

    Args:
        run: the object ``wandb.init`` returned.
    """

    def __init__(self, run: Any) -> None:
        self.run = run

    @property
    def id(self) -> str:
        """The W&B run id (kept in params.json so that a resumed run continues it)."""
        return str(self.run.id)

    def log_row(self, row: dict[str, str]) -> None:
        """Logs one progress.csv row (column -> cell text); cells holding no number are left out."""
        values = {key: cell_value(text) for key, text in row.items()}
        self.run.log({key: value for key, value in values.items() if value is not None})

    def update_config(self, section: dict[str, Any]) -> None:
        """Adds top-level config entries (a section just written to params.json)."""
        self.run.config.update(section, allow_val_change=True)

    def finish(self, exit_code: int, snapshot_dir: str | None = None) -> None:
        """Closes the run (W&B marks it failed for a non-zero ``exit_code``).

        When no other W&B run is open, W&B's service process is stopped too, so the run
        leaves no process behind (the next run starts a new one, in about a second).

        Args:
            exit_code: 0 for a run that ended normally.
            snapshot_dir: upload the snapshots (``*.pkl``) in this folder first (W&B takes
                the files a pattern matches when it is given, so this happens at the end).
        """
        if snapshot_dir is not None and glob.glob(os.path.join(snapshot_dir, "*.pkl")):
            self.run.save(os.path.join(snapshot_dir, "*.pkl"), base_path=snapshot_dir, policy="now")
        self.run.finish(exit_code=exit_code)
        wandb = import_wandb()
        if not _open and wandb.run is None:  # no other W&B run open: stop W&B's service
            wandb.teardown()  # (it would outlive the run; stopping it also flushes its files)


_open: list[WandbRun] = []  # innermost last


def start_run(
    settings: WandbSettings, exp_dir: str, params: dict[str, Any], resume: bool
) -> WandbRun:
    """Opens the W&B run of ``exp_dir`` with ``params`` as its config.

    A resumed run (``resume=True``) whose params.json records a W&B run id continues that
    W&B run. Rows are logged against :data:`STEP_KEY`.

    Returns:
        The :class:`WandbRun`.
    """
    wandb = import_wandb()
    previous = params.get(PARAMS_SECTION) if resume else None
    run_id = previous.get("id") if isinstance(previous, dict) else None
    # W&B reads its environment once per process; these two follow it at every run.
    local_dir = settings.dir or os.environ.get("WANDB_DIR") or exp_dir
    mode = settings.mode or os.environ.get("WANDB_MODE") or None
    run = wandb.init(
        project=settings.project,
        entity=settings.entity,
        group=settings.group,
        tags=list(settings.tags) or None,
        name=settings.name or params.get("exp_name"),
        config={key: value for key, value in params.items() if key != PARAMS_SECTION},
        dir=local_dir,
        mode=mode,
        id=run_id,
        resume="allow" if run_id else None,
        reinit="create_new",  # a run of its own beside any open one (wandb.run is left alone)
        settings=wandb.Settings(console="off"),  # the logger writes debug.log already
    )
    run.define_metric(STEP_KEY)
    run.define_metric("*", step_metric=STEP_KEY)
    return WandbRun(run)


@contextmanager
def wandb_output(
    settings: WandbSettings, exp_dir: str, params: dict[str, Any], resume: bool
) -> Iterator[WandbRun]:
    """While inside, every row written to ``<exp_dir>/progress.csv`` also goes to W&B.

    Args:
        settings: the W&B run's settings.
        exp_dir: the run folder (its ``progress.csv`` is followed).
        params: the content of params.json (the run's config).
        resume: continue the W&B run recorded in ``params`` if there is one.

    Yields:
        The :class:`WandbRun`. It is finished on exit, as failed if an exception leaves the
        block.
    """
    wandb_run = start_run(settings, exp_dir, params, resume)
    progress = os.path.join(exp_dir, "progress.csv")
    logger.add_row_output(wandb_run.log_row, progress)
    _open.append(wandb_run)
    exit_code = 1
    try:
        yield wandb_run
        exit_code = 0
    finally:
        _open.remove(wandb_run)
        logger.remove_row_output(wandb_run.log_row, progress)
        wandb_run.finish(exit_code, exp_dir if settings.upload_snapshots else None)


def update_config(section: dict[str, Any]) -> None:
    """Sends a section just added to params.json to the innermost open W&B run, if any."""
    if _open:
        _open[-1].update_config(section)


# -- reading an offline run back ------------------------------------------------------------------

_FILE_HEADER = b":W&B\xe1\xbe\x00"  # ident, magic 0xBEE1 (little-endian), version 0
_BLOCK = 32768  # records are framed in LevelDB-log blocks of this size
_FULL, _FIRST, _MIDDLE, _LAST = 1, 2, 3, 4
_INTERNAL_KEYS = ("_step", "_runtime", "_timestamp")


@dataclass
class OfflineRun:
    """What a W&B run file (``run-<id>.wandb``) holds, read without W&B's servers.

    Attributes:
        project: the W&B project ("" when W&B's default).
        group: the run group ("" for none).
        tags: the run's tags.
        config: the config, with every update applied (W&B's own ``_wandb`` key left out).
        history: one dict per logged row, metric -> value (W&B's ``_step``, ``_runtime``,
            ``_timestamp`` left out), in logging order.
        step_metrics: metric name or glob -> its x-axis metric (``define_metric``).
        exit_code: the code the run finished with, None if it did not finish.
        files: paths (relative to the run's ``files/`` folder) the run saved for upload.
    """

    project: str = ""
    group: str = ""
    tags: list[str] = dataclasses.field(default_factory=list)
    config: dict[str, Any] = dataclasses.field(default_factory=dict)
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    step_metrics: dict[str, str] = dataclasses.field(default_factory=dict)
    exit_code: int | None = None
    files: list[str] = dataclasses.field(default_factory=list)


def run_file_records(path: str) -> Iterator[bytes]:
    """The serialized protobuf records of a ``.wandb`` file, in order.

    The file is W&B's transaction log: a 7-byte header, then LevelDB-log blocks of 32 KiB
    holding records framed as ``crc32 (4 bytes) | length (2) | type (1) | data``, a record
    split over blocks as FIRST, MIDDLE..., LAST pieces; the CRC covers the type byte and data.
    A record still being written at the end of the file is left out.

    Raises:
        ValueError: not a W&B run file, or a piece whose checksum does not match.
    """
    import struct  # noqa: PLC0415
    import zlib  # noqa: PLC0415

    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(_FILE_HEADER):
        raise ValueError(f"{path} is not a W&B run file (no ':W&B' header).")
    position, pieces = len(_FILE_HEADER), b""
    while position + 7 <= len(data):
        if _BLOCK - position % _BLOCK < 7:  # the rest of a block too short for a header
            position += _BLOCK - position % _BLOCK
            continue
        checksum, length, kind = struct.unpack_from("<IHB", data, position)
        piece = data[position + 7 : position + 7 + length]
        position += 7 + length
        if (kind == 0 and length == 0) or len(piece) < length:  # padding, or being written
            break
        if zlib.crc32(bytes([kind]) + piece) != checksum:
            raise ValueError(f"{path}: corrupt record at byte {position - 7 - length}.")
        pieces = piece if kind in (_FULL, _FIRST) else pieces + piece
        if kind in (_FULL, _LAST):
            yield pieces


def read_run_file(path: str, timeout: float = 0.0) -> OfflineRun:
    """Reads an offline (or not yet synced) W&B run file: config, history, x-axes, exit code.

    W&B's service writes the file in the background, and ``finish()`` may return before it
    has: ``timeout`` waits until the run's exit record is there.

    Args:
        path: a ``run-<id>.wandb`` file (in ``<W&B dir>/wandb/offline-run-<time>-<id>/``).
        timeout: seconds to wait for the exit record (0: read what is there now).
    """
    import time  # noqa: PLC0415

    deadline = time.monotonic() + timeout
    run = _read_records(path)
    while run.exit_code is None and time.monotonic() < deadline:
        time.sleep(0.05)
        run = _read_records(path)
    return run


def _read_records(path: str) -> OfflineRun:
    import importlib  # noqa: PLC0415
    import json  # noqa: PLC0415

    records = importlib.import_module("wandb.proto.wandb_internal_pb2")  # protobuf, untyped
    run = OfflineRun()
    for data in run_file_records(path):
        record = records.Record()
        record.ParseFromString(data)
        kind = record.WhichOneof("record_type")
        if kind == "run":
            run.project, run.group = record.run.project, record.run.run_group
            run.tags = list(record.run.tags)
        if kind in ("run", "config"):
            items = record.run.config.update if kind == "run" else record.config.update
            for item in items:
                if not _item_key(item).startswith("_wandb"):
                    run.config[_item_key(item)] = json.loads(item.value_json)
        elif kind == "history":
            row = {_item_key(item): json.loads(item.value_json) for item in record.history.item}
            run.history.append({k: v for k, v in row.items() if k not in _INTERNAL_KEYS})
        elif kind == "metric" and record.metric.step_metric:
            metric = record.metric
            run.step_metrics[metric.name or metric.glob_name] = metric.step_metric
        elif kind == "files":
            run.files.extend(item.path for item in record.files.files)
        elif kind == "exit":
            run.exit_code = record.exit.exit_code
    return run


def _item_key(item: Any) -> str:
    """A history or config item's name: ``key``, or its one-part ``nested_key``."""
    return item.key or ".".join(item.nested_key)
