"""Run a sweep on a cluster: the same train scripts as ``run_experiments``, through submitit or Ray.

Part of the launching box; called from launch scripts that outgrow one machine.
:func:`run_experiments_submitit` submits one job per run (Slurm, or submitit's local
executor); :func:`run_experiments_ray` runs one Ray Tune trial per run on a Ray cluster. Both
keep rlpyt's on-disk layout and command-line contract: the sweep folder is
``get_log_dir(experiment_title, root_log_dir)`` with ``experiments_tree.txt``,
``num_launched.txt`` and one folder per setting holding ``variant_config.json``, and each job
starts::

    <python> <script> <slot_affinity_code> <log_dir> <run_ID> <*common_args> <*run_args>

The affinity code describes the CPUs the job got (:func:`allocation_affinity_code`). The
engines are optional extras, imported only when called: ``pip install "rlpyt[slurm]"`` for
submitit, ``pip install "rlpyt[ray]"`` for Ray Tune. Invariant: the engines' own files
(submitit pickles and logs, Ray's trial folders) never land inside a run folder.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rlpyt.utils.launching.affinity import encode_affinity, prepend_run_slot
from rlpyt.utils.launching.cpus import ALLOWED_CPUS_ENV
from rlpyt.utils.launching.exp_launcher import log_exps_tree, log_num_launched
from rlpyt.utils.launching.variant import save_variant

if TYPE_CHECKING:
    import submitit

# Without Tune's own loggers, its result analysis warns that trial metrics are missing.
_TUNE_ANALYSIS_LOGGER = "ray.tune.analysis.experiment_analysis"


@dataclasses.dataclass
class ClusterRun:
    """One run of a cluster sweep: where it logs, its engine id, and how it ended."""

    log_dir: str
    run_ID: int  # noqa: N815 (rlpyt's name)
    job_id: str = ""
    done: bool = False
    error: str | None = None  # The job's error (a failed train script, a lost node), if any.


@dataclasses.dataclass
class ClusterSweep:
    """A submitted sweep: its folder, its runs, and the engine's job handles."""

    exp_dir: str
    runs: list[ClusterRun]
    jobs: list[Any] = dataclasses.field(default_factory=list)

    @property
    def failed(self) -> list[ClusterRun]:
        """Runs that finished with an error."""
        return [run for run in self.runs if run.error is not None]

    def wait(self) -> list[ClusterRun]:
        """Block until every submitit job has ended; returns the runs that failed."""
        for run, job in zip(self.runs, self.jobs, strict=True):
            try:
                job.result()
            except Exception as error:  # noqa: BLE001 (any job failure is reported, not raised)
                run.error = f"{type(error).__name__}: {error}"
            run.done = True
        return self.failed


def allocation_affinity_code(n_cpu: int, set_affinity: bool) -> str:
    """Slot code for a job owning ``n_cpu`` CPUs: one run, all its CPUs, hyperthreads as cores."""
    code = encode_affinity(
        n_cpu_core=n_cpu,
        cpu_per_run=n_cpu,
        hyperthread_offset=0,
        n_socket=1,
        set_affinity=set_affinity,
    )
    return prepend_run_slot(0, code)


