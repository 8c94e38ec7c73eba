"""``rlpyt tune ALGO --env ID --trials N``: hyperparameter search with Optuna, with pruning.

Box: command line (``rlpyt.cli.main`` adds this command to the ``rlpyt`` group). Each trial
is one ordinary run: Optuna suggests values for the keys of a search space (dotted config keys,
as ``--set`` takes them), :func:`rlpyt.cli.compose.build_components` composes the run, and the
runner's ``iter_train()`` yields each logged row; the row's return (``--metric``, by default
``ReturnAverage``: the trailing training return, or the evaluation return when the run
evaluates) is reported to the trial at its ``CumSteps``, and a trial the pruner judges
unpromising stops there. Every trial writes a normal run folder (playable with ``rlpyt play``).
The best trial's values are printed and saved as a file ``rlpyt train --config-file`` reads
(JSON or YAML of dotted keys).

Search spaces: :data:`SEARCH_SPACES` holds one per algorithm; ``--search-space FILE`` (JSON or
YAML) replaces it. Each entry maps a dotted key to one of

- ``{"low": a, "high": b}`` (optional ``"log": true``, ``"step": s``): a float range, or an
  integer range when ``low`` and ``high`` are both integers;
- ``{"choices": [...]}``: one of the listed values (lists such as ``[64, 64]`` allowed);
- any other value: fixed for every trial.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import time
from typing import TYPE_CHECKING, Any

import click

from rlpyt.cli.compose import build_components, recorded_config
from rlpyt.cli.errors import (
    is_known_failure,
    record_traceback,
    reported_by_runner,
    verbose_option,
)
from rlpyt.cli.options import AlgorithmType, run_options, spec_from_options
from rlpyt.cli.spec import RUNS_DIR, RunSpec
from rlpyt.utils.logging.context import logger_context, record_params_section
from rlpyt.utils.seed import make_seed

if TYPE_CHECKING:
    import optuna

DISCOUNTS = [0.9, 0.95, 0.98, 0.99, 0.995, 0.999]

_PG_COMMON: dict[str, Any] = {
    "algo.learning_rate": {"low": 1e-5, "high": 1e-2, "log": True},
    "algo.discount": {"choices": DISCOUNTS},
    "algo.entropy_loss_coeff": {"low": 1e-8, "high": 0.1, "log": True},
    "algo.gae_lambda": {"choices": [0.8, 0.9, 0.92, 0.95, 0.98, 0.99, 1.0]},
    "algo.clip_grad_norm": {"choices": [0.3, 0.5, 1.0, 2.0, 5.0]},
}
_DQN_COMMON: dict[str, Any] = {
    "algo.learning_rate": {"low": 1e-5, "high": 1e-2, "log": True},
    "algo.discount": {"choices": DISCOUNTS},
    "algo.batch_size": {"choices": [32, 64, 128, 256]},
    "algo.target_update_interval": {"choices": [64, 128, 256, 512, 1000]},
    "algo.n_step_return": {"choices": [1, 3, 5]},
    "agent.eps_final": {"choices": [0.0, 0.01, 0.04, 0.1]},
}
_QPG_COMMON: dict[str, Any] = {
    "algo.discount": {"choices": DISCOUNTS},
    "algo.batch_size": {"choices": [64, 128, 256, 512]},
    "algo.target_update_tau": {"choices": [0.001, 0.005, 0.01, 0.02]},
}
_LR = {"low": 1e-5, "high": 3e-3, "log": True}

SEARCH_SPACES: dict[str, dict[str, Any]] = {
    "ppo": {
        **_PG_COMMON,
        "algo.ratio_clip": {"choices": [0.1, 0.2, 0.3, 0.4]},
        "algo.epochs": {"low": 1, "high": 20},
        "algo.minibatches": {"choices": [1, 2, 4, 8]},
        "sampler.batch_T": {"choices": [16, 32, 64, 128, 256]},
    },
    "a2c": {
        **_PG_COMMON,
        "algo.value_loss_coeff": {"choices": [0.25, 0.5, 1.0]},
        "sampler.batch_T": {"choices": [5, 8, 16, 32]},
    },
    "dqn": dict(_DQN_COMMON),
    "catdqn": dict(_DQN_COMMON),
    "r2d1": {
        "algo.learning_rate": {"low": 1e-5, "high": 1e-3, "log": True},
        "algo.discount": {"choices": [0.99, 0.995, 0.997, 0.999]},
    },
    "ddpg": {
        **_QPG_COMMON,
        "algo.learning_rate": _LR,
        "algo.q_learning_rate": _LR,
        "agent.action_std": {"choices": [0.05, 0.1, 0.2, 0.3]},
    },
    "td3": {
        **_QPG_COMMON,
        "algo.mu_learning_rate": _LR,
        "algo.q_learning_rate": _LR,
        "agent.action_std": {"choices": [0.05, 0.1, 0.2, 0.3]},
    },
    "sac": {**_QPG_COMMON, "algo.learning_rate": _LR},
    "sac_v": {**_QPG_COMMON, "algo.learning_rate": _LR},
}
"""Algorithm name -> default search space (dotted key -> range, choices or fixed value)."""


def _optuna() -> Any:
    """The optuna module (an extra), with a clear error when it is missing."""
    try:
        import optuna  # noqa: PLC0415 (an extra: imported only when tuning)
    except ImportError:
        raise click.ClickException(
            'rlpyt tune needs Optuna, which is not installed: pip install "rlpyt[tune]"'
        ) from None
    return optuna


# -- search spaces ----------------------------------------------------------------------------


def load_search_space(path: str) -> dict[str, Any]:
    """Read a search space from a JSON or YAML file (see the module docstring).

    Raises:
        click.BadParameter: the file is missing, unreadable, or not a mapping of dotted keys.
    """
    if not os.path.isfile(path):
        raise click.BadParameter(f"{path!r} does not exist.", param_hint="--search-space")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        if path.endswith((".yaml", ".yml")):
            import yaml  # noqa: PLC0415

            space = yaml.safe_load(text)
        else:
            space = json.loads(text)
    except Exception as error:  # noqa: BLE001 (json and yaml raise different types)
        raise click.BadParameter(f"{path!r}: {error}", param_hint="--search-space") from None
    if not isinstance(space, dict) or not space:
        raise click.BadParameter(
            f"{path!r} must hold a mapping of dotted keys (e.g. algo.learning_rate) to ranges "
            '({"low": 1e-5, "high": 1e-2, "log": true}), choices ({"choices": [...]}) or fixed '
            "values.",
            param_hint="--search-space",
        )
    check_search_space(space)
    return space


def check_search_space(space: dict[str, Any]) -> None:
    """Raise ``click.BadParameter`` for keys without a section or malformed ranges."""
    for key, entry in space.items():
        if "." not in key:
            raise click.BadParameter(
                f"key {key!r} has no section: write it as --set does, e.g. algo.{key}.",
                param_hint="--search-space",
            )
        if not isinstance(entry, dict):
            continue
        if "choices" in entry:
            if not isinstance(entry["choices"], list) or not entry["choices"]:
                raise click.BadParameter(
                    f"{key}: 'choices' must be a non-empty list.", param_hint="--search-space"
                )
        elif {"low", "high"} <= set(entry):
            if not entry["low"] <= entry["high"]:
                raise click.BadParameter(
                    f"{key}: low {entry['low']} is above high {entry['high']}.",
                    param_hint="--search-space",
                )
        else:
            raise click.BadParameter(
                f"{key}: a dict entry needs 'choices', or 'low' and 'high' (got {sorted(entry)}).",
                param_hint="--search-space",
            )


def check_space_keys(base: RunSpec, space: dict[str, Any]) -> None:
    """Compose ``base`` with one value per search-space key, before any trial starts.

    Raises:
        click.UsageError: a key the run does not have (the message names the closest one).
    """
    values = {}
    for key, entry in space.items():
        if not isinstance(entry, dict):
            values[key] = entry
        else:
            values[key] = entry["choices"][0] if "choices" in entry else entry["low"]
    spec = RunSpec.from_dict(base.to_dict())
    spec.overrides = {**values, **base.overrides}
    try:
        build_components(spec, check=True)
    except ValueError as error:
        raise click.UsageError(f"The search space or --set: {error}") from None


def suggest(trial: optuna.Trial, space: dict[str, Any]) -> dict[str, Any]:
    """Draw one value per search-space key from an Optuna trial.

    Args:
        trial: An ``optuna.Trial``.
        space: The search space (see the module docstring).

    Returns:
        Dotted key -> value, fixed entries included.
    """
    values: dict[str, Any] = {}
    for key, entry in space.items():
        if not isinstance(entry, dict):
            values[key] = entry
        elif "choices" in entry:
            values[key] = _suggest_choice(trial, key, entry["choices"])
        elif isinstance(entry["low"], int) and isinstance(entry["high"], int):
            step = int(entry.get("step", 1))
            log = bool(entry.get("log", False))
            values[key] = trial.suggest_int(key, entry["low"], entry["high"], step=step, log=log)
        else:
            values[key] = trial.suggest_float(
                key,
                float(entry["low"]),
                float(entry["high"]),
                step=entry.get("step"),
                log=bool(entry.get("log", False)),
            )
    return values


def _suggest_choice(trial: optuna.Trial, key: str, choices: list[Any]) -> Any:
    """Optuna takes only scalar choices: others (``[64, 64]``) go through their JSON text."""
    if all(c is None or isinstance(c, bool | int | float | str) for c in choices):
        return trial.suggest_categorical(key, choices)
    return json.loads(trial.suggest_categorical(key, [json.dumps(c) for c in choices]))


# -- trials -----------------------------------------------------------------------------------


class TrialRunner:
    """The objective of the study: one run per trial, reporting each logged row.

    Args:
        base: The run every trial starts from (algo, env, sampler, steps, fixed ``--set``).
        space: The search space.
        metric: Progress column reported and maximized (e.g. ``ReturnAverage``).
        study_dir: Folder of the trials' run folders (``run_<trial number>``).
    """

    def __init__(self, base: RunSpec, space: dict[str, Any], metric: str, study_dir: str):
        self.base = base
        self.space = space
        self.metric = metric
        self.study_dir = study_dir

    def spec(self, values: dict[str, Any], number: int) -> RunSpec:
        """The RunSpec of trial ``number``: the base run with the trial's values set."""
        spec = RunSpec.from_dict(self.base.to_dict())
        spec.overrides = {**values, **self.base.overrides}  # --set wins over the space
        spec.log_dir = self.study_dir
        spec.run_ID = number
        return spec

    def check_metric(self, row: dict[str, Any]) -> None:
        """Raise ``click.UsageError`` when the logged rows have no ``metric`` column."""
        if self.metric in row:
            return
        close = difflib.get_close_matches(self.metric, list(row), n=1, cutoff=0.5)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise click.UsageError(
            f"--metric {self.metric!r} is not a logged column.{hint} The runs log: "
            f"{', '.join(sorted(row))}."
        )

    def __call__(self, trial: optuna.Trial) -> float:
        """Run trial ``trial``; returns the metric's last value (raises ``TrialPruned``)."""
        optuna = _optuna()
        spec = self.spec(suggest(trial, self.space), trial.number)
        trial.set_user_attr("values", spec.overrides)  # what the run used: the saved config
        try:
            components = build_components(spec)
        except ValueError as error:  # an unknown key: the same for every trial, so stop
            raise click.UsageError(f"Trial {trial.number}: {error}") from None
        runner = components.make_runner()
        last = math.nan
        name = spec.name or f"tune_{spec.algo}"
        with logger_context(
            self.study_dir,
            trial.number,
            name,
            recorded_config(spec, components),
            snapshot_mode="last",
            override_prefix=True,
        ):
            record_params_section("cli", spec.to_dict())  # as rlpyt train: playable
            rows = runner.iter_train()
            try:
                with reported_by_runner():  # the runner's last line says how a trial failed
                    for row in rows:
                        self.check_metric(row)
                        value, step = row.get(self.metric), row.get("Diagnostics/CumSteps")
                        if value is None or not math.isfinite(value) or step is None:
                            continue  # no completed trajectory yet: nothing to report
                        last = float(value)
                        trial.report(last, int(step))
                        if trial.should_prune():
                            raise optuna.TrialPruned(f"{self.metric} {last:g} at step {int(step)}")
            except Exception as error:  # the terminal gets one message (rlpyt.cli.errors)
                if is_known_failure(error):  # (not a pruned trial or a usage error)
                    record_traceback(error, os.path.join(self.study_dir, f"run_{trial.number}"))
                raise
            finally:
                rows.close()  # stops the runner's loop and shuts its sampler down
        return last


