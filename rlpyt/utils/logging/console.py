"""Small terminal and filesystem helpers used by the logger (rlpyt's ``console`` module).

Only the two helpers scripts still import are kept: :func:`colorize` wraps a string in ANSI
colour codes and :func:`mkdir_p` creates a directory with its parents (``mkdir -p``).
"""

from __future__ import annotations

import os

_COLOR_CODES = {
    "gray": 30,
    "red": 31,
    "green": 32,
    "yellow": 33,
    "blue": 34,
    "magenta": 35,
    "cyan": 36,
    "white": 37,
    "crimson": 38,
}


def colorize(string: str, color: str, bold: bool = False, highlight: bool = False) -> str:
    """Wraps ``string`` in ANSI escape codes so a terminal shows it in ``color``.

    Args:
        string: the text to colour.
        color: one of gray, red, green, yellow, blue, magenta, cyan, white, crimson.
        bold: also make the text bold.
        highlight: colour the background instead of the letters.

    Returns:
        The text between the escape codes.

    Raises:
        ValueError: if ``color`` is not one of the names above.
    """
    if color not in _COLOR_CODES:
        raise ValueError(f"Unknown color {color!r}; choose one of {sorted(_COLOR_CODES)}.")
    code = _COLOR_CODES[color] + (10 if highlight else 0)
    attributes = [str(code)] + (["1"] if bold else [])
    return f"\x1b[{';'.join(attributes)}m{string}\x1b[0m"


def mkdir_p(path: str) -> None:
    """Creates ``path`` and any missing parents; does nothing if it exists (``mkdir -p``).

    Args:
        path: the directory to create; an empty string (the current directory) is a no-op.
    """
    if path:
        os.makedirs(path, exist_ok=True)
