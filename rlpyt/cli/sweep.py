"""``rlpyt sweep``: a grid of settings x seeds, run on this machine's cores, Slurm or Ray.

Box: command line, on top of the launching box. The grid (``--grid key=v1,v2`` or a YAML file)
becomes ``VariantLevel`` s crossed by ``make_variants``; ``run_experiments`` (or its submitit /
Ray twins) starts :mod:`rlpyt.cli.sweep_run` once per setting and seed, per rlpyt's train-script
contract, with the run's :class:`~rlpyt.cli.spec.RunSpec` as the config argument. Every
setting is composed once before anything starts, so a bad key fails at once.
"""

from __future__ import annotations

import os
from typing import Any

import click

from rlpyt.cli.compose import build_components
from rlpyt.cli.errors import verbose_option
from rlpyt.cli.grid import flatten_variant, load_sweep_file, make_grid, parse_grid_option
from rlpyt.cli.options import AlgorithmType, run_options, spec_from_options
from rlpyt.cli.spec import RUNS_DIR, RunSpec
from rlpyt.cli.sweep_run import encode_spec
from rlpyt.cli.wandb_options import check_wandb, wandb_from_options, wandb_options

__all__ = ["flatten_variant", "load_sweep_file", "make_grid", "parse_grid_option", "sweep"]

LAUNCHERS = ("local", "submitit", "ray")
SWEEP_RUN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sweep_run.py")
"""The train script each run of a sweep starts (rlpyt's train-script contract)."""

SWEEP_HELP = """Run ALGO over a grid of settings, several seeds each, as one sweep folder.

Every combination of the --grid values is one setting (a folder named after its values, e.g.
learning_rate_0.001/) with --seeds runs inside (run_0, run_1, ...; run N uses seed --seed + N
when --seed is given). Runs share this machine's cores through rlpyt's run_experiments, or
go to Slurm (--launcher submitit) or Ray (--launcher ray). Plot the result with `rlpyt plot`.

\b
Examples:
  rlpyt sweep ppo --env CartPole-v1 --grid algo.learning_rate=3e-4,1e-3 --seeds 2 --steps 50000
  rlpyt sweep --file sweep.yaml
\b
A sweep file (YAML) takes the same names:
  algo: ppo
  env: CartPole-v1
  steps: 50000
  seeds: 2
  set: {algo.epochs: 4}
  grid: {algo.learning_rate: [3.0e-4, 1.0e-3], sampler.batch_B: [4, 8]}
"""


@click.command(help=SWEEP_HELP, short_help="Run a grid of settings x seeds.")
@click.argument("algo", type=AlgorithmType(), required=False, metavar="ALGO")
@run_options
@click.option(
    "--grid",
    "grids",
    multiple=True,
    metavar="SECTION.KEY=V1,V2,...",
    help="One axis of the grid (repeatable; axes are crossed).",
)
@click.option(
    "--seeds",
    type=click.IntRange(min=1),
    default=None,
    help="Runs (seeds) per setting.  [default: 1]",
)
@click.option(
    "--file",
    "sweep_file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="YAML sweep file; command-line options override its entries.",
)
@click.option(
    "--target-reward",
    type=float,
    default=None,
    help="Each run stops once its trailing average return reaches this.",
)
@click.option("--title", default=None, help="Sweep folder name. Default: <algo>_<env>.")
@click.option(
    "--root-log-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Root of the sweep folder <root>/local/<date>/<time>/<title>. Default: ./runs "
    "(where rlpyt train and rlpyt tune write too).",
)
@click.option(
    "--cores",
    type=click.IntRange(min=1),
    default=None,
    help="CPU cores the local sweep may use. Default: all allowed.",
)
@click.option(
    "--launcher",
    type=click.Choice(LAUNCHERS),
    default="local",
    show_default=True,
    help="local: this machine; submitit: Slurm jobs (slurm extra); ray: Ray Tune "
    "trials (ray extra).",
)
@click.option(
    "--cluster",
    default=None,
    help="submitit's cluster (slurm, local, debug). Default: what submitit finds.",
)
@wandb_options
@click.option("--dry-run", is_flag=True, help="Compose every setting, print them, run nothing.")
@verbose_option
def sweep(
    algo: str | None,
    grids: tuple[str, ...],
    sweep_file: str | None,
    title: str | None,
    root_log_dir: str | None,
    cores: int | None,
    launcher: str,
    cluster: str | None,
    dry_run: bool,
    **options: Any,
) -> None:
    """See SWEEP_HELP (click shows it)."""  # noqa: D401
    options["wandb"] = wandb_from_options(options)
    spec, grid, seeds = _sweep_spec(algo, grids, sweep_file, options)
    check_wandb(spec.wandb)  # each run would fail alike: say it once, before any folder
    variants, log_dirs = make_grid(grid)
    for variant, log_dir in zip(variants, log_dirs, strict=True):
        _check_setting(spec, variant, log_dir)
    title = (title or f"{spec.algo}_{spec.env or 'default'}").replace("/", "_")
    if spec.wandb is not None:  # the sweep's runs form one W&B group
        spec.wandb.setdefault("group", title)
    click.echo(f"{len(variants)} settings x {seeds} seeds: {', '.join(log_dirs)}")
    if dry_run:
        return
    args = dict(
        script=SWEEP_RUN_SCRIPT,
        experiment_title=title,
        runs_per_setting=seeds,
        variants=variants,
        log_dirs=log_dirs,
        common_args=(encode_spec(spec),),
        root_log_dir=os.path.abspath(root_log_dir or RUNS_DIR),
    )
    exp_dir, failed = _launch(launcher, args, spec, cores, cluster)
    click.echo(f"Sweep folder: {exp_dir}\n  plot it: rlpyt plot {exp_dir}")
    if failed:
        raise click.ClickException(f"{failed} runs failed; their console.log files say why.")


