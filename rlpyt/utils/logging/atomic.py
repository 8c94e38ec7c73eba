"""Atomic file writes for the run folder: params files, rewritten CSVs, snapshots.

Every file the logger replaces as a whole is written to a temporary file beside it and renamed
over it, so a crash leaves the old file or the new one, never half of one. The temporary file
is created with mode ``0o666`` minus the process umask, as ``open()`` creates files, so every
file of a run folder gets the same permissions (``tempfile.mkstemp`` would make them ``0600``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from typing import IO, Any


def atomic_write(path: str, write: Callable[[IO[Any]], Any], text: bool = False) -> None:
    """Calls ``write(file)`` on a temporary file beside ``path``, then renames it to ``path``.

    Args:
        path: the file to (re)write.
        write: writes the content to the open file it is given.
        text: open the temporary file in text mode (``newline=""``) instead of binary.

    The temporary file is named ``.<file name>.<random>.tmp``; it is flushed to disk before the
    rename and removed if ``write`` raises.
    """
    folder, name = os.path.split(os.path.abspath(path))
    tmp_path = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    # 0o666 & ~umask, like open(): mkstemp's fixed 0o600 would make params.json and snapshots
    # private.
    fd = os.open(tmp_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w" if text else "wb", newline="" if text else None) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp_path)
        raise
