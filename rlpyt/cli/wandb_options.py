"""The Weights & Biases options of ``rlpyt train`` and ``rlpyt sweep``.

Box: command line. :func:`wandb_options` adds ``--wandb``, ``--wandb-project``,
``--wandb-entity``, ``--wandb-group`` and ``--wandb-tags`` to a click command;
:func:`wandb_from_options` turns their values into the ``wandb`` dict of
:class:`~rlpyt.cli.spec.RunSpec`, which ``run_training`` hands to ``logger_context(wandb=...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

WANDB_OPTIONS: list[Callable[[Callable], Callable]] = [
    click.option("--wandb", "wandb", is_flag=True, default=False,
                 help="Also log to Weights & Biases (the wandb extra): every progress.csv row, "
                      "env steps as x-axis, params.json as config. WANDB_MODE=offline keeps the "
                      "run local (sync it later with `wandb sync`)."),
    click.option("--wandb-project", default=None, metavar="NAME",
                 help="W&B project (implies --wandb). Default: W&B's (WANDB_PROJECT)."),
    click.option("--wandb-entity", default=None, metavar="NAME",
                 help="W&B user or team (implies --wandb). Default: the account's."),
    click.option("--wandb-group", default=None, metavar="NAME",
                 help="W&B run group (implies --wandb). Default: none for train, the sweep "
                      "folder's name for sweep."),
    click.option("--wandb-tags", default=None, metavar="TAG,TAG",
                 help="Comma-separated W&B tags (implies --wandb)."),
]  # fmt: skip

_KEYS = ("project", "entity", "group", "tags")


def wandb_options(command: Callable) -> Callable:
    """Decorate a click command with :data:`WANDB_OPTIONS` (in that order in ``--help``)."""
    for option in reversed(WANDB_OPTIONS):
        command = option(command)
    return command


def wandb_from_options(options: dict[str, Any]) -> dict[str, Any] | None:
    """Removes the W&B options from ``options``; returns ``logger_context``'s ``wandb`` value.

    Args:
        options: the command's option values by parameter name (changed in place: the
            ``wandb*`` entries are removed).

    Returns:
        None when no W&B option was given; else a dict of the given project, entity, group
        and tags (a list).
    """
    enabled = bool(options.pop("wandb", False))
    given = {key: options.pop(f"wandb_{key}", None) for key in _KEYS}
    settings = {key: value for key, value in given.items() if value is not None}
    if "tags" in settings:
        settings["tags"] = [tag.strip() for tag in settings["tags"].split(",") if tag.strip()]
    return settings if enabled or settings else None
