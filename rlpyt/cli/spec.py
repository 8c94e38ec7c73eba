"""The run spec: everything that describes one command-line run, as plain data.

Box: command line, the input of the pipeline ``RunSpec`` -> :func:`rlpyt.cli.resolve.resolve`
-> :func:`rlpyt.cli.config.build_config` -> :func:`rlpyt.cli.compose.instantiate`.
``rlpyt train`` records ``spec.to_dict()`` under ``"cli"`` in params.json; ``rlpyt play`` and
``rlpyt train --resume`` rebuild the run from it (``RunSpec.from_dict``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RUNS_DIR", "RunSpec"]

RUNS_DIR = "runs"
"""Where every ``rlpyt`` command writes by default, under the working directory: ``train``
``runs/<algo>_<env>/run_<N>``, ``sweep`` ``runs/local/<yyyymmdd>/<HHMMSS>/<title>``, ``tune``
``runs/tune/<algo>_<env>_<yyyymmdd-HHMMSS>``. (Scripts under ``logger_context`` and
``run_experiments`` write to ``data/`` instead: ``rlpyt.utils.logging.context.LOG_DIR``.)"""


@dataclass
class RunSpec:
    """Everything that describes one command-line run (JSON-serializable).

    Attributes:
        algo: Algorithm name (a key of :data:`rlpyt.cli.registry.ALGORITHMS`).
        env: Env id or Atari game; None: the env of the config.
        sampler: One of :data:`rlpyt.cli.registry.SAMPLERS`.
        n_workers: Worker processes of a parallel sampler (None: one per allowed CPU, at most
            one per env).
        steps: Env steps to train (None: the config's ``runner.n_steps``).
        seed: Global seed (None: random, recorded in params.json).
        overrides: Dotted keys -> values applied last (``{"algo.learning_rate": 3e-4}``).
        config: ``"module:key"`` under ``rlpyt.experiments.configs`` or a key of the default
            config module; None: the algorithm's default for the env kind.
        config_file: JSON/YAML file merged onto the config (nested sections, or dotted keys as
            ``rlpyt tune`` writes them).
        target_reward: Stop once the trailing average return reaches this (None: never).
        log_dir: Folder the run folder goes in.
        tensorboard: Also write TensorBoard event files.
        eval_episodes: Offline evaluation episodes per log point: None as the config says,
            0 none (training trajectories are logged), N > 0 N episodes (an ``*Eval`` runner).
        log_interval_steps: Env steps between log rows (None: the config's, at most ``steps``).
        run_ID: Run number within ``log_dir``.
        name: Experiment name (None: the env id).
        runner: ``"minibatch"``, ``"sync"`` or ``"async"`` (None: what the config is written
            for: ``async`` where its ``algo`` sets ``updates_per_sync``, else ``minibatch``).
        ranks: Processes of a ``sync`` run started by the CLI (None: 2; under torchrun, the
            torchrun processes are the ranks).
        vector: Batched envs: ``"gymnasium"`` or ``"envpool"`` (None: one env object per env,
            unless the config's env is written for a backend).
        check_finite: False: the runner does not stop on a non-finite loss, gradient or
            parameter (``check_finite=False``).
        snapshot_replay: Snapshots hold the replay buffer (``algo.snapshot_replay=True``).
        wandb: Also log to Weights & Biases: ``logger_context``'s ``wandb`` dict (project,
            entity, group, tags; ``{}`` for W&B's defaults); None: no W&B.
        cuda_idx: The GPU that trains (the runner's ``affinity["cuda_idx"]``; every rank of a
            ``sync`` run, the optimizer of an ``async`` one); None: the CPU.
        torch_threads: Torch intra-op threads of the training process (the affinity's
            ``master_torch_threads``; an ``async`` run's optimizer ``torch_threads``); None:
            decided from its CPUs and model (:mod:`rlpyt.utils.launching.threads`).
        cpus: OS CPU numbers the run's processes are restricted to, as under ``taskset``;
            None: every CPU this process may use.
    """

    algo: str
    env: str | None = None
    sampler: str = "serial"
    n_workers: int | None = None
    steps: int | None = None
    seed: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    config: str | None = None
    config_file: str | None = None
    target_reward: float | None = None
    log_dir: str = RUNS_DIR
    tensorboard: bool = False
    eval_episodes: int | None = None
    log_interval_steps: int | None = None
    run_ID: int = 0  # noqa: N815 (rlpyt's name)
    name: str | None = None
    runner: str | None = None
    ranks: int | None = None
    vector: str | None = None
    check_finite: bool = True
    snapshot_replay: bool = False
    wandb: dict[str, Any] | None = None
    cuda_idx: int | None = None
    torch_threads: int | None = None
    cpus: list[int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable dict (``from_dict`` inverts it)."""
        return json.loads(json.dumps(dataclasses.asdict(self)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSpec:
        """Rebuild from :meth:`to_dict`; keys this version does not know are ignored."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})
