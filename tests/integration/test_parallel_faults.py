"""Fault injection: parallel samplers fail loudly, fast, and leave nothing behind.

An env that raises, an agent that raises, a worker killed by SIGKILL, Ctrl-C in the master,
a normal exit without ``shutdown()``, and a /dev/shm too small for the buffers. After each:
the error names the worker rank, the env index and the original traceback; it comes within
10 s; no worker process and no shared-memory entry remains.
"""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.parallel.worker import WorkerError
from rlpyt.utils import shared_memory
from tests.unit.samplers.sampler_helpers import (
    FailingAgent,
    ProbeEnv,
    alive,
    new_shm_entries,
    sampler_children,
    shm_entries,
)

SEED = 100
TWO_WORKERS = dict(workers_cpus=[0, 1], set_affinity=False)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_sampler(SamplerCls, start_method="fork", **env_kwargs):
    return SamplerCls(
        EnvCls=ProbeEnv,
        env_kwargs=env_kwargs,
        batch_T=20,
        batch_B=4,
        max_decorrelation_steps=0,
        start_method=start_method,
    )


def assert_nothing_left(pids, shm_before):
    assert not alive(pids), "worker processes outlived the sampler"
    assert not sampler_children()
    gc.collect()
    assert not new_shm_entries(shm_before)


@pytest.mark.parametrize(
    "SamplerCls, start_method",
    [
        (CpuSampler, "fork"),
        (CpuSampler, "forkserver"),
        (CpuSampler, "spawn"),
        (GpuSampler, "fork"),
    ],
)
def test_env_exception_names_rank_env_and_traceback(SamplerCls, start_method):
    shm_before = shm_entries()
    # Global env 3 (worker 1 of 2) is seeded SEED + 3 and raises at its 7th step.
    sampler = make_sampler(SamplerCls, start_method, fail_seed=SEED + 3, fail_step=7)
    sampler.initialize(ClassicFfAgent(), seed=SEED, affinity=TWO_WORKERS)
    pids = [p.pid for p in sampler.workers.processes]
    start = time.monotonic()
    with pytest.raises(WorkerError) as info:
        sampler.obtain_samples(0)
    assert time.monotonic() - start < 10
    error = info.value
    assert (error.rank, error.env_index) == (1, 3)
    message = str(error)
    assert "worker rank 1" in message and "env index 3" in message
    assert "Traceback" in message and "injected env failure" in message
    assert "sampler_helpers.py" in message  # the original frame
    sampler.shutdown()  # idempotent after the sampler stopped itself
    del sampler, info, error  # the traceback holds the sampler (and the agent's lock)
    assert_nothing_left(pids, shm_before)


def test_agent_exception_in_cpu_worker_names_rank_and_envs():
    shm_before = shm_entries()
    sampler = make_sampler(CpuSampler)
    sampler.initialize(FailingAgent(fail_call=3), seed=SEED, affinity=TWO_WORKERS)
    pids = [p.pid for p in sampler.workers.processes]
    with pytest.raises(WorkerError) as info:
        sampler.obtain_samples(0)
    assert info.value.env_index is None
    assert info.value.rank in (0, 1)
    assert "injected agent failure" in str(info.value) and "Traceback" in str(info.value)
    assert "its envs: " in str(info.value)
    del sampler, info
    assert_nothing_left(pids, shm_before)


def test_agent_exception_in_gpu_master_stops_workers_on_shutdown():
    shm_before = shm_entries()
    sampler = make_sampler(GpuSampler)
    agent = FailingAgent(fail_call=3)
    sampler.initialize(agent, seed=SEED, affinity=TWO_WORKERS)
    pids = [p.pid for p in sampler.workers.processes]
    agent.sample_mode(0)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="injected agent failure"):
        sampler.obtain_samples(0)  # workers wait mid-batch on act_ready: stopped all the same
    assert time.monotonic() - start < 10
    sampler.shutdown()
    del sampler, agent
    assert_nothing_left(pids, shm_before)


@pytest.mark.parametrize("SamplerCls", [CpuSampler, GpuSampler])
def test_sigkill_of_a_worker_is_detected(SamplerCls):
    shm_before = shm_entries()
    sampler = make_sampler(SamplerCls, step_seconds=0.01)  # a batch takes about 0.4 s
    sampler.initialize(ClassicFfAgent(), seed=SEED, affinity=TWO_WORKERS)
    pids = [p.pid for p in sampler.workers.processes]
    killer = threading.Timer(0.2, os.kill, (pids[1], signal.SIGKILL))
    killer.start()
    start = time.monotonic()
    with pytest.raises(WorkerError) as info:
        for itr in range(100):
            sampler.obtain_samples(itr)
    assert time.monotonic() - start < 10
    assert info.value.rank == 1
    assert "SIGKILL" in str(info.value) and "its envs: 2..3" in str(info.value)
    killer.join()
    del sampler, info
    assert_nothing_left(pids, shm_before)