def _sweep_spec(
    algo: str | None, grids: tuple[str, ...], sweep_file: str | None, options: dict[str, Any]
) -> tuple[RunSpec, dict[str, list[Any]], int]:
    """The common RunSpec, the grid and the seeds per setting, from the file and options."""
    try:
        data = load_sweep_file(sweep_file) if sweep_file else {}
        grid = {key: list(values) for key, values in data.get("grid", {}).items()}
        grid.update(parse_grid_option(text) for text in grids)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    algo = algo or data.get("algo")
    if algo is None:
        raise click.UsageError("Missing argument 'ALGO' (or an 'algo' entry in the --file).")
    merged = {k: v for k, v in data.items() if k not in ("set", "grid", "seeds", "algo")}
    merged.update({k: v for k, v in options.items() if v is not None and k != "overrides"})
    merged["overrides"] = {**data.get("set", {}), **options.get("overrides", {})}
    spec = spec_from_options(str(AlgorithmType().convert(algo, None, None)), **merged)
    seeds = options.get("seeds") or data.get("seeds") or 1
    return spec, grid, int(seeds)


def _check_setting(spec: RunSpec, variant: dict[str, Any], log_dir: str) -> None:
    trial = RunSpec.from_dict(spec.to_dict())
    trial.overrides.update(flatten_variant(variant))
    try:
        build_components(trial, check=True)
    except ValueError as exc:
        raise click.UsageError(f"Setting {log_dir}: {exc}") from None


def _launch(
    launcher: str, args: dict[str, Any], spec: RunSpec, cores: int | None, cluster: str | None
) -> tuple[str, int]:
    """Start the sweep; returns its folder and the number of failed runs."""
    cpu_per_run = spec.n_workers or 1
    if launcher == "submitit":
        from rlpyt.utils.launching.cluster import run_experiments_submitit  # noqa: PLC0415

        cluster_sweep = run_experiments_submitit(**args, cpus_per_run=cpu_per_run, cluster=cluster)
        return cluster_sweep.exp_dir, len(cluster_sweep.wait())
    if launcher == "ray":
        from rlpyt.utils.launching.cluster import run_experiments_ray  # noqa: PLC0415

        cluster_sweep = run_experiments_ray(**args, cpus_per_run=cpu_per_run)
        return cluster_sweep.exp_dir, len(cluster_sweep.failed)
    from rlpyt.utils.launching.affinity import encode_affinity  # noqa: PLC0415
    from rlpyt.utils.launching.cpus import allowed_cpus  # noqa: PLC0415
    from rlpyt.utils.launching.exp_launcher import run_experiments  # noqa: PLC0415

    n_cpu = cores or len(allowed_cpus())
    affinity_code = encode_affinity(
        n_cpu_core=max(n_cpu, cpu_per_run),
        cpu_per_run=cpu_per_run,
        hyperthread_offset=0,
        n_socket=1,
        alternating=spec.sampler == "alternating",
    )
    summary = run_experiments(affinity_code=affinity_code, **args)
    return summary.exp_dir, len(summary.failed)
