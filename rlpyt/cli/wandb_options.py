"""The Weights & Biases options of ``rlpyt train`` and ``rlpyt sweep``.

Box: command line. :func:`wandb_options` adds ``--wandb``, ``--wandb-project``,
``--wandb-entity``, ``--wandb-group`` and ``--wandb-tags`` to a click command;
:func:`wandb_from_options` turns their values into the ``wandb`` dict of
:class:`~rlpyt.cli.spec.RunSpec`, which ``run_training`` hands to ``logger_context(wandb=...)``;
:func:`check_wandb` refuses it, before any run folder exists, where W&B could not start a run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from rlpyt.cli.errors import SetupError

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


def check_wandb(wandb: dict[str, Any] | None) -> None:
    """Raise :class:`~rlpyt.cli.errors.SetupError` (rc 2) if W&B cannot start a run here.

    Checks that wandb is installed and, unless the W&B run stays local (``WANDB_MODE``
    offline or disabled), that this machine has W&B credentials
    (:func:`rlpyt.utils.logging.wandb.setup_problem`); no network access.

    Args:
        wandb: the run's W&B settings (None: no W&B, nothing to check).
    """
    if wandb is None:
        return
    from rlpyt.utils.logging.wandb import WandbSettings, setup_problem  # noqa: PLC0415

    problem = setup_problem(WandbSettings.from_option(wandb))
    if problem is not None:
        raise SetupError(problem)