def test_shutdown_is_idempotent_and_stops_every_worker():
    shm_before = shm_entries()
    sampler = make_sampler(GpuSampler)
    sampler.initialize(ClassicFfAgent(), seed=SEED, affinity=TWO_WORKERS)
    pids = [p.pid for p in sampler.workers.processes]
    sampler.obtain_samples(0)
    sampler.shutdown()
    sampler.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        sampler.obtain_samples(1)
    del sampler
    assert_nothing_left(pids, shm_before)


def test_too_small_dev_shm_raises_before_any_worker_starts(monkeypatch):
    monkeypatch.setattr(shared_memory, "shared_memory_free_bytes", lambda path="": 1000)
    sampler = make_sampler(CpuSampler)
    with pytest.raises(MemoryError, match=r"needs .* MiB of shared memory") as info:
        sampler.initialize(ClassicFfAgent(), seed=SEED, affinity=TWO_WORKERS)
    assert "--shm-size" in str(info.value)
    assert sampler.workers is None
    assert not sampler_children()


# -- whole programs: Ctrl-C and exiting without shutdown() ----------------------------------

PROGRAM = textwrap.dedent(
    """
    import signal
    import sys
    from rlpyt.agents.pg.classic import ClassicFfAgent
    from rlpyt.samplers.parallel.{module} import {sampler}
    from tests.unit.samplers.sampler_helpers import ProbeEnv

    if __name__ == "__main__":
        # Ctrl-C raises KeyboardInterrupt, as in a terminal, even where the tests were started
        # in the background of a shell (which leaves SIGINT ignored for its children).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sampler = {sampler}(EnvCls=ProbeEnv, env_kwargs=dict(step_seconds=0.002), batch_T=10,
                            batch_B=4, start_method="{start_method}")
        sampler.initialize(ClassicFfAgent(), seed=0, affinity=dict(workers_cpus=[0, 1]))
        print("PIDS", *(p.pid for p in sampler.workers.processes), flush=True)
        itr = 0
        while {loop}:
            sampler.obtain_samples(itr)
            itr += 1
        print("exit without shutdown", flush=True)
    """
)


def run_program(sampler, module, start_method, loop):
    code = PROGRAM.format(sampler=sampler, module=module, start_method=start_method, loop=loop)
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def read_pids(lines):
    for line in lines:
        if line.startswith("PIDS"):
            return [int(pid) for pid in line.split()[1:]]
    return []


@pytest.mark.parametrize(
    "sampler, module, start_method",
    [("CpuSampler", "cpu.sampler", "fork"), ("GpuSampler", "gpu.sampler", "spawn")],
)
def test_ctrl_c_stops_the_master_and_every_worker(sampler, module, start_method):
    shm_before = shm_entries()
    program = run_program(sampler, module, start_method, loop="True")
    try:
        pids = read_pids(program.stdout)
        assert len(pids) == 2, program.stderr.read()
        time.sleep(0.5)  # mid-sampling
        os.killpg(program.pid, signal.SIGINT)  # what Ctrl-C does: the whole process group
        _, stderr = program.communicate(timeout=30)
    finally:
        if program.poll() is None:  # the test failed early: never leave the program running
            os.killpg(program.pid, signal.SIGKILL)
            program.wait()
    assert program.returncode != 0 and "KeyboardInterrupt" in stderr
    deadline = time.monotonic() + 5
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pids)
    assert not new_shm_entries(shm_before)


def test_normal_exit_without_shutdown_stops_workers():
    shm_before = shm_entries()
    program = run_program("GpuSampler", "gpu.sampler", "fork", loop="itr < 3")
    try:
        stdout, stderr = program.communicate(timeout=60)
    finally:
        if program.poll() is None:
            os.killpg(program.pid, signal.SIGKILL)
            program.wait()
    assert program.returncode == 0, stderr
    pids = read_pids(stdout.splitlines())
    assert "exit without shutdown" in stdout
    deadline = time.monotonic() + 5
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pids)
    assert not new_shm_entries(shm_before)
