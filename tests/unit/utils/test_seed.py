"""set_seed reproducibility, make_seed across processes, env seeding, logging of the seed."""

import multiprocessing as mp
import random
import sys
import types

import numpy as np
import pytest
import torch

from rlpyt.utils import seed as seed_module
from rlpyt.utils.seed import get_seed, make_seed, set_envs_seeds, set_seed

from . import records


def draw():
    return (random.random(), np.random.rand(3).tolist(), torch.rand(3).tolist())


def test_set_seed_makes_every_generator_repeat():
    set_seed(123)
    first = draw()
    set_seed(123)
    assert draw() == first
    set_seed(124)
    assert draw() != first


def test_seed_is_stored_modulo_and_get_seed_returns_it():
    set_seed(5)
    assert get_seed() == 5
    set_seed(4294967294 + 7)
    assert get_seed() == 7
    set_seed(-1)
    assert get_seed() == 4294967293


def test_set_seed_logs_through_logger_when_present(monkeypatch):
    messages = []
    fake_logger = types.SimpleNamespace(log=messages.append)
    fake_package = types.ModuleType("rlpyt.utils.logging")
    fake_package.logger = fake_logger
    monkeypatch.setitem(sys.modules, "rlpyt.utils.logging", fake_package)
    set_seed(77)
    assert len(messages) == 1 and "77" in messages[0]


def test_set_seed_is_silent_without_logger(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "rlpyt.utils.logging", None)  # import now fails
    set_seed(78)
    assert get_seed() == 78
    assert capsys.readouterr() == ("", "")


def test_make_seed_range_and_variety_in_one_process():
    seeds = [make_seed() for _ in range(50)]
    assert all(isinstance(s, int) and 0 <= s < 10000 for s in seeds)
    assert len(set(seeds)) > 1


def test_make_seed_differs_across_forked_children_sharing_rng_state():
    ctx = mp.get_context("fork")
    set_seed(0)  # every child inherits the same random/numpy/torch state
    connections, procs = [], []
    for _ in range(4):
        parent_conn, child_conn = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=records.send_pid_and_seed, args=(child_conn,))
        proc.start()
        child_conn.close()
        connections.append(parent_conn)
        procs.append(proc)
    results = [conn.recv() for conn in connections if conn.poll(60)]
    for proc in procs:
        proc.join(30)
    assert len(results) == 4
    assert len({seed for _, seed in results}) > 1


class FakeEnv:
    def __init__(self):
        self.seeds = []

    def seed(self, seed):
        self.seeds.append(seed)


def test_set_envs_seeds_offsets_by_index_and_skips_envs_without_seed():
    envs = [FakeEnv(), object(), FakeEnv()]
    set_envs_seeds(envs, 10)
    assert envs[0].seeds == [10] and envs[2].seeds == [12]
    set_envs_seeds(envs, None)
    assert envs[0].seeds == [10]


@pytest.fixture(autouse=True)
def restore_seed_record():
    before = seed_module._seed
    yield
    seed_module._seed = before
