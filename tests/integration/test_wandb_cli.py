"""``rlpyt train`` and ``rlpyt sweep`` with ``--wandb``: offline W&B runs that hold progress.csv.

W&B runs offline (``WANDB_MODE=offline``) with every folder it uses under tmp_path; the
sweep's runs inherit that environment. Nothing reaches a network or asks for an API key.
"""

import csv
import glob
import json
import math
import os

import pytest
from click.testing import CliRunner

from rlpyt.cli.main import rlpyt
from rlpyt.utils.logging.wandb import cell_value, read_run_file

pytest.importorskip("wandb")


@pytest.fixture
def wandb_dir(offline_wandb):
    return offline_wandb  # tests/conftest.py


def wandb_run_of(run_dir, wandb_dir, newest=False):
    """The W&B run recorded in ``run_dir``'s params.json, read from its offline run file."""
    run_id = json.loads((run_dir / "params.json").read_text())["wandb"]["id"]
    paths = glob.glob(str(wandb_dir / "wandb" / "offline-run-*" / f"run-{run_id}.wandb"))
    path = max(paths, key=os.path.getmtime) if newest else paths[0]
    return read_run_file(path, timeout=30), len(paths)


def assert_history_is_progress_csv(history, run_dir, rows=slice(None)):
    with open(run_dir / "progress.csv", newline="") as f:
        csv_rows = list(csv.DictReader(f))[rows]
    assert len(history) == len(csv_rows) > 0
    for logged, row in zip(history, csv_rows, strict=True):
        assert set(logged) == set(row)
        for key, text in row.items():
            value = cell_value(text)
            assert logged[key] == value or (math.isnan(logged[key]) and math.isnan(value))


def test_train_with_wandb_options_then_resume_continues_the_run(tmp_path, wandb_dir):
    log_dir = tmp_path / "runs"
    args = ["--env", "CartPole-v1", "--seed", "0", "--log-interval", "256", "--log-dir", log_dir]
    args += ["--set", "algo.epochs=1", "--wandb-project", "cartpole", "--wandb-tags", "a, b"]
    result = CliRunner().invoke(rlpyt, ["train", "ppo", *map(str, args), "--steps", "512"])
    assert result.exit_code == 0, result.output
    run_dir = log_dir / "run_0"
    run, _ = wandb_run_of(run_dir, wandb_dir)
    assert_history_is_progress_csv(run.history, run_dir)
    assert (run.project, run.tags, run.group) == ("cartpole", ["a", "b"], "")
    assert run.config["cli"]["wandb"] == {"project": "cartpole", "tags": ["a", "b"]}
    assert run.config["resolved"]["seed"] == 0
    assert run.step_metrics == {"*": "Diagnostics/CumSteps"}

    resumed = CliRunner().invoke(rlpyt, ["train", "--resume", str(run_dir), "--steps", "768"])
    assert resumed.exit_code == 0, resumed.output
    second, n_files = wandb_run_of(run_dir, wandb_dir, newest=True)
    assert n_files == 2  # the same W&B run id, continued
    assert_history_is_progress_csv(second.history, run_dir, rows=slice(2, None))


def test_sweep_hands_each_run_the_wandb_settings_grouped_by_sweep(tmp_path, monkeypatch):
    """The sweep's runs get the spec (as JSON) that run_training gives logger_context."""
    from rlpyt.cli import sweep as sweep_module
    from rlpyt.cli.spec import RunSpec

    launched = {}

    def fake_launch(launcher, args, spec, cores, cluster):
        launched.update(args)
        return str(tmp_path / "sweep"), 0

    monkeypatch.setattr(sweep_module, "_launch", fake_launch)
    monkeypatch.setenv("WANDB_MODE", "offline")  # the --wandb check passes without a login
    args = ["sweep", "ppo", "--env", "CartPole-v1", "--grid", "algo.learning_rate=1e-3,3e-4"]
    args += ["--steps", "512", "--title", "lr_sweep", "--wandb-entity", "lab"]
    result = CliRunner().invoke(rlpyt, args)
    assert result.exit_code == 0, result.output
    (spec_json,) = launched["common_args"]
    assert RunSpec.from_dict(json.loads(spec_json)).wandb == {"entity": "lab", "group": "lr_sweep"}
    result = CliRunner().invoke(rlpyt, args[:-2])  # no W&B option: no W&B
    (spec_json,) = launched["common_args"]
    assert RunSpec.from_dict(json.loads(spec_json)).wandb is None


def test_train_without_a_wandb_login_is_one_message_and_rc_2(tmp_path):
    """No API key, no netrc, online mode: rc 2 before the run folder, no traceback."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    env = {k: v for k, v in os.environ.items() if not k.startswith("WANDB_") and k != "NETRC"}
    env.update(HOME=str(tmp_path), WANDB_CONFIG_DIR=str(tmp_path / "wandb_config"))
    args = ["train", "ppo", "--env", "CartPole-v1", "--steps", "4096", "--wandb"]
    result = subprocess.run(
        [sys.executable, "-m", "rlpyt", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "`wandb login`" in line and "WANDB_MODE=offline" in line and "WANDB_API_KEY" in line
    assert not (tmp_path / "runs").exists()