def run_train_script(
    script: str,
    log_dir: str,
    run_ID: int,  # noqa: N803 (rlpyt's name)
    args: Sequence[str] = (),
    cpus_per_run: int | None = None,
    python_executable: str | None = None,
) -> int:
    """Job body: run one train script on this job's CPUs; raises if the script fails.

    The CPUs are those the OS lets this process use. When that set is exactly the allocation
    (a Slurm cgroup, or ``cpus_per_run`` is None) the run may pin to it; when the process
    could use more (submitit's local executor, a Ray worker) the run is told ``cpus_per_run``
    cores and pins nothing, so concurrent jobs do not pile onto the same CPUs.

    Returns:
        0, the script's exit code.

    Raises:
        subprocess.CalledProcessError: the script exited with a non-zero code.
    """
    if hasattr(os, "sched_getaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
    else:
        cpus = list(range(os.cpu_count() or 1))
    n_cpu = len(cpus) if cpus_per_run is None else min(cpus_per_run, len(cpus))
    slot_code = allocation_affinity_code(n_cpu, set_affinity=n_cpu == len(cpus))
    command = [python_executable or sys.executable, script, slot_code, log_dir, str(run_ID)]
    command += [str(arg) for arg in args]
    # The submitting host's CPU list (inherited through the environment) is not this job's.
    env = dict(os.environ, **{ALLOWED_CPUS_ENV: ",".join(map(str, cpus))})
    subprocess.run(command, env=env, check=True)
    return 0


def prepare_sweep(
    script: str,
    experiment_title: str,
    runs_per_setting: int,
    variants: Sequence[dict],
    log_dirs: Sequence[str],
    common_args: Sequence | None,
    runs_args: Sequence[Sequence] | None,
    root_log_dir: str | None,
) -> tuple[str, list[dict]]:
    """Make the sweep folder like ``run_experiments`` and list the runs in its order.

    Returns:
        ``(exp_dir, runs)``; each run is ``dict(log_dir, run_ID, args)``, run 0 of every
        setting first, then run 1, ...
    """
    if len(variants) != len(log_dirs):
        raise ValueError(
            f"Got {len(variants)} variants but {len(log_dirs)} log_dirs; use both outputs of "
            "make_variants()."
        )
    runs_args = [()] * len(variants) if runs_args is None else list(runs_args)
    if len(runs_args) != len(variants):
        raise ValueError(f"runs_args has {len(runs_args)} entries for {len(variants)} variants.")
    if not os.path.isfile(script):
        raise FileNotFoundError(f"Train script {script!r} not found (relative to {os.getcwd()}).")
    from rlpyt.utils.logging.context import get_log_dir  # noqa: PLC0415 (keeps imports light)

    exp_dir = get_log_dir(experiment_title, root_log_dir=root_log_dir)
    log_exps_tree(exp_dir, log_dirs, runs_per_setting)
    common = [str(a) for a in common_args or ()]
    for variant, log_dir in zip(variants, log_dirs, strict=True):
        save_variant(variant, os.path.join(exp_dir, log_dir))
    runs = [
        dict(
            log_dir=os.path.join(exp_dir, log_dir),
            run_ID=run_ID,
            args=common + [str(a) for a in run_args],
        )
        for run_ID in range(runs_per_setting)
        for log_dir, run_args in zip(log_dirs, runs_args, strict=True)
    ]
    return exp_dir, runs


def _import_submitit() -> Any:
    try:
        import submitit  # noqa: PLC0415 (optional extra)
    except ImportError as error:
        raise ImportError(
            'run_experiments_submitit needs submitit: pip install "rlpyt[slurm]"'
        ) from error
    return submitit


def run_experiments_submitit(
    script: str,
    experiment_title: str,
    runs_per_setting: int,
    variants: Sequence[dict],
    log_dirs: Sequence[str],
    common_args: Sequence | None = None,
    runs_args: Sequence[Sequence] | None = None,
    executor: submitit.Executor | None = None,
    root_log_dir: str | None = None,
    cpus_per_run: int = 1,
    cluster: str | None = None,
    python_executable: str | None = None,
    **executor_parameters: Any,
) -> ClusterSweep:
    """Submit every run of a sweep as a submitit job (a Slurm job-array element); no waiting.

    Args:
        script: train script following the command-line contract (module docstring).
        experiment_title: name of the sweep folder.
        runs_per_setting: runs (seeds) per variant, ``run_ID`` 0..n-1.
        variants: one overrides dict per setting (from ``make_variants``).
        log_dirs: one relative folder per setting (from ``make_variants``).
        common_args: arguments for every run, e.g. ``(config_key,)``.
        runs_args: per-setting extra arguments, same length as ``variants``.
        root_log_dir: root instead of ``<cwd>/data``.
        executor: a configured ``submitit`` executor; default an ``AutoExecutor`` whose
            folder is ``<exp_dir>/submitit`` (outside the run folders).
        cpus_per_run: CPUs per job (``cpus_per_task``) and cores in its affinity code.
        cluster: AutoExecutor's cluster (None: Slurm if available, else local; "debug"
            runs the jobs in this process, one after another).
        python_executable: interpreter of the jobs, default the job's ``sys.executable``.
        **executor_parameters: passed to ``executor.update_parameters``, e.g.
            ``timeout_min=240, slurm_partition="gpu", mem_gb=16, slurm_array_parallelism=8``.

    Returns:
        The sweep: ``exp_dir``, one :class:`ClusterRun` per job, the jobs; ``wait()`` blocks.
    """
    submitit = _import_submitit()
    script = os.path.abspath(script)
    exp_dir, runs = prepare_sweep(
        script, experiment_title, runs_per_setting, variants, log_dirs,
        common_args, runs_args, root_log_dir,
    )  # fmt: skip
    if executor is None:
        executor = submitit.AutoExecutor(folder=os.path.join(exp_dir, "submitit"), cluster=cluster)
        executor.update_parameters(name=experiment_title, cpus_per_task=cpus_per_run)
    if executor_parameters:
        executor.update_parameters(**executor_parameters)
    with executor.batch():
        jobs = [
            executor.submit(
                run_train_script,
                script,
                run["log_dir"],
                run["run_ID"],
                run["args"],
                cpus_per_run,
                python_executable,
            )  # fmt: skip
            for run in runs
        ]
    log_num_launched(exp_dir, len(jobs), len(runs))
    records = [
        ClusterRun(run["log_dir"], run["run_ID"], str(job.job_id))
        for run, job in zip(runs, jobs, strict=True)
    ]
    return ClusterSweep(exp_dir, records, jobs)


def _import_ray() -> tuple[Any, Any]:
    try:
        import ray  # noqa: PLC0415 (optional extra)
        from ray import tune  # noqa: PLC0415
    except ImportError as error:
        raise ImportError('run_experiments_ray needs Ray Tune: pip install "rlpyt[ray]"') from error
    return ray, tune


def _ray_trial(
    config: dict,
    runs: list[dict],
    script: str,
    cpus_per_run: int,
    python_executable: str | None,
) -> dict:
    """Ray Tune function trainable: the run picked by ``config["run_index"]``."""
    run = runs[config["run_index"]]
    run_train_script(
        script, run["log_dir"], run["run_ID"], run["args"], cpus_per_run, python_executable
    )
    return {"returncode": 0}


def _trial_dirname(trial: Any) -> str:
    return f"trial_{trial.config['run_index']}"


def run_experiments_ray(
    script: str,
    experiment_title: str,
    runs_per_setting: int,
    variants: Sequence[dict],
    log_dirs: Sequence[str],
    common_args: Sequence | None = None,
    runs_args: Sequence[Sequence] | None = None,
    root_log_dir: str | None = None,
    cpus_per_run: int = 1,
    max_concurrent_trials: int | None = None,
    storage_path: str | None = None,
    python_executable: str | None = None,
    **ray_init_kwargs: Any,
) -> ClusterSweep:
    """Run every run of a sweep as a Ray Tune trial and wait for all of them.

    Each trial asks Ray for ``cpus_per_run`` CPUs and runs the train script in a subprocess
    (the command-line contract of the module docstring). Tune's automatic CSV/JSON/TensorBoard
    loggers are turned off for the fit (``TUNE_DISABLE_AUTO_CALLBACK_LOGGERS=1``), and its
    trial folders go to ``storage_path``, so only the train script writes ``progress.csv``
    and ``params.json``. A failed trial does not stop the others.

    Args:
        script: train script following the command-line contract (module docstring).
        experiment_title: name of the sweep folder.
        runs_per_setting: runs (seeds) per variant, ``run_ID`` 0..n-1.
        variants: one overrides dict per setting (from ``make_variants``).
        log_dirs: one relative folder per setting (from ``make_variants``).
        common_args: arguments for every run, e.g. ``(config_key,)``.
        runs_args: per-setting extra arguments, same length as ``variants``.
        root_log_dir: root instead of ``<cwd>/data``.
        cpus_per_run: Ray CPU resources per trial and cores in its affinity code (unpinned).
        max_concurrent_trials: cap on trials at once (None: as many as the CPUs allow).
        storage_path: Ray's results folder; default: ``<exp_dir>/ray_tune`` (outside the runs).
        python_executable: interpreter of the runs, default the Ray worker's.
        **ray_init_kwargs: for ``ray.init`` when Ray is not initialized yet (e.g.
            ``address="auto"`` to join a cluster, ``num_cpus=8``); Ray is then shut down at
            the end.

    Returns:
        The finished sweep: ``exp_dir`` and one :class:`ClusterRun` per trial, with errors.
    """
    ray, tune = _import_ray()
    script = os.path.abspath(script)
    exp_dir, runs = prepare_sweep(
        script, experiment_title, runs_per_setting, variants, log_dirs,
        common_args, runs_args, root_log_dir,
    )  # fmt: skip
    trainable = tune.with_resources(
        tune.with_parameters(
            _ray_trial,
            runs=runs,
            script=script,
            cpus_per_run=cpus_per_run,
            python_executable=python_executable,
        ),  # fmt: skip
        {"cpu": cpus_per_run},
    )
    tuner = tune.Tuner(
        trainable,
        param_space={"run_index": tune.grid_search(list(range(len(runs))))},
        tune_config=tune.TuneConfig(
            max_concurrent_trials=max_concurrent_trials, trial_dirname_creator=_trial_dirname
        ),
        run_config=tune.RunConfig(  # Default: <exp_dir>/ray_tune/trial_<i>, beside the runs.
            name="ray_tune" if storage_path is None else experiment_title,
            storage_path=exp_dir if storage_path is None else storage_path,
        ),
    )
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(**ray_init_kwargs)
    try:
        with _environment(TUNE_DISABLE_AUTO_CALLBACK_LOGGERS="1"), _quiet(_TUNE_ANALYSIS_LOGGER):
            results = tuner.fit()
    finally:
        if started_ray:
            ray.shutdown()
    log_num_launched(exp_dir, len(runs), len(runs))
    return ClusterSweep(exp_dir, _ray_records(runs, results))


def _ray_records(runs: list[dict], results: Any) -> list[ClusterRun]:
    records = [ClusterRun(run["log_dir"], run["run_ID"]) for run in runs]
    for result in results:
        record = records[result.config["run_index"]]
        record.job_id = str(result.path)
        record.done = True
        if result.error is not None:
            record.error = f"{type(result.error).__name__}: {result.error}"
    return records


@contextmanager
def _environment(**variables: str) -> Iterator[None]:
    """Set environment variables inside the block, restoring the previous values after."""
    previous = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    """Raise a logger's level to ERROR inside the block."""
    log = logging.getLogger(logger_name)
    previous = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(previous)