def make_pruner(name: str, startup_trials: int, warmup_steps: int) -> Any:
    """``MedianPruner(startup_trials, warmup_steps)`` for "median", ``NopPruner`` for "none"."""
    optuna = _optuna()
    if name == "none":
        return optuna.pruners.NopPruner()
    return optuna.pruners.MedianPruner(n_startup_trials=startup_trials, n_warmup_steps=warmup_steps)


def best_config(study: optuna.Study) -> dict[str, Any]:
    """The best trial's overrides as dotted keys: its search-space values, then ``--set``'s."""
    return dict(study.best_trial.user_attrs["values"])


def save_config(values: dict[str, Any], path: str) -> None:
    """Write ``values`` (dotted keys) as JSON, or YAML for a ``.yaml``/``.yml`` path."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        if path.endswith((".yaml", ".yml")):
            import yaml  # noqa: PLC0415

            yaml.safe_dump(values, f, sort_keys=True)
        else:
            json.dump(values, f, indent=2, sort_keys=True)
            f.write("\n")


def _trial_line(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
    """Optuna callback: one line per finished trial."""
    state = trial.state.name.lower()
    if state == "fail":  # the objective returned NaN
        click.echo(f"Trial {trial.number} failed: no finite value logged (no episode ended?).")
        return
    value = "" if trial.value is None else f" {trial.value:g}"
    steps = max(trial.intermediate_values, default=None)
    at = "" if steps is None else f" (last report at step {steps})"
    click.echo(f"Trial {trial.number} {state}{value}{at}: {trial.params}")


def _study_dir(algo: str, env: str | None) -> str:
    """``runs/tune/<algo>_<env>_<yyyymmdd-HHMMSS>``: a new folder per study."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    env_name = (env or "default").replace("/", "_")
    return os.path.join(RUNS_DIR, "tune", f"{algo}_{env_name}_{stamp}")


