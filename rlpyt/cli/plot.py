"""``rlpyt plot``: learning curves of a run or a sweep as a PNG (``rlpyt.plot`` behind a command).

Box: command line. Calls :func:`rlpyt.plot.plot_runs`; errors a user can fix (no run below the
folder, an unknown column or key, matplotlib missing) exit non-zero with the message.
"""

from __future__ import annotations

import os

import click

PLOT_HELP = """Plot learning curves of every run below RUN_OR_SWEEP_DIR into a PNG.

Each algorithm and env gets a panel titled with both (runs of train scripts: the algorithm
class and env id their params.json records). Inside a panel, runs whose settings differ (e.g.
the learning rates of a sweep) become separate curves, named in the legend: the mean over
their seeds with a band of one standard deviation. At most 9 panels of 10 curves are drawn;
the terminal says how runs were grouped and what was left out. Needs matplotlib (the plot
extra).

\b
Examples:
  rlpyt plot runs/ppo_CartPole-v1/run_0
  rlpyt plot runs --filter algorithm=ppo --filter environment=CartPole-v1
  rlpyt plot runs --split environment             # algorithms side by side, per env
  rlpyt plot runs --split none --group exp_name   # one curve per run folder
  rlpyt plot runs/local/20260101/120000/ppo_sweep --key Diagnostics/CumTime --out time.png
"""


@click.command(help=PLOT_HELP, short_help="Plot learning curves of runs or a sweep.")
@click.argument(
    "paths",
    nargs=-1,
    required=True,
    metavar="RUN_OR_SWEEP_DIR...",
    type=click.Path(exists=True, file_okay=False),
)
@click.option(
    "--key",
    "y",
    default="ReturnAverage",
    show_default=True,
    help="progress.csv column on the y axis.",
)
@click.option(
    "--x",
    "x",
    default="Diagnostics/CumSteps",
    show_default=True,
    help="progress.csv column on the x axis.",
)
@click.option(
    "--group",
    multiple=True,
    help="Parameter key (dotted, e.g. algo.learning_rate) that defines the curves "
    "(repeatable). Default: inside each panel, every key whose value differs between its runs "
    "(exp_name: one curve per run folder).",
)
@click.option(
    "--split",
    default=None,
    help="Parameter key: one panel per value ('none': one panel). Default: one panel per "
    "algorithm and env.",
)
@click.option(
    "--filter",
    "filters",
    multiple=True,
    metavar="KEY=VALUE",
    help="Plot only the runs whose parameter KEY has this value, e.g. algorithm=ppo, "
    "environment=CartPole-v1, algo.learning_rate=1e-3 (repeatable; one key given twice "
    "keeps either value).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="PNG to write. Default: curves_<key>.png in the (first) folder.",
)
@click.option("--title", default=None, help="Figure title. Default: the key.")
@click.option(
    "--aggregate",
    type=click.Choice(["iqm", "median", "mean"]),
    default=None,
    help="Draw this aggregate over the seeds of each curve with a 95% stratified bootstrap "
    "band (docs/statistics.md) instead of mean +- std.",
)
def plot(
    paths: tuple[str, ...],
    y: str,
    x: str,
    group: tuple[str, ...],
    split: str | None,
    filters: tuple[str, ...],
    out: str | None,
    title: str | None,
    aggregate: str | None,
) -> None:
    """See PLOT_HELP (click shows it)."""  # noqa: D401
    from rlpyt.plot import plot_runs  # noqa: PLC0415 (matplotlib loads only here)

    if out is None:
        out = os.path.join(paths[0], f"curves_{y.replace('/', '_')}.png")
    try:
        png = plot_runs(
            list(paths), x, y, out, split, list(group) or None, title, aggregate,
            filters=filters, echo=lambda line: click.echo(line, err=True),
        )  # fmt: skip
    except (FileNotFoundError, KeyError, ValueError, ImportError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(png)
