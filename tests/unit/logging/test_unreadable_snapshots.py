"""Unreadable snapshots: a clear error naming the file and the previous good snapshot.

Without the check, a truncated, empty or foreign snapshot file gives torch's or pickle's raw error
(``PytorchStreamReader failed reading zip archive``, ``EOFError``, ``invalid load key``).
Also: a process killed while saving never leaves a torn snapshot (atomic writes).
"""

import io
import os
import pickle
import signal
import subprocess
import sys
import time

import pytest
import torch

from rlpyt.runners.snapshot import UnreadableSnapshotError, check_resumable, load_snapshot
from rlpyt.utils.logging import logger


@pytest.fixture(autouse=True)
def fresh_logger():
    logger.reset()
    yield
    logger.reset()


def save_snapshots(folder, mode="all", n_itr=4):
    logger.set_snapshot_dir(str(folder))
    logger.set_snapshot_mode(mode)
    for itr in range(n_itr):
        logger.save_itr_params(itr, {"itr": itr, "agent_state_dict": {"w": torch.ones(64)}})


def truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def unreadable_message(path):
    with pytest.raises(UnreadableSnapshotError) as error:
        load_snapshot(str(path))
    return str(error.value)


def test_truncated_snapshot_names_file_and_previous_good_one(tmp_path):
    save_snapshots(tmp_path)
    truncate(tmp_path / "itr_3.pkl")
    with pytest.raises(RuntimeError):  # the raw error the issue observed
        torch.load(tmp_path / "itr_3.pkl", weights_only=False)
    message = unreadable_message(tmp_path)  # the folder: its newest snapshot is itr_3
    assert f"{tmp_path / 'itr_3.pkl'} is not a readable snapshot" in message
    assert "cut short by a crash" in message
    good = tmp_path / "itr_2.pkl"
    assert f"The previous good snapshot is {good}: resume from it with " in message
    assert f"train(resume_from={str(good)!r})" in message


def test_previous_good_snapshot_skips_unreadable_ones(tmp_path):
    save_snapshots(tmp_path)
    truncate(tmp_path / "itr_3.pkl")
    (tmp_path / "itr_2.pkl").write_bytes(b"")
    message = unreadable_message(tmp_path / "itr_3.pkl")
    assert f"The previous good snapshot is {tmp_path / 'itr_1.pkl'}" in message
    assert "the file is empty" in unreadable_message(tmp_path / "itr_2.pkl")


def test_empty_last_snapshot_points_to_the_newest_numbered_one(tmp_path):
    save_snapshots(tmp_path, mode="last+gap")  # gap 1: itr_0..itr_3 and params.pkl
    (tmp_path / "params.pkl").write_bytes(b"")
    message = unreadable_message(tmp_path)
    assert f"{tmp_path / 'params.pkl'} is not a readable snapshot (the file is empty)" in message
    assert f"The previous good snapshot is {tmp_path / 'itr_3.pkl'}" in message


def torch_bytes(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"itr,loss\n0,1.0\n", "UnpicklingError"),  # a CSV under a snapshot's name
        (pickle.dumps({"itr": 0}), "RuntimeError"),  # a plain pickle, not torch.save
        (torch_bytes([1, 2, 3]), "it holds a list, not a snapshot dict"),
        (torch_bytes({"weights": 1}), "its dict lacks itr, agent_state_dict"),
    ],
    ids=["csv", "plain-pickle", "torch-list", "torch-dict"],
)
def test_foreign_file_is_named_with_no_earlier_snapshot(tmp_path, content, reason):
    (tmp_path / "params.pkl").write_bytes(content)
    message = unreadable_message(tmp_path / "params.pkl")
    assert f"{tmp_path / 'params.pkl'} is not a readable snapshot" in message
    assert reason in message
    assert f"There is no earlier readable snapshot in {tmp_path}." in message


def test_rlpyt_snapshot_loads_but_cannot_resume(tmp_path):
    path = tmp_path / "params.pkl"
    torch.save(
        {"itr": 9, "cum_steps": 90, "agent_state_dict": {}, "optimizer_state_dict": {}}, path
    )
    snapshot = load_snapshot(str(path))
    assert snapshot["itr"] == 9
    with pytest.raises(UnreadableSnapshotError) as error:
        check_resumable(snapshot, str(path))
    message = str(error.value)
    assert f"The snapshot {path} lacks algo_state_dict, sampler_state, runner_state" in message
    assert "agent.load_state_dict" in message


SAVE_FOREVER = """
import sys, torch
from rlpyt.utils.logging import logger
logger.set_snapshot_dir(sys.argv[1])
logger.set_snapshot_mode("last")
itr = 0
while True:
    logger.save_itr_params(itr, {"itr": itr, "agent_state_dict": {"w": torch.randn(2_000_000)}})
    if itr == 0:
        print("saved", flush=True)
    itr += 1
"""


def test_process_killed_while_saving_leaves_a_readable_snapshot(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for delay in (0.05, 0.2, 0.45):  # kill at different points of a save (8 MB each)
        child = subprocess.Popen(
            [sys.executable, "-c", SAVE_FOREVER, str(tmp_path)], stdout=subprocess.PIPE, env=env
        )
        assert child.stdout is not None and child.stdout.readline() == b"saved\n"
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        snapshot = load_snapshot(str(tmp_path / "params.pkl"))
        assert snapshot["agent_state_dict"]["w"].shape == (2_000_000,)
