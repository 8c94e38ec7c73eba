"""logger_context(wandb=...): W&B runs hold progress.csv's rows and params.json, offline.

Every test runs W&B offline (``WANDB_MODE=offline``, W&B's folders under tmp_path), so nothing
tries to reach a server or asks for an API key; the W&B run file is read back with
:func:`rlpyt.utils.logging.wandb.read_run_file`.
"""

import csv
import glob
import json
import math
import os
import sys

import numpy as np
import psutil
import pytest

from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context, record_params_section
from rlpyt.utils.logging.wandb import WandbSettings, cell_value, read_run_file

pytest.importorskip("wandb")


@pytest.fixture(autouse=True)
def _offline(offline_wandb):
    """Every test here: W&B offline, its folders in tmp_path (``offline_wandb``, conftest)."""
    return offline_wandb


def run_file(wandb_dir):
    """The one W&B run file below ``wandb_dir``."""
    (path,) = glob.glob(os.path.join(str(wandb_dir), "wandb", "offline-run-*", "run-*.wandb"))
    return path


def progress_rows(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


def log_rows(rows):
    for row in rows:
        for key, value in row.items():
            logger.record_tabular(key, value)
        logger.dump_tabular()


ROWS = [
    {"Diagnostics/CumSteps": 256, "ReturnAverage": np.float32(9.123456), "Label": "text"},
    {"Diagnostics/CumSteps": 512, "ReturnAverage": 21.5, "LossMax": None, "Flag": True},
    {"Diagnostics/CumSteps": 768, "ReturnAverage": 1 / 3, "LossMax": 0.1 + 0.2, "Flag": False},
]


def test_every_row_of_progress_csv_is_in_the_run_with_the_same_values(tmp_path):
    with logger_context(str(tmp_path / "logs"), 0, "exp", {"algo": {"lr": 1e-3}}, wandb=True):
        log_rows(ROWS)
    run_dir = tmp_path / "logs" / "run_0"
    run = read_run_file(run_file(tmp_path / "wandb_dir"), timeout=30)
    csv_rows = progress_rows(run_dir)
    assert len(run.history) == len(csv_rows) == 3
    for logged, csv_row, recorded in zip(run.history, csv_rows, ROWS, strict=True):
        numbers = {key: cell_value(csv_row[key]) for key in recorded if key != "Label"}
        assert set(logged) == set(numbers)  # the text column is left out, nothing else
        for key, number in numbers.items():
            assert logged[key] == number or (math.isnan(logged[key]) and math.isnan(number))
    assert run.history[0]["ReturnAverage"] == float("9.123456")  # the CSV's text, not float32
    assert run.history[1]["Flag"] == 1 and math.isnan(run.history[1]["LossMax"])
    assert run.step_metrics == {"*": "Diagnostics/CumSteps"}
    assert run.exit_code == 0
    assert not wandb_processes()  # W&B's service stopped with the run


def wandb_processes():
    return [p for p in psutil.Process().children(recursive=True) if "wandb" in p.name()]


def test_config_is_params_json_including_sections_added_later(tmp_path):
    config = {"algo": {"learning_rate": 3e-4}, "env": {"id": "CartPole-v1"}}
    with logger_context(
        str(tmp_path / "logs"), 3, "exp", config, wandb=dict(project="p", tags="t")
    ) as run_dir:
        record_params_section("resolved", {"seed": 7, "algo": {"class": "PPO"}})
        log_rows(ROWS[:1])
    with open(os.path.join(run_dir, "params.json")) as f:
        params = json.load(f)
    run = read_run_file(run_file(tmp_path / "wandb_dir"), timeout=30)
    wandb_section = params.pop("wandb")
    assert run.config == params
    assert run.config["resolved"] == {"seed": 7, "algo": {"class": "PPO"}}
    assert (run.config["exp_name"], run.config["run_ID"]) == ("logs/run_3", 3)
    assert wandb_section["project"] == "p"
    assert os.path.basename(run_file(tmp_path / "wandb_dir")) == f"run-{wandb_section['id']}.wandb"
    with open(os.path.join(run_dir, "variant.json")) as f:
        assert "wandb" not in json.load(f)  # viskit's file: never grouped by W&B ids


def test_local_files_go_to_the_run_folder_without_wandb_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("WANDB_DIR")
    with logger_context(str(tmp_path / "logs"), 0, "exp", wandb=True) as run_dir:
        log_rows(ROWS[:1])
    run = read_run_file(run_file(run_dir), timeout=30)
    assert len(run.history) == 1


@pytest.mark.parametrize("upload", [False, True])
def test_snapshots_are_uploaded_only_when_asked(tmp_path, upload):
    options = dict(upload_snapshots=upload)
    with logger_context(str(tmp_path / "logs"), 0, "exp", snapshot_mode="last", wandb=options):
        logger.save_itr_params(0, {"weights": [1.0]})
        log_rows(ROWS[:1])
    run = read_run_file(run_file(tmp_path / "wandb_dir"), timeout=30)
    assert ("params.pkl" in run.files) is upload


def test_resume_continues_the_same_wandb_run(tmp_path):
    log_dir = str(tmp_path / "logs")
    with logger_context(log_dir, 0, "exp", wandb=True) as run_dir:
        log_rows(ROWS[:2])
    with open(os.path.join(run_dir, "params.json")) as f:
        run_id = json.load(f)["wandb"]["id"]
    with logger_context(log_dir, 0, "exp", resume=True, wandb=True):
        log_rows(ROWS[2:])
    folder = os.path.join(str(tmp_path / "wandb_dir"), "wandb", "offline-run-*", "*.wandb")
    files = glob.glob(folder)
    assert sorted(os.path.basename(path) for path in files) == [f"run-{run_id}.wandb"] * 2
    second = read_run_file(max(files, key=os.path.getmtime), timeout=30)
    assert [row["Diagnostics/CumSteps"] for row in second.history] == [768]


def test_an_exception_finishes_the_run_as_failed_and_detaches_it(tmp_path):
    with pytest.raises(RuntimeError, match="boom"):
        with logger_context(str(tmp_path / "logs"), 0, "exp", wandb=True):
            log_rows(ROWS[:1])
            raise RuntimeError("boom")
    run = read_run_file(run_file(tmp_path / "wandb_dir"), timeout=30)
    assert run.exit_code == 1
    assert not wandb_processes()
    assert all(not outputs for outputs in logger._state.row_outputs.values())


def test_a_users_own_wandb_run_is_left_alone(tmp_path):
    import wandb

    os.makedirs(tmp_path / "own")
    own = wandb.init(project="mine", dir=str(tmp_path / "own"), mode="offline")
    try:
        with logger_context(str(tmp_path / "logs"), 0, "exp", wandb=True):
            log_rows(ROWS[:1])
        assert wandb.run is own  # not replaced, not finished, its service still up
        own.log({"mine": 1.0})
    finally:
        own.finish()
        wandb.teardown()
    ours = read_run_file(run_file(tmp_path / "wandb_dir"), timeout=30)
    assert [row["Diagnostics/CumSteps"] for row in ours.history] == [256]
    (own_file,) = glob.glob(str(tmp_path / "own" / "wandb" / "offline-run-*" / "run-*.wandb"))
    assert read_run_file(own_file, timeout=30).history == [{"mine": 1.0}]


def test_missing_wandb_names_the_extra_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(ImportError, match=r'pip install "rlpyt\[wandb\]"'):
        with logger_context(str(tmp_path / "logs"), 0, "exp", wandb=True):
            pass
    assert not os.path.exists(tmp_path / "logs")


def test_unknown_settings_key_fails_naming_the_valid_ones(tmp_path):
    with pytest.raises(TypeError, match="projekt.*valid keys.*project"):
        with logger_context(str(tmp_path / "logs"), 0, "exp", wandb={"projekt": "p"}):
            pass
    assert not os.path.exists(tmp_path / "logs")


def test_settings_from_option():
    assert WandbSettings.from_option(None) is None
    assert WandbSettings.from_option(False) is None
    assert WandbSettings.from_option(True) == WandbSettings()
    settings = WandbSettings.from_option({"group": "g", "tags": ["a", "b"]})
    assert (settings.group, settings.tags, settings.upload_snapshots) == ("g", ("a", "b"), False)


def test_row_outputs_get_only_rows_that_reach_their_csv(tmp_path):
    path = str(tmp_path / "progress.csv")
    received = []
    logger.add_tabular_output(path)
    logger.add_row_output(received.append, path)
    log_rows([{"A": 1}])
    logger.hold_tabular_output(path)
    log_rows([{"A": 2}])  # the CSV is on hold: not written, not passed on
    logger.add_tabular_output(path)
    logger.disable_tabular()
    log_rows([{"A": 3}])
    logger.enable_tabular()
    log_rows([{"A": 4}])
    logger.remove_row_output(received.append, path)
    log_rows([{"A": 5}])
    logger.remove_tabular_output(path)
    assert received == [{"A": "1"}, {"A": "4"}]
    assert [row["A"] for row in progress_rows(tmp_path)] == ["1", "4", "5"]
