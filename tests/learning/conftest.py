"""Learning tests: fixed seeds, budgets in env steps, thresholds on logged returns."""

import csv
import glob
import os

import pytest
import torch

from rlpyt.utils.logging.context import logger_context


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Small models train faster on one thread, and the test does not fight the machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def train_and_read(runner, tmp_path, name="learn", config=None):
    """Train inside a logger context in ``tmp_path``; return progress.csv rows as dicts."""
    log_dir = os.path.join(str(tmp_path), name)
    with logger_context(log_dir, 0, name, config or {}, override_prefix=True):
        runner.train()
    path = glob.glob(os.path.join(log_dir, "run_0", "progress.csv"))[0]
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def column(rows, key):
    """Floats of one progress.csv column."""
    return [float(row[key]) for row in rows]
