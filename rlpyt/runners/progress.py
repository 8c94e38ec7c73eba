"""The training progress bar between log rows, and the target-reward stop.

Box: Runner. ``MinibatchRlBase`` makes one :class:`TrainingProgressBar` at start-up, advances
it by one batch of env steps per iteration and shows the newest logged return on it; it draws
(with tqdm: steps, steps/s and ETA) only when stderr is an interactive terminal, so log files,
pipes and CI output stay clean. :func:`target_reached` decides the early stop on the trailing
average return of a logged row.
"""

from __future__ import annotations

import math
from typing import Any

TARGET_COLUMN = "ReturnAverage"
"""The column the target reward is compared with: the trailing average return (the window of
training trajectories for MinibatchRl, the evaluation episodes for MinibatchRlEval)."""


class TrainingProgressBar:
    """A tqdm bar over the run's env steps; every method is a no-op when it does not draw.

    Args:
        total_steps: Env steps of the whole run.
        done_steps: Steps already done (a resumed run starts there).
        enabled: Draw at all (None: only if stderr is a terminal and tqdm is installed).
    """

    def __init__(self, total_steps: int, done_steps: int = 0, enabled: bool | None = None):
        self._bar: Any = None
        if enabled is False:
            return
        try:
            from tqdm.auto import tqdm  # noqa: PLC0415 (optional until drawn)
        except ImportError:
            return
        bar = tqdm(
            disable=None if enabled is None else False,  # None: tqdm draws on a terminal only
            total=total_steps,
            initial=done_steps,
            unit="step",
            unit_scale=True,
            dynamic_ncols=True,
            leave=False,
            smoothing=0.1,
        )
        self._bar = None if bar.disable else bar

    @property
    def drawing(self) -> bool:
        """True when the bar is on screen."""
        return self._bar is not None

    def advance(self, steps: int) -> None:
        """Count ``steps`` more env steps."""
        if self._bar is not None:
            self._bar.update(steps)

    def show_row(self, row: dict[str, Any]) -> None:
        """Show the row's trailing average return next to the bar."""
        value = row.get(TARGET_COLUMN)
        if self._bar is not None and isinstance(value, int | float) and not math.isnan(value):
            self._bar.set_postfix_str(f"return {value:.4g}", refresh=False)

    def close(self) -> None:
        """Remove the bar (idempotent)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def target_reached(row: dict[str, Any], target_reward: float | None) -> bool:
    """True when ``row``'s trailing average return is at least ``target_reward``.

    Args:
        row: One logged row (column -> value); a row without returns (``nan``, or no
            trajectory finished yet) never reaches the target.
        target_reward: The threshold; None: never.
    """
    if target_reward is None:
        return False
    value = row.get(TARGET_COLUMN)
    if not isinstance(value, int | float) or math.isnan(value):
        return False
    return value >= target_reward
