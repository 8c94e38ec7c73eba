"""``rlpyt train``: one training run from the command line, and resuming one.

Box: command line. The command turns its options into a :class:`~rlpyt.cli.spec.RunSpec`;
:func:`run_training` composes the run with :func:`~rlpyt.cli.compose.build_components` and
trains it inside ``logger_context`` exactly as a train script would, recording the spec under
``"cli"`` in params.json (``rlpyt play`` and ``--resume`` rebuild the run from it). ``rlpyt
sweep`` runs :func:`run_training` in each of its runs.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import click

from rlpyt.cli.compose import (
    Components,
    build_components,
    env_name,
    recorded_config,
    with_torch_threads,
)
from rlpyt.cli.errors import record_traceback, reported_by_runner, verbose_option
from rlpyt.cli.options import AlgorithmType, algorithms_help, run_options, spec_from_options
from rlpyt.cli.spec import RUNS_DIR, RunSpec
from rlpyt.cli.wandb_options import check_wandb, wandb_from_options, wandb_options

SNAPSHOT_MODES = ("last", "all", "none")
RUN_FOLDER = re.compile(r"^run_(\d+)$")


def run_training(
    spec: RunSpec,
    *,
    resume: bool = False,
    affinity: dict | None = None,
    snapshot_mode: str = "last",
    components: Components | None = None,
) -> tuple[str | None, dict[str, Any] | None]:
    """Compose and train the run ``spec`` describes; returns ``(run folder, last row)``.

    The run folder is None in the ranks other than 0 of a ``--runner sync`` run started by
    torchrun (rank 0 writes the folder and reports it).

    Args:
        spec: The run; ``spec.log_dir`` holds the run folder ``run_<spec.run_ID>``.
        resume: Continue the run in that folder from its newest snapshot.
        affinity: The runner's affinity (a sweep's run slot) for a ``minibatch`` run; None,
            or a ``sync`` or ``async`` run: the spec's.
        snapshot_mode: ``logger_context``'s snapshot mode.
        components: ``build_components(spec)`` when the caller made it already.

    Raises:
        ValueError: the spec names something that does not exist (see ``build_components``).
    """
    from rlpyt.utils.logging.context import record_params_section  # noqa: PLC0415 (quick start)

    if components is None:
        components = build_components(spec)
    if affinity is not None and components.runner_kind == "minibatch":
        # sync and async keep their own form
        components.runner_kwargs["affinity"] = with_torch_threads(affinity, spec.torch_threads)
    runner = components.make_runner()
    run_dir = os.path.join(spec.log_dir, f"run_{spec.run_ID}")
    runner.resume_hint = f"rlpyt train --resume {run_dir}"  # the runner's hints speak CLI
    name = spec.name or env_name(components.env_kwargs)
    row = None
    try:
        with run_context(components)(
            spec.log_dir,
            spec.run_ID,
            name,
            recorded_config(spec, components),
            snapshot_mode,
            use_summary_writer=spec.tensorboard,
            resume=resume,
            wandb=spec.wandb,
        ) as run_dir:
            record_params_section("cli", spec.to_dict())
            with reported_by_runner():
                for logged in runner.iter_train(resume_from=True if resume else None):
                    row = logged
    except Exception as error:  # the terminal gets one message (rlpyt.cli.errors)
        record_traceback(error, run_dir)
        raise
    return run_dir, row


def run_context(components: Components) -> Any:
    """``logger_context``; for ``--runner sync``, its twin that only rank 0 opens."""
    if components.runner_kind == "sync":
        from rlpyt.runners.sync_rl import sync_logger_context  # noqa: PLC0415

        return sync_logger_context
    from rlpyt.utils.logging.context import logger_context  # noqa: PLC0415

    return logger_context


def default_log_dir(algo: str, env: str | None) -> str:
    """``runs/<algo>_<env>`` (``/`` in the env id becomes ``_``) under the working directory."""
    slug = (env or "default").replace("/", "_")
    return os.path.abspath(os.path.join(RUNS_DIR, f"{algo}_{slug}"))


def next_run_id(log_dir: str) -> int:
    """One more than the largest ``run_<N>`` in ``log_dir`` (0 when there is none)."""
    if not os.path.isdir(log_dir):
        return 0
    taken = [int(m.group(1)) for name in os.listdir(log_dir) if (m := RUN_FOLDER.match(name))]
    return max(taken, default=-1) + 1


def resume_spec(run_dir: str) -> RunSpec:
    """The RunSpec ``rlpyt train`` recorded in ``run_dir``, pointed at that folder.

    Raises:
        click.UsageError: not a run folder of ``rlpyt train``, or no readable snapshot in
            it; the message says what to do instead.
    """
    run_dir = os.path.abspath(run_dir)
    params_path = os.path.join(run_dir, "params.json")
    match = RUN_FOLDER.match(os.path.basename(run_dir))
    if not os.path.isfile(params_path) or match is None:
        raise click.UsageError(
            f"{run_dir} is not a run folder (a run_<N> folder with params.json). Pass the run "
            "folder `rlpyt train` printed, e.g. runs/ppo_CartPole-v1/run_0."
        )
    with open(params_path, encoding="utf-8") as f:
        params = json.load(f)
    if "cli" not in params:
        raise click.UsageError(
            f"{run_dir} was not made by `rlpyt train` (params.json has no 'cli' section). "
            "Resume it with the script that made it: logger_context(..., resume=True) and "
            "runner.train(resume_from=True)."
        )
    check_snapshot(run_dir)
    spec = RunSpec.from_dict(params["cli"])
    spec.log_dir, spec.run_ID = os.path.dirname(run_dir), int(match.group(1))
    return spec


def check_new_run_folder(run_dir: str) -> None:
    """Raise ``click.UsageError`` if ``run_dir`` (from ``--run-id``) holds a run's rows already."""
    progress = os.path.join(run_dir, "progress.csv")
    if os.path.isfile(progress) and os.path.getsize(progress) > 0:
        raise click.UsageError(
            f"{run_dir} holds a run already (its progress.csv has rows). Continue it with "
            f"`rlpyt train --resume {run_dir}`, or start a new run with another --run-id or "
            "--log-dir (without --run-id, the next free number is used)."
        )


