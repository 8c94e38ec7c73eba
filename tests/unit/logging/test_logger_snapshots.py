"""Snapshot modes: which files save_itr_params writes, and that writes are atomic."""

import os

import pytest
import torch

from rlpyt.utils.logging import logger


@pytest.fixture(autouse=True)
def fresh_logger():
    logger.reset()
    yield
    logger.reset()


def save_iterations(folder, mode, n_itr=6, gap=1):
    logger.set_snapshot_dir(str(folder))
    logger.set_snapshot_mode(mode)
    logger.set_snapshot_gap(gap)
    for itr in range(n_itr):
        logger.save_itr_params(itr, {"itr": itr, "weights": torch.full((3,), float(itr))})
    return sorted(os.listdir(folder))


@pytest.mark.parametrize(
    ("mode", "gap", "expected"),
    [
        ("none", 1, []),
        ("last", 1, ["params.pkl"]),
        ("all", 1, [f"itr_{i}.pkl" for i in range(6)]),
        ("gap", 3, ["itr_0.pkl", "itr_2.pkl", "itr_5.pkl"]),
        ("gap", 2, ["itr_0.pkl", "itr_1.pkl", "itr_3.pkl", "itr_5.pkl"]),
        ("last+gap", 3, ["itr_0.pkl", "itr_2.pkl", "itr_5.pkl", "params.pkl"]),
    ],
)
def test_snapshot_mode_files(tmp_path, mode, gap, expected):
    assert save_iterations(tmp_path, mode, gap=gap) == sorted(expected)


def test_snapshot_content_round_trips_and_last_is_latest(tmp_path):
    save_iterations(tmp_path, "last+gap", gap=4)
    last = torch.load(tmp_path / "params.pkl")
    assert last["itr"] == 5 and torch.equal(last["weights"], torch.full((3,), 5.0))
    assert torch.load(tmp_path / "itr_3.pkl")["itr"] == 3


def test_no_snapshot_dir_means_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    logger.set_snapshot_mode("all")
    logger.save_itr_params(0, {"itr": 0})
    assert os.listdir(tmp_path) == []


def test_failed_save_leaves_previous_snapshot_intact(tmp_path):
    logger.set_snapshot_dir(str(tmp_path))
    logger.set_snapshot_mode("last")
    logger.save_itr_params(0, {"itr": 0})

    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("cannot pickle")

    with pytest.raises(RuntimeError, match="cannot pickle"):
        logger.save_itr_params(1, {"itr": 1, "bad": Unpicklable()})
    assert os.listdir(tmp_path) == ["params.pkl"], "a temporary file was left behind"
    assert torch.load(tmp_path / "params.pkl")["itr"] == 0


def test_bad_mode_and_gap_are_rejected():
    with pytest.raises(ValueError, match="last\\+gap"):
        logger.set_snapshot_mode("every")
    with pytest.raises(ValueError, match="positive"):
        logger.set_snapshot_gap(0)