def _space_for(algo: str, path: str | None) -> dict[str, Any]:
    if path is not None:
        return load_search_space(path)
    if algo not in SEARCH_SPACES:
        raise click.UsageError(
            f"No default search space for {algo}: give one with --search-space FILE."
        )
    return SEARCH_SPACES[algo]


TUNE_HELP = """Search ALGO's hyperparameters on an env with Optuna, pruning unpromising trials.

Each trial is one run (a run folder under --log-dir, playable with `rlpyt play`) with values
drawn from the search space; every log row reports --metric at its env step, and the median
pruner stops a trial whose best value so far is below the median of the finished trials at
that step. All trials use the same --seed, so they differ only by their values. The best
values are printed and saved to --out, for `rlpyt train ALGO --env ID --config-file FILE`.

\b
Search space: the algorithm's default (SEARCH_SPACES in rlpyt/cli/tune.py), or a JSON/YAML
file of dotted keys, each a range, a list of choices or a fixed value:
  {"algo.learning_rate": {"low": 1e-5, "high": 1e-2, "log": true},
   "algo.epochs": {"low": 1, "high": 20},
   "model.hidden_sizes": {"choices": [[64, 64], [256, 256]]},
   "algo.discount": 0.99}

\b
Example:
  rlpyt tune ppo --env CartPole-v1 --trials 20 --steps 50000 --out best.json
  rlpyt train ppo --env CartPole-v1 --config-file best.json
"""


