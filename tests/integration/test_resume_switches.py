"""Resume switches agree, and a run folder's progress.csv is never truncated unless asked.

What the checks prevent: ``train(resume_from=True)`` inside a ``logger_context`` opened without
``resume=True`` printing "Resumed from the snapshot of iteration N", exiting 0 and leaving
progress.csv without its earlier rows; a reused run folder whose progress.csv is truncated while
debug.log appends.
"""

import csv
import os

import pytest
import torch

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.runners.snapshot import UnreadableSnapshotError
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context

BATCH_T, BATCH_B = 8, 2  # 16 steps per iteration, a log point every iteration


@pytest.fixture(autouse=True)
def fresh_logger():
    logger.reset()
    yield
    logger.reset()


class CountingRl(MinibatchRl):
    """Counts the iterations it trains, to show a refused run trained none."""

    def sample_and_optimize(self, itr):
        self.trained = getattr(self, "trained", 0) + 1
        return super().sample_and_optimize(itr)


def make_runner(n_itr=4):
    sampler = SerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=BATCH_T, batch_B=BATCH_B
    )
    return CountingRl(
        algo=PPO(minibatches=1, epochs=1),
        agent=ClassicFfAgent(),
        sampler=sampler,
        n_steps=n_itr * BATCH_T * BATCH_B,
        log_interval_steps=BATCH_T * BATCH_B,
        seed=3,
    )


def first_run(log_dir, snapshot_mode="last"):
    """Trains 4 iterations into ``<log_dir>/run_0``; returns the folder and its files' bytes."""
    with logger_context(log_dir, 0, "r", {}, snapshot_mode, override_prefix=True) as run_dir:
        make_runner().train()
    return run_dir, read_bytes(run_dir)


def read_bytes(run_dir):
    """The bytes of every file of the run folder, by name."""
    files = {}
    for name in sorted(os.listdir(run_dir)):
        with open(os.path.join(run_dir, name), "rb") as f:
            files[name] = f.read()
    return files


