"""Cluster sweeps through submitit (local/debug executors) and Ray Tune (loopback local cluster).

Each sweep runs a tiny fake train script that follows the command-line contract and logs
through logger_context, so the folder layout can be compared with run_experiments'.
"""

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from rlpyt.utils.launching import cluster
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.cpus import ALLOWED_CPUS_ENV
from rlpyt.utils.launching.variant import VARIANT, VariantLevel, make_variants

FAKE_TRAIN = textwrap.dedent(
    """
    import json, os, sys
    from rlpyt.utils.launching.affinity import affinity_from_code
    from rlpyt.utils.launching.variant import load_variant, update_config
    from rlpyt.utils.logging import logger
    from rlpyt.utils.logging.context import logger_context

    DEFAULT = {"algo": {"learning_rate": 0.5, "fail": False}}

    def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
        affinity = affinity_from_code(slot_affinity_code)
        config = update_config(DEFAULT, load_variant(log_dir))
        if config["algo"]["fail"]:
            sys.exit(3)
        with logger_context(log_dir, run_ID, config_key, config) as run_dir:
            for itr in range(3):
                logger.record_tabular("Diagnostics/CumSteps", 10 * (itr + 1))
                logger.record_tabular("ReturnAverage", config["algo"]["learning_rate"] * itr)
                logger.dump_tabular()
            record = dict(
                argv=sys.argv[1:],
                set_affinity=affinity["set_affinity"],
                n_cores=len(affinity["master_cpus"]),
                allowed=os.environ.get("RLPYT_ALLOWED_CPUS"),
            )
            with open(os.path.join(run_dir, "job.json"), "w") as f:
                json.dump(record, f)

    if __name__ == "__main__":
        build_and_train(*sys.argv[1:])
    """
)


@pytest.fixture
def fake_train(tmp_path):
    path = tmp_path / "fake_train.py"
    path.write_text(FAKE_TRAIN)
    return str(path)


def learning_rate_sweep(*values):
    values = values or [(0.1, False), (0.2, False)]
    level = VariantLevel(
        [("algo", "learning_rate"), ("algo", "fail")],
        values,
        [f"lr_{lr}" + ("_fail" if fail else "") for lr, fail in values],
    )
    return make_variants(level)


def check_layout(sweep, variants, log_dirs, engine_folder, runs_per_setting=1):
    """The folder layout of run_experiments for these settings; no engine file in a run folder."""
    exp_dir = Path(sweep.exp_dir)
    tree = (exp_dir / "experiments_tree.txt").read_text()
    assert f"process ID: {os.getpid()}" in tree
    assert "".join(f"{d}\n" for d in log_dirs) in tree
    total = len(sweep.runs)
    assert (exp_dir / "num_launched.txt").read_text().strip().endswith(f"{total} out of {total}.")
    for variant, log_dir in zip(variants, log_dirs, strict=True):
        assert json.loads((exp_dir / log_dir / VARIANT).read_text()) == variant
        for run_id in range(runs_per_setting):
            run_dir = exp_dir / log_dir / f"run_{run_id}"
            files = {p.name for p in run_dir.iterdir()}
            assert files == {"progress.csv", "params.json", "variant.json", "debug.log", "job.json"}
            params = json.loads((run_dir / "params.json").read_text())
            assert params["algo"] == {**variant["algo"]}  # The variant reached the script.
            assert params["exp_name"] == f"{log_dir}/run_{run_id}"
            job = json.loads((run_dir / "job.json").read_text())
            assert job["argv"][1:] == [str(exp_dir / log_dir), str(run_id), "cfg"]
            assert affinity_from_code(job["argv"][0])["cuda_idx"] is None
            assert len((run_dir / "progress.csv").read_text().splitlines()) == 4
    # Engine files stay in their own folder; the only progress.csv files are our runs'.
    assert (exp_dir / engine_folder).is_dir()
    found = sorted(p.parent for p in exp_dir.rglob("progress.csv"))
    expected = sorted(exp_dir / d / f"run_{i}" for d in log_dirs for i in range(runs_per_setting))
    assert found == expected
    assert sorted(p.parent for p in exp_dir.rglob("params.json")) == expected


