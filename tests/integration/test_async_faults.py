"""Fault injection: AsyncRl fails loudly, fast, and leaves nothing behind.

An env that raises in the sampler process (serial and CPU async samplers), a memory copier
killed by SIGKILL, and Ctrl-C in the master. After each: the error names the process and
carries the original traceback (or how the process died); it comes within 10 s of the fault;
no child process (sampler, its workers, copiers) and no shared-memory entry remains.
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

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.runners.async_rl import AsyncRl, AsyncRlProcessError
from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from tests.unit.samplers.sampler_helpers import (
    ProbeEnv,
    alive,
    new_shm_entries,
    sampler_children,
    shm_entries,
)

SEED = 100  # the sampler's envs get SEED + 1 + index
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AFFINITY = dict(optimizer=[dict()], sampler=dict(workers_cpus=[0, 1], set_affinity=False))


def make_runner(SamplerCls, n_steps=10_000, **env_kwargs):
    sampler = SamplerCls(
        EnvCls=ProbeEnv, env_kwargs=env_kwargs, batch_T=8, batch_B=4, max_decorrelation_steps=0
    )
    algo = DQN(batch_size=16, min_steps_learn=64, replay_size=1_000, replay_ratio=4)
    return AsyncRl(
        algo,
        ClassicDqnAgent(),
        sampler,
        n_steps=n_steps,
        affinity=AFFINITY,
        seed=SEED,
        log_interval_steps=320,
    )


def assert_nothing_left(pids, shm_before):
    gc.collect()  # the agent's and the replay's locks are named semaphores, freed with them
    deadline = time.monotonic() + 5  # the sampler's own workers exit once they see it gone
    while (alive(pids) or sampler_children()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pids), "processes outlived the runner"
    assert not sampler_children()
    assert not new_shm_entries(shm_before)


def child_pids():
    """The processes below this one that the runner started (its children and their workers)."""
    return [p.pid for p in sampler_children()]


@pytest.mark.parametrize("SamplerCls", [AsyncSerialSampler, AsyncCpuSampler])
def test_env_exception_in_the_sampler_names_it_with_the_traceback(SamplerCls):
    shm_before = shm_entries()
    # Env 2 (seeded SEED + 1 + 2) raises at its 30th step: after a few batches.
    runner = make_runner(SamplerCls, fail_seed=SEED + 3, fail_step=30)
    pids = []
    start = time.monotonic()
    with pytest.raises(AsyncRlProcessError) as info:
        for _row in runner.iter_train():
            pids = pids or child_pids()
    assert time.monotonic() - start < 10
    assert info.value.role == "sampler"
    message = str(info.value)
    assert "AsyncRl's sampler process failed" in message
    assert "Traceback" in message and "injected env failure" in message
    assert runner.group is not None and not runner.group.processes
    del runner, info
    assert_nothing_left(pids, shm_before)


def test_killed_memory_copier_is_detected():
    shm_before = shm_entries()
    runner = make_runner(AsyncSerialSampler, n_steps=10_000_000, step_seconds=0.001)
    killed = {}

    def kill_copier(runner):
        while getattr(runner, "group", None) is None or len(runner.group.processes) < 3:
            time.sleep(0.05)
        time.sleep(1.0)  # mid-run
        killed["pids"] = [p.pid for p in runner.group.processes]
        killed["time"] = time.monotonic()
        os.kill(runner.group.processes[1].pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_copier, args=(runner,), daemon=True)
    killer.start()
    with pytest.raises(AsyncRlProcessError) as info:
        runner.train()
    assert time.monotonic() - killed["time"] < 10
    killer.join()
    assert info.value.role == "memory copier 0"
    assert "SIGKILL" in str(info.value)
    del runner, info
    assert_nothing_left(killed["pids"], shm_before)


PROGRAM = textwrap.dedent(
    """
    import faulthandler
    import signal

    import psutil
    from tests.integration.test_async_faults import make_runner

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # the test asks for stacks on a hang
    # A terminal's foreground job gets KeyboardInterrupt on Ctrl-C. A job started in the
    # background of a non-interactive shell (as CI may start the tests) inherits SIGINT ignored,
    # and Python then installs no handler: restore the terminal's behaviour.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler

    runner = make_runner(AsyncCpuSampler, n_steps=10_000_000, step_seconds=0.001)
    for row in runner.iter_train():
        pids = [p.pid for p in psutil.Process().children(recursive=True)]
        print("PIDS", *pids, flush=True)
    """
)


def test_ctrl_c_stops_the_master_and_every_child():
    shm_before = shm_entries()
    program = subprocess.Popen(
        [sys.executable, "-c", PROGRAM],
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=REPO),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        line = ""
        while not line.startswith("PIDS"):  # after the first logged row: everything runs
            line = program.stdout.readline()
            assert line, program.stderr.read()
        pids = [int(pid) for pid in line.split()[1:]]
        assert len(pids) >= 5, program.stderr.read()  # sampler, 2 workers, 2 copiers
        os.killpg(program.pid, signal.SIGINT)  # what Ctrl-C does: the whole process group
        try:
            _, stderr = program.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            program.send_signal(signal.SIGUSR1)  # where is it stuck? (faulthandler)
            time.sleep(2)
            os.killpg(program.pid, signal.SIGKILL)
            _, stderr = program.communicate(timeout=30)
            pytest.fail(f"the program did not stop within 30 s of Ctrl-C; its stacks:\n{stderr}")
    finally:
        if program.poll() is None:  # the test failed early: never leave the program running
            os.killpg(program.pid, signal.SIGKILL)
            program.wait()
    assert program.returncode != 0 and "KeyboardInterrupt" in stderr
    assert_nothing_left(pids, shm_before)
