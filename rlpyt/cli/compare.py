"""``rlpyt compare``: a sweep's settings over seeds, IQM/median/mean/optimality gap with CIs.

Box: command line. Calls :func:`rlpyt.compare.compare_runs`, prints
:func:`rlpyt.compare.format_table` and writes the performance profiles with
:func:`rlpyt.compare.draw_profiles`; errors a user can fix (no run below the folder, an unknown
column, unequal runs per task) exit non-zero with the message.
"""

from __future__ import annotations

import os

import click

COMPARE_HELP = """Compare the settings of runs or sweeps: scores aggregated over seeds, with CIs.

Runs are grouped into settings as `rlpyt plot` groups them into curves (every parameter that
differs between runs, seeds aside). Each run gives a final score (the --key column at its last
log row) and an AUC score (its average over training); per setting the table shows the IQM,
median, mean and optimality gap of each, with stratified bootstrap confidence intervals over
the runs (Agarwal et al., NeurIPS 2021). Performance profiles (fraction of runs above each
score) go to a PNG when matplotlib is installed. docs/statistics.md explains the method.

\b
Examples:
  rlpyt compare runs/local/20260101/120000/ppo_CartPole-v1
  rlpyt compare sweep_a sweep_b --group algo.learning_rate --gamma 500
  rlpyt compare atari_sweep --task env.game --key ReturnAverage
"""


@click.command(help=COMPARE_HELP, short_help="Compare settings over seeds (IQM, CIs).")
@click.argument(
    "paths",
    nargs=-1,
    required=True,
    metavar="RUN_DIRS...",
    type=click.Path(exists=True, file_okay=False),
)
@click.option("--key", "y", default="ReturnAverage", show_default=True, help="Scored column.")
@click.option(
    "--x", default="Diagnostics/CumSteps", show_default=True, help="Env-steps column (AUC)."
)
@click.option(
    "--group",
    multiple=True,
    help="Parameter key defining the settings (repeatable). Default: every differing key.",
)
@click.option("--task", default=None, help="Parameter key whose values are tasks (strata).")
@click.option(
    "--gamma",
    type=float,
    default=None,
    help="Optimality gap target. Default: the env's reward_threshold when the runs share one.",
)
@click.option(
    "--last", type=click.IntRange(min=1), default=1, show_default=True,
    help="Log rows averaged into the final score.",
)  # fmt: skip
@click.option(
    "--reps", type=click.IntRange(min=100), default=10_000, show_default=True,
    help="Bootstrap resamples.",
)  # fmt: skip
@click.option(
    "--confidence", type=click.FloatRange(0.5, 0.999), default=0.95, show_default=True,
    help="Confidence of the intervals.",
)  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Performance-profile PNG. Default: profiles_<key>.png in the (first) folder.",
)
def compare(
    paths: tuple[str, ...],
    y: str,
    x: str,
    group: tuple[str, ...],
    task: str | None,
    gamma: float | None,
    last: int,
    reps: int,
    confidence: float,
    seed: int,
    out: str | None,
) -> None:
    """See COMPARE_HELP (click shows it)."""  # noqa: D401
    from rlpyt.compare import compare_runs, draw_profiles, format_table  # noqa: PLC0415

    try:
        comparison = compare_runs(
            list(paths), y, x, list(group) or None, task, gamma, last, reps, confidence, seed
        )
    except (FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(format_table(comparison))
    if out is None:
        out = os.path.join(paths[0], f"profiles_{y.replace('/', '_')}.png")
    try:
        click.echo(f"\nPerformance profiles: {draw_profiles(comparison, out)}")
    except ImportError as exc:
        click.echo(f"\nNo performance profiles: {exc}")