def test_missing_engines_name_their_extra(monkeypatch, fake_train, tmp_path):
    monkeypatch.setitem(sys.modules, "submitit", None)  # import submitit -> ImportError
    monkeypatch.setitem(sys.modules, "ray", None)
    variants, log_dirs = learning_rate_sweep()
    with pytest.raises(ImportError, match=r'pip install "rlpyt\[slurm\]"'):
        cluster.run_experiments_submitit(fake_train, "s", 1, variants, log_dirs)
    with pytest.raises(ImportError, match=r'pip install "rlpyt\[ray\]"'):
        cluster.run_experiments_ray(fake_train, "r", 1, variants, log_dirs)
    assert not (tmp_path / "data").exists() and not Path("data", "local", "s").exists()


def test_bad_sweeps_fail_before_any_folder(fake_train, tmp_path):
    variants, log_dirs = learning_rate_sweep()
    root = str(tmp_path / "root")
    with pytest.raises(ValueError, match="2 variants but 1 log_dirs"):
        cluster.prepare_sweep(fake_train, "t", 1, variants, log_dirs[:1], None, None, root)
    with pytest.raises(ValueError, match="runs_args has 1 entries"):
        cluster.prepare_sweep(fake_train, "t", 1, variants, log_dirs, None, [()], root)
    with pytest.raises(FileNotFoundError, match="nope.py"):
        cluster.prepare_sweep("nope.py", "t", 1, variants, log_dirs, None, None, root)
    assert not os.path.exists(root)


def test_job_uses_its_own_cpus_and_pins_only_a_whole_allocation(fake_train, tmp_path, monkeypatch):
    monkeypatch.setenv(ALLOWED_CPUS_ENV, "4096")  # A submitting host's list must not leak in.
    cpus = sorted(os.sched_getaffinity(0))
    log_dir = tmp_path / "setting"
    log_dir.mkdir()
    (log_dir / VARIANT).write_text("{}")
    cluster.run_train_script(fake_train, str(log_dir), 0, ["cfg"], cpus_per_run=None)
    whole = json.loads((log_dir / "run_0" / "job.json").read_text())
    assert whole["allowed"] == ",".join(map(str, cpus))
    assert whole["set_affinity"] is True and whole["n_cores"] == len(cpus)
    if len(cpus) > 1:
        cluster.run_train_script(fake_train, str(log_dir), 1, ["cfg"], cpus_per_run=1)
        part = json.loads((log_dir / "run_1" / "job.json").read_text())
        assert part["set_affinity"] is False and part["n_cores"] == 1


def test_submitit_local_sweep_matches_run_experiments_layout(fake_train, tmp_path):
    pytest.importorskip("submitit")
    variants, log_dirs = learning_rate_sweep((0.1, False), (0.2, False), (0.3, True))
    sweep = cluster.run_experiments_submitit(
        fake_train, "sub", 1, variants, log_dirs, common_args=("cfg",),
        root_log_dir=str(tmp_path), cluster="local", timeout_min=5,
    )  # fmt: skip
    failed = sweep.wait()
    assert [Path(run.log_dir).name for run in failed] == ["lr_0.3_fail"]
    assert "exit status 3" in failed[0].error  # The failing run did not stop the others.
    assert all(run.done and run.job_id for run in sweep.runs)
    assert [(Path(r.log_dir).name, r.run_ID) for r in sweep.runs[:2]] == [
        ("lr_0.1", 0),
        ("lr_0.2", 0),
    ]
    check_layout(sweep, variants[:2], log_dirs[:2], "submitit")


@pytest.fixture(scope="module")
def ray_local():
    pytest.importorskip("ray.tune")
    import ray

    # Loopback only, no usage reporting (users.md 2.3).
    keys = ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_USAGE_STATS_ENABLED")
    saved = {key: os.environ.get(key) for key in keys}
    os.environ.update(RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_USAGE_STATS_ENABLED="0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def test_ray_sweep_matches_run_experiments_layout(ray_local, fake_train, tmp_path):
    variants, log_dirs = learning_rate_sweep((0.1, False), (0.2, False), (0.3, True))
    sweep = cluster.run_experiments_ray(
        fake_train, "tune", 1, variants, log_dirs, common_args=("cfg",),
        root_log_dir=str(tmp_path),
    )  # fmt: skip
    assert [Path(run.log_dir).name for run in sweep.failed] == ["lr_0.3_fail"]
    assert "exit status 3" in sweep.failed[0].error
    assert all(run.done for run in sweep.runs)
    check_layout(sweep, variants[:2], log_dirs[:2], "ray_tune")
    assert "TUNE_DISABLE_AUTO_CALLBACK_LOGGERS" not in os.environ  # Restored after the fit.
    assert ray_local.is_initialized()  # A Ray it did not start is left running.
