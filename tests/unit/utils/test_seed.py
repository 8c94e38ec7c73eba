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


def test_seeding_and_rng_snapshots_leave_cuda_unstarted(monkeypatch):
    """AsyncRl's master seeds and may snapshot before it forks the sampler process, which may
    run its action server on a GPU; CUDA started in the master does not survive the fork
    (on a GPU machine the sampler hung). So none of these may ask the CUDA driver anything."""
    from rlpyt.cli.compose import check_cuda_idx
    from rlpyt.runners.snapshot import get_rng_state, set_rng_state

    def started(*args, **kwargs):
        raise AssertionError("CUDA was started or queried through the CUDA runtime")

    monkeypatch.setattr(torch.cuda, "is_available", started)
    monkeypatch.setattr(torch.cuda, "init", started)
    monkeypatch.setattr(torch.cuda, "_lazy_init", started)
    if hasattr(torch._C, "_cuda_getDeviceCount"):  # CUDA builds: the runtime's device count
        monkeypatch.setattr(torch._C, "_cuda_getDeviceCount", started)
    # torch.cuda.device_count asks NVML first, which leaves CUDA unstarted; a machine without
    # NVML falls back to the runtime, so the test gives the count itself.
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: False)
    set_seed(5)
    state = get_rng_state()
    assert "cuda" not in state
    first = draw()
    set_rng_state({**state, "cuda": [torch.zeros(16, dtype=torch.uint8)]})
    assert draw() == first
    with pytest.raises(ValueError, match="--cuda-idx 99"):
        check_cuda_idx(99)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_rng_snapshots_keep_and_restore_cuda_draws_once_cuda_started():
    """Where CUDA has started, snapshots hold its generators and a restore repeats its draws
    (the lazy restore of set_rng_state included)."""
    from rlpyt.runners.snapshot import get_rng_state, set_rng_state

    torch.rand(1, device="cuda")  # CUDA started here
    state = get_rng_state()
    assert len(state["cuda"]) == torch.cuda.device_count()
    first = torch.rand(4, device="cuda").cpu()
    set_rng_state(state)
    assert torch.equal(torch.rand(4, device="cuda").cpu(), first)