def check_snapshot(run_dir: str) -> None:
    """Raise ``click.UsageError`` unless ``run_dir``'s newest snapshot exists and loads."""
    from rlpyt.runners.snapshot import (  # noqa: PLC0415
        UnreadableSnapshotError,
        find_snapshot,
        load_snapshot,
    )

    try:
        load_snapshot(find_snapshot(run_dir))
    except FileNotFoundError:
        raise click.UsageError(
            f"No snapshot in {run_dir} (params.pkl or itr_<N>.pkl), so there is nothing to "
            "resume: the run used --snapshot-mode none or stopped before its first log point. "
            "Start it again with `rlpyt train`."
        ) from None
    except UnreadableSnapshotError as exc:
        raise click.UsageError(
            f"Cannot resume {run_dir}: {exc} Start the run again with `rlpyt train`, or "
            "restore the snapshot file."
        ) from None


TRAIN_HELP = f"""Train ALGO on an env: one run folder with progress.csv, params.json, snapshots.

\b
Algorithms [env kinds they run on]:
{algorithms_help()}

The run starts from the algorithm's tuned config for the kind of env (CartPole, Pendulum,
MuJoCo, Atari; see --show-config), changed by --config, --config-file and --set. It stops
early once the trailing average return (ReturnAverage) reaches --target-reward.

\b
Examples:
  rlpyt train ppo --env CartPole-v1 --target-reward 475
  rlpyt train sac --env Pendulum-v1 --steps 20000 --set algo.learning_rate=3e-4
  rlpyt train dqn --env pong --sampler cpu --n-workers 4 --config atari.dqn.atari_dqn:double
  rlpyt train --resume runs/ppo_CartPole-v1/run_0 --steps 200000
"""