@click.command(help=TUNE_HELP, short_help="Search hyperparameters with Optuna (pruning).")
@click.argument("algo", type=AlgorithmType())
@run_options
@click.option(
    "--trials",
    default=20,
    show_default=True,
    type=click.IntRange(min=1),
    help="Trials (runs) in the study.",
)
@click.option(
    "--search-space",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="JSON/YAML file replacing the algorithm's default search space.",
)
@click.option(
    "--pruner",
    type=click.Choice(["median", "none"]),
    default="median",
    show_default=True,
    help="median: stop a trial below the median of finished trials at a step.",
)
@click.option(
    "--startup-trials",
    default=5,
    show_default=True,
    type=click.IntRange(min=0),
    help="Trials that must finish before the median pruner prunes any.",
)
@click.option(
    "--warmup-steps",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="Env steps of each trial before the pruner judges it.",
)
@click.option(
    "--metric",
    default="ReturnAverage",
    show_default=True,
    help="Progress column reported and maximized (e.g. GameScoreAverage on Atari).",
)
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder of the study's run folders. Default: runs/tune/<algo>_<env>_<time>.",
)
@click.option(
    "--out",
    default="best.json",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="File for the best values (.json, or .yaml), for rlpyt train --config-file.",
)
@verbose_option
def tune(
    algo: str,
    trials: int,
    search_space: str | None,
    pruner: str,
    startup_trials: int,
    warmup_steps: int,
    metric: str,
    log_dir: str | None,
    out: str,
    **options: Any,
) -> None:
    """See TUNE_HELP (click shows it)."""  # noqa: D401
    optuna = _optuna()
    space = _space_for(algo, search_space)
    base = spec_from_options(algo, **options)
    if base.seed is None:
        base.seed = make_seed()
    check_space_keys(base, space)
    study_dir = os.path.abspath(log_dir or _study_dir(algo, base.env))
    objective = TrialRunner(base, space, metric, study_dir)
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # one line per trial: _trial_line
    study = optuna.create_study(
        direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=base.seed),
        pruner=make_pruner(pruner, startup_trials, warmup_steps),
    )
    click.echo(f"Tuning {algo} (seed {base.seed}) over {sorted(space)}; runs in {study_dir}.")
    study.optimize(objective, n_trials=trials, callbacks=[_trial_line])
    _report(study, out)


def _report(study: optuna.Study, out: str) -> None:
    optuna = _optuna()
    states = [t.state for t in study.trials]
    pruned = states.count(optuna.trial.TrialState.PRUNED)
    complete = states.count(optuna.trial.TrialState.COMPLETE)
    click.echo(f"{len(states)} trials: {complete} complete, {pruned} pruned.")
    if not any(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials):
        raise click.ClickException(
            "No trial completed with a finite value (none logged a completed episode, or all "
            "were pruned): give each trial more --steps, or fewer --startup-trials."
        )
    values = best_config(study)
    save_config(values, out)
    click.echo(f"Best trial {study.best_trial.number}: {study.best_value:g}")
    for key, value in sorted(values.items()):
        click.echo(f"  {key} = {value!r}")
    click.echo(f"Saved to {out}: rlpyt train ... --config-file {out}")
