"""logger_context: run folder layout, params files, resume, cleanup, TensorBoard."""

import copy
import csv
import json
import os
import sys

import pytest

from rlpyt.utils.logging import context, logger
from rlpyt.utils.logging.context import add_exp_param, get_log_dir, logger_context


@pytest.fixture(autouse=True)
def fresh_logger():
    logger.reset()
    yield
    logger.reset()


def make_config():
    return {
        "algo": {"learning_rate": 1e-3, "clip_min": float("-inf"), "betas": (0.9, 0.99)},
        "sampler": {"batch_T": 5, "batch_B": 16},
        "EnvCls": dict,
        "seed": 7,
        "big": float("inf"),
    }


def log_iterations(itrs):
    for itr in itrs:
        logger.record_tabular("Diagnostics/Iteration", itr)
        logger.record_tabular("Loss", itr / 10)
        logger.dump_tabular(with_prefix=False)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def test_run_folder_files_and_params_content(tmp_path, capsys):
    config = make_config()
    with logger_context(str(tmp_path / "lr_1e-3"), 2, "cartpole", config) as exp_dir:
        log_iterations(range(3))
        logger.log("inside")
    assert exp_dir == str(tmp_path / "lr_1e-3" / "run_2")
    assert sorted(os.listdir(exp_dir)) == [
        "debug.log",
        "params.json",
        "progress.csv",
        "variant.json",
    ]
    params = read_json(os.path.join(exp_dir, "params.json"))
    assert params == read_json(os.path.join(exp_dir, "variant.json"))
    assert params["algo"] == {"learning_rate": 1e-3, "clip_min": "-inf", "betas": [0.9, 0.99]}
    assert params["EnvCls"] == "type" and params["big"] == float("inf")
    assert (params["name"], params["run_ID"], params["exp_name"]) == (
        "cartpole",
        2,
        "lr_1e-3/run_2",
    )
    assert set(params["package_versions"]) == {"rlpyt", "torch", "numpy", "gymnasium", "ale_py"}
    assert params["package_versions"]["numpy"] is not None
    assert "cartpole_2 inside" in open(os.path.join(exp_dir, "debug.log")).read()


def test_caller_config_is_not_mutated(tmp_path, capsys):
    config = make_config()
    before = copy.deepcopy(config)
    with logger_context(str(tmp_path), 0, "x", config):
        pass
    assert config == before and "name" not in config and "run_ID" not in config