def iterations(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return [int(row["Diagnostics/Iteration"]) for row in csv.DictReader(f)]


def test_reusing_a_run_folder_without_resume_is_refused_and_nothing_is_written(tmp_path, capsys):
    run_dir, before = first_run(str(tmp_path))
    assert iterations(run_dir) == [0, 1, 2, 3]
    with pytest.raises(FileExistsError) as error:
        with logger_context(str(tmp_path), 0, "r", {}, "last", override_prefix=True):
            make_runner().train()
    message = str(error.value)
    assert os.path.join(run_dir, "progress.csv") in message or run_dir in message
    assert "(4 rows)" in message
    for hint in ("resume=True", "resume_from=True", "overwrite=True", "new run_ID"):
        assert hint in message
    assert read_bytes(run_dir) == before  # progress.csv, debug.log, params, snapshot untouched


def test_resume_from_true_without_context_resume_is_refused_before_training(tmp_path, capsys):
    run_dir, _ = first_run(str(tmp_path))
    os.rename(os.path.join(run_dir, "progress.csv"), os.path.join(tmp_path, "moved.csv"))
    snapshot = open(os.path.join(run_dir, "params.pkl"), "rb").read()
    runner = make_runner()
    capsys.readouterr()  # the first run's output
    with pytest.raises(ValueError) as error:
        with logger_context(str(tmp_path), 0, "r", {}, "last", override_prefix=True):
            runner.train(resume_from=True)
    message = str(error.value)
    assert "train(resume_from=True)" in message and "resume=False" in message
    assert "logger_context(..., resume=True)" in message and run_dir in message
    assert getattr(runner, "trained", 0) == 0
    out = capsys.readouterr().out
    assert "Resumed from" not in out
    assert "Running" not in out  # refused before start-up (no sampler, no iteration count)
    assert open(os.path.join(run_dir, "params.pkl"), "rb").read() == snapshot
    assert os.path.getsize(os.path.join(run_dir, "progress.csv")) == 0  # no row written


def test_snapshot_path_inside_a_run_folder_opened_afresh_is_refused(tmp_path, capsys):
    run_dir, _ = first_run(str(tmp_path))
    runner = make_runner()
    with pytest.raises(ValueError, match="resume=False") as error:
        with logger_context(
            str(tmp_path), 0, "r", {}, "last", override_prefix=True, overwrite=True
        ):
            os.makedirs(run_dir, exist_ok=True)
            torch.save({"itr": 1}, os.path.join(run_dir, "itr_1.pkl"))
            runner.train(resume_from=os.path.join(run_dir, "itr_1.pkl"))
    assert "logger_context(..., resume=True)" in str(error.value)
    assert getattr(runner, "trained", 0) == 0


def test_context_resume_without_resume_from_is_refused(tmp_path, capsys):
    run_dir, before = first_run(str(tmp_path))
    runner = make_runner()
    with pytest.raises(ValueError) as error:
        with logger_context(str(tmp_path), 0, "r", {}, "last", override_prefix=True, resume=True):
            runner.train()
    message = str(error.value)
    assert "logger_context(resume=True)" in message and "resume_from=None" in message
    assert "train(resume_from=True)" in message
    assert getattr(runner, "trained", 0) == 0
    assert iterations(run_dir) == [0, 1, 2, 3]
    assert open(os.path.join(run_dir, "params.pkl"), "rb").read() == before["params.pkl"]


def test_both_switches_resume_and_keep_the_earlier_rows(tmp_path, capsys):
    run_dir, _ = first_run(str(tmp_path), snapshot_mode="all")
    with logger_context(str(tmp_path), 0, "r", {}, "all", override_prefix=True, resume=True):
        runner = make_runner()
        runner.train(resume_from=os.path.join(run_dir, "itr_1.pkl"))
    assert runner.trained == 2
    assert iterations(run_dir) == [0, 1, 2, 3]
    assert "Resumed from the snapshot of iteration 1." in capsys.readouterr().out


def test_overwrite_starts_the_run_folder_anew(tmp_path, capsys):
    run_dir, before = first_run(str(tmp_path), snapshot_mode="all")
    assert os.path.exists(os.path.join(run_dir, "itr_3.pkl"))
    with logger_context(str(tmp_path), 0, "r", {}, "last", override_prefix=True, overwrite=True):
        make_runner(n_itr=2).train()
    assert iterations(run_dir) == [0, 1]
    debug_log = open(os.path.join(run_dir, "debug.log")).read()
    assert "overwrite=True" in debug_log and "itr_3.pkl" in debug_log
    assert before["debug.log"].decode() not in debug_log
    assert sorted(f for f in os.listdir(run_dir) if f.endswith(".pkl")) == ["params.pkl"]


def test_resume_and_overwrite_together_are_refused(tmp_path):
    with pytest.raises(ValueError, match="resume=True, overwrite=True"):
        with logger_context(str(tmp_path), 0, "r", {}, resume=True, overwrite=True):
            pass
    assert not (tmp_path / "run_0").exists()


def test_resuming_from_an_unreadable_snapshot_names_it_and_the_previous_good_one(tmp_path, capsys):
    run_dir, _ = first_run(str(tmp_path), snapshot_mode="all")
    newest = os.path.join(run_dir, "itr_3.pkl")
    with open(newest, "r+b") as f:
        f.truncate(os.path.getsize(newest) // 2)  # as a crash in a non-atomic save would
    runner = make_runner()
    with pytest.raises(UnreadableSnapshotError) as error:
        with logger_context(str(tmp_path), 0, "r", {}, "all", override_prefix=True, resume=True):
            runner.train(resume_from=True)
    message = str(error.value)
    assert f"{newest} is not a readable snapshot" in message
    assert f"The previous good snapshot is {os.path.join(run_dir, 'itr_2.pkl')}" in message
    assert getattr(runner, "trained", 0) == 0
    assert iterations(run_dir) == [0, 1, 2, 3]