@click.command(help=TRAIN_HELP, short_help="Train an algorithm on an env (one run).")
@click.argument("algo", type=AlgorithmType(), required=False, metavar="ALGO")
@run_options
@click.option(
    "--target-reward",
    type=float,
    default=None,
    help="Stop once the trailing average return (ReturnAverage) reaches this.",
)
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for the run folder run_<ID>. Default: runs/<algo>_<env>.",
)
@click.option(
    "--run-id",
    "run_ID",
    type=click.IntRange(min=0),
    default=None,
    help="Run number (folder run_<ID>). Default: the next free one.",
)
@click.option("--name", default=None, help="Experiment name in the logs. Default: the env.")
@click.option("--tensorboard", is_flag=True, help="Also write TensorBoard event files.")
@wandb_options
@click.option(
    "--snapshot-mode",
    type=click.Choice(SNAPSHOT_MODES),
    default="last",
    show_default=True,
    help="Snapshots kept: the newest (resumable, playable), every log point, none.",
)
@click.option(
    "--resume",
    "resume_dir",
    type=click.Path(file_okay=False),
    default=None,
    metavar="RUN_DIR",
    help="Continue the run in RUN_DIR from its newest snapshot with its recorded "
    "settings (--steps, --target-reward and --no-check-finite may change; other options "
    "are ignored).",
)
@click.option(
    "--show-config",
    is_flag=True,
    help="Print the composed config (after --config and --set) and exit.",
)
@verbose_option
def train(
    algo: str | None,
    resume_dir: str | None,
    show_config: bool,
    snapshot_mode: str,
    **options: Any,
) -> None:
    """See TRAIN_HELP (click shows it)."""  # noqa: D401
    options["wandb"] = wandb_from_options(options)  # a resumed run keeps its recorded W&B
    if resume_dir is not None:
        spec = resume_spec(resume_dir)
        for key in ("steps", "target_reward"):
            if options[key] is not None:
                setattr(spec, key, options[key])
        spec.check_finite = spec.check_finite and options["check_finite"]
    elif algo is None:
        raise click.UsageError("Missing argument 'ALGO' (or pass --resume RUN_DIR).")
    else:
        spec = spec_from_options(algo, **options)
        spec.log_dir = options["log_dir"] or default_log_dir(algo, spec.env)
        spec.log_dir = os.path.abspath(spec.log_dir)
    if not show_config:
        check_wandb(spec.wandb)  # before anything is built or written
    components = _compose(spec, check=not show_config)
    if show_config:
        click.echo(json.dumps(components.config, indent=2))
        return
    if resume_dir is None and options["run_ID"] is None:
        spec.run_ID = next_run_id(spec.log_dir)
    elif resume_dir is None:
        check_new_run_folder(os.path.join(spec.log_dir, f"run_{spec.run_ID}"))
    run_dir, row = run_training(
        spec, resume=resume_dir is not None, snapshot_mode=snapshot_mode, components=components
    )
    if run_dir is not None:  # None: a rank other than 0 under torchrun (rank 0 reports)
        _report(run_dir, row)


def _compose(spec: RunSpec, check: bool) -> Components:
    try:
        return build_components(spec, check=check)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def _report(run_dir: str, row: dict | None) -> None:
    value = None if row is None else row.get("ReturnAverage")
    if value is not None:
        click.echo(f"Last ReturnAverage: {value:.4g}")
    click.echo(f"Run folder: {run_dir}")
    click.echo(f"  watch the curve:  rlpyt plot {run_dir}")
    click.echo(f"  play the agent:   rlpyt play {run_dir} --episodes 5")
    click.echo(f"  train further:    rlpyt train --resume {run_dir} --steps N")
