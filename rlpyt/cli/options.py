"""Command-line options shared by ``rlpyt train``, ``sweep`` and ``tune``.

Box: command line. :func:`run_options` adds the options that describe one run (env, sampler,
steps, seed, ``--set``, config, evaluation) to a click command; :func:`spec_from_options`
turns their values into a :class:`~rlpyt.cli.spec.RunSpec`. :class:`AlgorithmType` is the
``ALGO`` argument: the registered names, with the closest one suggested on a typo.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

import click

from rlpyt.cli.overrides import parse_assignments
from rlpyt.cli.registry import ALGORITHMS, RUNNER_KINDS, SAMPLERS, VECTOR_BACKENDS
from rlpyt.cli.spec import RunSpec


class AlgorithmType(click.Choice):
    """The ``ALGO`` argument: one of :data:`~rlpyt.cli.registry.ALGORITHMS`."""

    name = "algorithm"

    def __init__(self) -> None:
        super().__init__(list(ALGORITHMS), case_sensitive=False)

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> Any:
        """The lower-case name; an unknown one fails naming the closest and all of them."""
        if isinstance(value, str) and value.lower() in ALGORITHMS:
            return value.lower()
        close = difflib.get_close_matches(str(value).lower(), list(ALGORITHMS), n=1, cutoff=0.4)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        self.fail(
            f"unknown algorithm {value!r}.{hint} Choose one of: {', '.join(ALGORITHMS)}.",
            param,
            ctx,
        )


def algorithms_help() -> str:
    """One line per algorithm: name, summary and the env kinds it runs on (for ``--help``)."""
    width = max(len(name) for name in ALGORITHMS)
    return "\n".join(
        f"  {name:<{width}}  {entry.summary} [{', '.join(entry.agents)}]"
        for name, entry in ALGORITHMS.items()
    )


def _cpus_callback(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> list[int] | None:
    """``--cpus``: a CPU list this process may use, or a usage error saying which it may."""
    if value is None:
        return None
    from rlpyt.utils.launching.cpus import check_allowed_cpus, parse_cpu_list  # noqa: PLC0415

    try:
        return list(check_allowed_cpus(parse_cpu_list(value)))
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


def _set_callback(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict:
    try:
        return parse_assignments(values)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


RUN_OPTIONS: list[Callable[[Callable], Callable]] = [
    click.option("--env", "env", metavar="ID", default=None,
                 help="Gymnasium env id (CartPole-v1, Pendulum-v1, HalfCheetah-v5) or Atari game "
                      "(pong, ALE/Pong-v5). Default: the env of the algorithm's default config."),
    click.option("--sampler", type=click.Choice(list(SAMPLERS)), default="serial",
                 show_default=True,
                 help="serial: one process; cpu: worker processes step envs and run the agent; "
                      "gpu: workers step envs, the agent runs batched in the main process; "
                      "alternating: gpu with two worker groups that overlap."),
    click.option("--runner", type=click.Choice(RUNNER_KINDS), default=None,
                 help="minibatch: sampling and training in turn (MinibatchRl); sync: "
                      "data-parallel ranks, each a full replica (SyncRl; --ranks, or start "
                      "under torchrun); async: sampler and optimizer in separate processes "
                      "(AsyncRl; replay algorithms). Default: what the config is written for "
                      "(async for configs with algo.updates_per_sync), else minibatch."),
    click.option("--ranks", type=click.IntRange(min=1), default=None,
                 help="Processes of a --runner sync run (gloo on CPU). Default: 2; under "
                      "torchrun, its processes."),
    click.option("--vector", type=click.Choice(VECTOR_BACKENDS), default=None,
                 help="Batched envs, stepped B at a time: gymnasium (gymnasium's vector envs, "
                      "the native vectorized env where the id has one) or envpool (the envpool "
                      "extra; Atari games and the envs it ships). Default: one env object per "
                      "env, unless the config is written for a backend."),
    click.option("--cuda-idx", "cuda_idx", type=click.IntRange(min=0), default=None,
                 metavar="N",
                 help="Train on GPU N (the runner's affinity cuda_idx; with --sampler gpu or "
                      "alternating the sampler's batched forward runs there too). Default: "
                      "the CPU."),
    click.option("--cpus", "cpus", metavar="LIST", default=None, callback=_cpus_callback,
                 help="Run only on these CPUs (e.g. 0-3 or 0,2), as under taskset: the run's "
                      "processes stay on them, and worker counts and torch threads are decided "
                      "from them (the affinity's master_cpus/workers_cpus in a script). Default: "
                      "every CPU this process may use."),
    click.option("--torch-threads", "torch_threads", type=click.IntRange(min=1), default=None,
                 metavar="N",
                 help="Torch threads of the training process (the affinity's "
                      "master_torch_threads; the optimizer's torch_threads under --runner "
                      "async), at most its CPUs, fixed for the run. Default: one for small "
                      "MLPs; for larger and convolutional models one per CPU it may use, fewer "
                      "while other processes keep CPUs busy. The run's start-up line says what "
                      "was decided and why (docs/samplers.md, On a shared machine)."),
    click.option("--n-workers", type=click.IntRange(min=1), default=None,
                 help="Worker processes of a parallel sampler. Default: one per allowed CPU "
                      "(at most one per env)."),
    click.option("--steps", type=click.IntRange(min=1), default=None,
                 help="Env steps to train. Default: the config's runner.n_steps."),
    click.option("--seed", type=int, default=None,
                 help="Global seed. Default: random (recorded in params.json)."),
    click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
                 callback=_set_callback,
                 help="Override one config entry, e.g. --set algo.learning_rate=3e-4 --set "
                      "model.hidden_sizes=[32,32] (repeatable; values are Python literals). "
                      "Unknown keys fail with the list of valid keys."),
    click.option("--config", "config", metavar="[MODULE:]KEY", default=None,
                 help="Start from another config of rlpyt/experiments/configs, e.g. "
                      "atari.dqn.atari_dqn:double, or a KEY of the default config's module."),
    click.option("--config-file", type=click.Path(exists=True, dir_okay=False), default=None,
                 help="JSON or YAML merged onto the config: nested sections, or dotted keys "
                      "as `rlpyt tune` writes them."),
    click.option("--eval-episodes", type=click.IntRange(min=0), default=None,
                 help="Evaluation episodes at every log point (0: none, log the training "
                      "episodes). Default: as the config says (the replay algorithms evaluate)."),
    click.option("--log-interval", "log_interval_steps", type=click.IntRange(min=1),
                 default=None,
                 help="Env steps between log rows (whole iterations; a row at the end "
                      "always). Default: the config's runner.log_interval_steps where it gives "
                      "at least 10 rows, else 10-20 rows over --steps (at most 100000 apart)."),
    click.option("--check-finite/--no-check-finite", "check_finite", default=True,
                 show_default=True,
                 help="Stop the run at the first iteration whose loss, gradient norm or "
                      "parameters are not finite (NaN/inf), before its snapshot. "
                      "--no-check-finite: train on (the runner's check_finite=False)."),
    click.option("--snapshot-replay", is_flag=True, default=False,
                 help="Snapshots hold the replay buffer, so a resumed run continues with it "
                      "(replay algorithms; algo.snapshot_replay=True; large for Atari)."),
]  # fmt: skip


def run_options(command: Callable) -> Callable:
    """Decorate a click command with :data:`RUN_OPTIONS` (in that order in ``--help``)."""
    for option in reversed(RUN_OPTIONS):
        command = option(command)
    return command


def spec_from_options(algo: str, **options: Any) -> RunSpec:
    """A RunSpec from the values of :data:`RUN_OPTIONS` (and any other RunSpec fields given).

    Args:
        algo: The algorithm name.
        **options: Option values by parameter name; those that are not RunSpec fields, or
            None (not given), are left out.
    """
    names = set(RunSpec.__dataclass_fields__)
    fields = {k: v for k, v in options.items() if k in names and v is not None}
    fields["overrides"] = dict(fields.get("overrides") or {})
    return RunSpec(algo=algo, **fields)