def test_git_commit_recorded_inside_a_repository(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(context, "git_commit", lambda: "abc123")
    with logger_context(str(tmp_path), 0, "x", {}) as exp_dir:
        pass
    assert read_json(os.path.join(exp_dir, "params.json"))["git_commit"] == "abc123"
    monkeypatch.setattr(context, "git_commit", lambda: None)
    with logger_context(str(tmp_path), 1, "x", {}) as exp_dir:
        pass
    assert "git_commit" not in read_json(os.path.join(exp_dir, "params.json"))


def test_exp_name_is_path_below_the_experiment_root(tmp_path, capsys):
    (tmp_path / "experiments_tree.txt").write_text("settings: 2\n")
    log_dir = tmp_path / "lr_0.001" / "batch_16"
    with logger_context(str(log_dir), 1, "sweep", {}) as exp_dir:
        pass
    assert read_json(os.path.join(exp_dir, "params.json"))["exp_name"] == "lr_0.001/batch_16/run_1"


def test_runs_of_a_sweep_are_prefixed_with_their_setting(tmp_path, capsys):
    """Each setting's runs print under their own prefix, not both as ``CartPole-v1_0``."""
    (tmp_path / "experiments_tree.txt").write_text("settings: 2\n")
    for setting in ("lr_0.0003", "lr_0.001"):
        with logger_context(str(tmp_path / setting), 0, "CartPole-v1", {}):
            logger.log("hello")
    out = capsys.readouterr().out
    for setting in ("lr_0.0003", "lr_0.001"):
        debug_log = (tmp_path / setting / "run_0" / "debug.log").read_text()
        assert f"| CartPole-v1 {setting}/run_0 hello" in debug_log
        assert f"| CartPole-v1 {setting}/run_0 hello" in out
    assert "CartPole-v1_0" not in out


def test_a_single_run_keeps_rlpyts_prefix(tmp_path, capsys):
    with logger_context(str(tmp_path / "lr_0.001"), 3, "CartPole-v1", {}):
        logger.log("hello")
    assert "| CartPole-v1_3 hello" in capsys.readouterr().out


def test_relative_log_dir_goes_under_log_dir_of_cwd(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert context.LOG_DIR == os.path.join(str(tmp_path), "data")
    with logger_context("example_1", 0, "ex", {}) as exp_dir:
        pass
    relative = os.path.relpath(exp_dir, tmp_path / "data" / "local").split(os.sep)
    assert len(relative) == 4 and relative[2:] == ["example_1", "run_0"]
    assert len(relative[0]) == 8 and len(relative[1]) == 6  # yyyymmdd / HHMMSS
    assert "is outside" in open(os.path.join(exp_dir, "debug.log")).read()
    inside = os.path.join("data", "mine")
    with logger_context(inside, 0, "ex", {}) as exp_dir:
        pass
    assert exp_dir == str(tmp_path / "data" / "mine" / "run_0")
    with logger_context("elsewhere", 0, "ex", {}, override_prefix=True) as exp_dir:
        pass
    assert exp_dir == str(tmp_path / "elsewhere" / "run_0")


def test_get_log_dir_layout(tmp_path):
    path = get_log_dir("exp", root_log_dir=str(tmp_path))
    parts = os.path.relpath(path, tmp_path).split(os.sep)
    assert parts[0] == "local" and parts[3] == "exp" and parts[1].isdigit() and parts[2].isdigit()
    assert get_log_dir("exp", root_log_dir=str(tmp_path), date=False) == str(
        tmp_path / "local" / "exp"
    )


def test_resume_appends_under_existing_header_and_keeps_params(tmp_path, capsys):
    with logger_context(str(tmp_path), 0, "x", {"lr": 1}, snapshot_mode="last") as exp_dir:
        log_iterations(range(5))
    params_before = open(os.path.join(exp_dir, "params.json")).read()
    with logger_context(str(tmp_path), 0, "x", {"lr": 2}, resume=True) as resumed_dir:
        logger.drop_rows_after(2)
        logger.record_tabular("Loss", -1)  # recorded first now, yet stays the 2nd column
        logger.record_tabular("Diagnostics/Iteration", 3)
        logger.dump_tabular()
    assert resumed_dir == exp_dir
    with open(os.path.join(exp_dir, "progress.csv"), newline="") as f:
        lines = list(csv.reader(f))
    assert lines == [
        ["Diagnostics/Iteration", "Loss"],
        ["0", "0.0"],
        ["1", "0.1"],
        ["2", "0.2"],
        ["3", "-1"],
    ]
    assert open(os.path.join(exp_dir, "params.json")).read() == params_before


def test_resume_without_run_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="resume=True"):
        with logger_context(str(tmp_path), 9, "x", {}, resume=True):
            pass
    assert not (tmp_path / "run_9").exists()


def test_exit_on_exception_detaches_everything(tmp_path, capsys):
    logger.set_snapshot_mode("all")
    with pytest.raises(RuntimeError, match="boom"):
        with logger_context(str(tmp_path), 0, "x", {}, snapshot_mode="last"):
            assert logger.get_snapshot_mode() == "last"
            raise RuntimeError("boom")
    assert logger.get_snapshot_dir() is None and logger.get_snapshot_mode() == "all"
    assert logger._state.prefixes == [] and logger._state.text_files == {}
    assert logger._state.tabular_files == {}
    logger.log("after")
    assert "after" not in open(tmp_path / "run_0" / "debug.log").read()


def test_bad_snapshot_mode_fails_before_touching_disk(tmp_path):
    with pytest.raises(ValueError, match="snapshot_mode"):
        with logger_context(str(tmp_path), 0, "x", {}, snapshot_mode="sometimes"):
            pass
    assert not (tmp_path / "run_0").exists()


def test_summary_writer_import_error_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)
    with pytest.raises(ImportError, match=r'pip install "rlpyt\[tensorboard\]"'):
        with logger_context(str(tmp_path), 0, "x", {}, use_summary_writer=True):
            pass


def test_summary_writer_writes_events(tmp_path, capsys):
    pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    with logger_context(str(tmp_path), 0, "x", {}, use_summary_writer=True) as exp_dir:
        for itr in range(3):
            logger.set_iteration(itr)
            logger.record_tabular("Loss", itr * 2.0)
            logger.record_tabular_misc_stat("Return", [itr, itr + 2])
            logger.dump_tabular()
    assert logger.get_tf_summary_writer() is None
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(exp_dir))
    events = EventAccumulator(exp_dir)
    events.Reload()
    assert [(e.step, e.value) for e in events.Scalars("Loss")] == [(0, 0.0), (1, 2.0), (2, 4.0)]
    assert [e.value for e in events.Scalars("Return/Average")] == [1.0, 2.0, 3.0]
    with open(os.path.join(exp_dir, "progress.csv")) as f:
        assert f.readline().strip().split(",")[:3] == ["Loss", "ReturnAverage", "ReturnStd"]


def test_add_exp_param_updates_both_params_files(tmp_path, capsys):
    for run_ID in (0, 1):
        with logger_context(str(tmp_path / "a"), run_ID, "x", {"algo": {"lr": 1}}):
            pass
    changed = add_exp_param("label", "fast", exp_dir=str(tmp_path))
    assert len(changed) == 4
    assert not add_exp_param("label", "slow", exp_dir=str(tmp_path))
    add_exp_param("algo", {"eps": 0.1}, exp_dir=str(tmp_path), overwrite=True)
    for name in ("params.json", "variant.json"):
        params = read_json(tmp_path / "a" / "run_1" / name)
        assert params["label"] == "fast" and params["algo"] == {"lr": 1, "eps": 0.1}


def test_check_progress_counts_rows(tmp_path, capsys):
    with logger_context(str(tmp_path), 0, "x", {}):
        log_iterations(range(4))
    assert context.check_progress(str(tmp_path)) == {str(tmp_path / "run_0" / "progress.csv"): 4}
