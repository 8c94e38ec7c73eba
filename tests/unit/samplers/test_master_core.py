"""The worker layout of samplers whose master serves the agent on a GPU leaves it one core.

``master_core_affinity`` is a pure function of the affinity and the allowed CPUs; the GPU
samplers apply it (``_sampler_affinity``), the CPU sampler does not.
"""

import pytest

from rlpyt.envs.gym import make as gym_make
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu import sampler as gpu_sampler_module
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.utils.launching import affinity as affinity_module
from rlpyt.utils.launching.affinity import make_affinity, master_core_affinity
from rlpyt.utils.launching.cpus import ALLOWED_CPUS_ENV


@pytest.fixture
def gpu_machine(monkeypatch):
    """Eight allowed CPUs and one GPU, whatever this machine has."""
    monkeypatch.setenv(ALLOWED_CPUS_ENV, ",".join(str(c) for c in range(8)))
    monkeypatch.setattr(affinity_module, "_visible_gpu_count", lambda: 1)


def test_a_gpu_layout_leaves_the_master_the_last_core(gpu_machine):
    aff = make_affinity(n_cpu_core=4, n_gpu=1, hyperthread_offset=0, n_socket=1)
    assert aff.keep_master_core and aff.workers_cpus == ((0,), (1,), (2,), (3,))
    kept = master_core_affinity(aff, range(8))
    assert kept["workers_cpus"] == [(0,), (1,), (2,)]
    assert aff.workers_cpus == ((0,), (1,), (2,), (3,))  # not changed in place


def test_an_alternating_gpu_layout_frees_a_core_and_its_hyperthread(gpu_machine):
    aff = make_affinity(n_cpu_core=4, n_gpu=1, hyperthread_offset=4, n_socket=1, alternating=True)
    kept = master_core_affinity(aff, range(8))["workers_cpus"]
    assert kept == [(0,), (1,), (2,), (4,), (5,), (6,)]  # core 3 and its sibling 7 are free


@pytest.mark.parametrize(
    "affinity",
    [
        dict(cuda_idx=0, workers_cpus=[0, 1, 2, 3]),  # the user's own layout
        dict(cuda_idx=None, workers_cpus=[0, 1, 2, 3], keep_master_core=True),  # no GPU
        dict(cuda_idx=0, workers_cpus=[0], keep_master_core=True),  # one worker stays
        dict(cuda_idx=0, workers_cpus=[0, 0], alternating=True, keep_master_core=True),
    ],
    ids=["explicit", "cpu", "one-worker", "one-alternating-pair"],
)
def test_explicit_or_cpu_or_minimal_layouts_are_kept(affinity):
    assert master_core_affinity(affinity, range(4)) is affinity


def test_cpu_reserved_in_the_code_is_the_master_core_already(gpu_machine):
    aff = make_affinity(n_cpu_core=4, n_gpu=1, cpu_reserved=1, hyperthread_offset=0, n_socket=1)
    assert not aff.keep_master_core and len(aff.workers_cpus) == 3
    assert master_core_affinity(aff, range(8)) is aff


@pytest.mark.parametrize("alternating, n_worker", [(False, 3), (True, 2)])
def test_without_workers_cpus_one_unpinned_worker_per_cpu_but_one(alternating, n_worker):
    kept = master_core_affinity(dict(cuda_idx=0, alternating=alternating), range(4))
    assert len(kept["workers_cpus"]) == n_worker and kept["set_affinity"] is False


def test_gpu_samplers_apply_it_and_the_cpu_sampler_does_not(monkeypatch):
    monkeypatch.setattr(gpu_sampler_module, "allowed_cpus", lambda: tuple(range(4)))
    kwargs = dict(EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=2, batch_B=8)
    on_gpu = dict(cuda_idx=0)
    assert len(GpuSampler(**kwargs)._sampler_affinity(on_gpu)["workers_cpus"]) == 3
    alternating = dict(on_gpu, alternating=True)
    assert len(AlternatingSampler(**kwargs)._sampler_affinity(alternating)["workers_cpus"]) == 2
    assert CpuSampler(**kwargs)._sampler_affinity(on_gpu) is on_gpu


def test_a_gpu_sampler_starts_one_worker_per_cpu_but_one(monkeypatch):
    """The agent itself stays on the CPU here: the sampler only reads ``cuda_idx``."""
    from rlpyt.agents.pg.classic import ClassicFfAgent  # noqa: PLC0415

    monkeypatch.setattr(gpu_sampler_module, "allowed_cpus", lambda: tuple(range(3)))
    sampler = GpuSampler(EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=2, batch_B=4)
    sampler.initialize(ClassicFfAgent(), affinity=dict(cuda_idx=0), seed=0)
    try:
        assert sampler.n_worker == 2 and len(sampler.workers.processes) == 2
        samples, _ = sampler.obtain_samples(0)
        assert samples.env.reward.shape == (2, 4)
    finally:
        sampler.shutdown()


@pytest.mark.parametrize("n_workers, expected", [(None, 7), (8, 8)])
def test_the_cli_default_worker_count_leaves_the_master_a_core(gpu_machine, n_workers, expected):
    """``rlpyt train --sampler gpu --cuda-idx 0``: 7 workers on 8 CPUs; ``--n-workers 8``: 8."""
    from types import SimpleNamespace  # noqa: PLC0415

    from rlpyt.cli.compose import worker_affinity  # noqa: PLC0415

    workers = worker_affinity(SimpleNamespace(sampler="gpu", n_workers=n_workers))
    kept = master_core_affinity(dict(workers, cuda_idx=0), range(8))
    assert len(kept["workers_cpus"]) == expected
