"""The demo sweep (PPO on CartPole-v1, two learning rates), shrunk, logged offline to W&B.

Each setting's run trains in this process with the demo train script's runner and config,
inside ``logger_context(..., wandb=...)``; the W&B run files are read back and must hold
every progress.csv row with the same values, and params.json (the resolved config included)
as the config. W&B runs offline with its folders in tmp_path: nothing reaches a network.
"""

import csv
import glob
import importlib.util
import json
import math
import os
from pathlib import Path

import pytest

from rlpyt.experiments.configs.classic.pg.cartpole_ppo import configs
from rlpyt.utils.launching.variant import update_config
from rlpyt.utils.logging.context import EXPERIMENT_MARKER, logger_context
from rlpyt.utils.logging.wandb import cell_value, read_run_file

pytest.importorskip("wandb")

SCRIPTS = Path(__file__).resolve().parents[2] / "experiments" / "scripts"


def load_script(relative_path):
    """Import a script by path (its ``__main__`` block does not run)."""
    path = SCRIPTS / relative_path
    spec = importlib.util.spec_from_file_location("wandb_demo_" + path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_offline_wandb_runs_of_the_demo_sweep_hold_progress_csv(tmp_path, offline_wandb):
    launch = load_script("classic/pg/launch/launch_cartpole_ppo_demo.py")
    train = load_script("classic/pg/train/cartpole_ppo.py")
    exp_dir = tmp_path / launch.EXPERIMENT_TITLE
    exp_dir.mkdir()
    (exp_dir / EXPERIMENT_MARKER).write_text("sweep root\n")  # as run_experiments writes
    variants, log_dirs = launch.make_sweep(n_steps=512, log_interval_steps=128)
    wandb_options = dict(project="rlpyt-demo", group=launch.EXPERIMENT_TITLE, tags=["demo"])
    for variant, log_dir in zip(variants, log_dirs, strict=True):
        config = update_config(configs[launch.CONFIG_KEY], variant)
        config["sampler"].update(batch_B=4)
        runner = train.build_runner(config)
        with logger_context(str(exp_dir / log_dir), 0, "CartPole-v1", config, wandb=wandb_options):
            runner.train()
    files = {}
    for path in glob.glob(str(offline_wandb / "wandb" / "offline-run-*" / "run-*.wandb")):
        files[os.path.basename(path)[len("run-") : -len(".wandb")]] = path
    assert len(files) == len(log_dirs) == 2
    for log_dir in log_dirs:
        run_dir = exp_dir / log_dir / "run_0"
        params = json.loads((run_dir / "params.json").read_text())
        run = read_run_file(files[params["wandb"]["id"]], timeout=30)
        assert run.exit_code == 0
        assert run.step_metrics == {"*": "Diagnostics/CumSteps"}
        assert_same_rows(run.history, run_dir / "progress.csv")
        params.pop("wandb")
        assert run.config == params
        assert run.config["exp_name"] == f"{log_dir}/run_0"
        assert run.config["resolved"]["algo"]["kwargs"]["learning_rate"] == (
            variant_lr(log_dir, launch)
        )


def variant_lr(log_dir, launch):
    (lr,) = [lr for lr in launch.LEARNING_RATES if log_dir == f"lr_{lr:g}"]
    return lr


def assert_same_rows(history, progress_csv):
    """Every CSV row is one W&B row: same columns (each cell a number), same values."""
    with open(progress_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(history) == 4
    for row, logged in zip(rows, history, strict=True):
        assert set(logged) == set(row)
        for key, text in row.items():
            expected = cell_value(text)
            assert expected is not None, (key, text)
            assert logged[key] == expected or (math.isnan(logged[key]) and math.isnan(expected))
    assert [logged["Diagnostics/CumSteps"] for logged in history] == [128, 256, 384, 512]
