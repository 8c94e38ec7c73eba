"""The torch-thread decision (CPUs, processes beside, model size, explicit counts) and the
governor that follows the load."""

import os
import subprocess
import sys

import pytest
import torch
from torch import nn

from rlpyt.models.mlp import MlpModel
from rlpyt.utils.launching import threads
from rlpyt.utils.launching.cpus import allowed_cpus, parse_cpu_list, restrict_to_cpus
from rlpyt.utils.launching.threads import (
    THREADED_PARAMETERS,
    ThreadDecision,
    ThreadGovernor,
    agent_modules,
    decide_torch_threads,
    set_torch_threads,
    threads_pay,
)


@pytest.fixture
def eight_cpus(monkeypatch):
    """The process may use CPUs 0-7, whatever this machine has."""
    monkeypatch.setattr(threads, "process_cpus", lambda cpus=None: tuple(range(8)))


def conv_model():
    return nn.Sequential(nn.Conv2d(4, 16, 8, 4), nn.ReLU(), nn.Flatten())


def test_small_mlp_gets_one_thread_on_many_cpus(eight_cpus):
    decision = decide_torch_threads(modules=[MlpModel(4, [64, 64], 2)])
    assert decision.threads == 1
    assert "MLP of 4,610 parameters" in decision.reason


def test_no_model_gets_one_thread(eight_cpus):
    assert decide_torch_threads().threads == 1


def test_convolution_gets_one_thread_per_cpu_that_follows_the_load(eight_cpus):
    decision = decide_torch_threads(modules=[MlpModel(4, [8], 2), conv_model()])
    assert decision.threads == 8 and decision.follow_load
    assert "Conv2d" in decision.reason and "(8)" in decision.reason
    assert decision.describe().startswith("up to 8 (")


def test_larger_mlps_get_threads_small_ones_one(eight_cpus):
    critic = nn.Linear(1000, THREADED_PARAMETERS // 1000)  # the weights alone are enough
    assert threads_pay([critic])[0]
    assert not threads_pay([nn.Linear(10, 10)])[0]
    assert not threads_pay([nn.LSTM(8, 8)])[0]  # a small recurrent model: one thread
    assert decide_torch_threads(modules=[critic]).threads == 8
    small = decide_torch_threads(modules=[nn.Linear(10, 10)])
    assert small.threads == 1 and not small.follow_load


def test_processes_beside_take_their_cpus(eight_cpus):
    assert decide_torch_threads(modules=[conv_model()], busy_beside=3).threads == 5
    # Never below one thread, however many processes run beside it.
    assert decide_torch_threads(modules=[conv_model()], busy_beside=20).threads == 1


def test_explicit_count_is_used_and_capped(eight_cpus):
    small = [MlpModel(4, [64], 2)]
    assert decide_torch_threads(requested=3, modules=small) == ThreadDecision(3, "as asked")
    capped = decide_torch_threads(requested=32, modules=[conv_model()])
    assert capped.threads == 8 and "capped at its 8 CPUs" in capped.reason
    assert not capped.follow_load  # an explicit count never changes with the load
    with pytest.raises(ValueError, match=">= 1"):
        decide_torch_threads(requested=0)


def test_pinned_cpus_bound_the_threads():
    cpu = allowed_cpus()[0]
    decision = decide_torch_threads(requested=64, cpus=[cpu], modules=[conv_model()])
    assert decision.threads == 1
    assert decide_torch_threads(cpus=[cpu], modules=[conv_model()]).threads == 1


def test_cpus_outside_the_allowed_set_fall_back_to_the_process_affinity():
    outside = max(allowed_cpus()) + 100
    assert threads.process_cpus([outside]) == threads.process_cpus(None)


def test_set_torch_threads_sets_intra_op_threads():
    before = torch.get_num_threads()
    try:
        set_torch_threads(ThreadDecision(2, "test"))
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_agent_modules_are_the_trained_ones():
    class Agent:
        trained_names = ("model", "q_model")

        def __init__(self):
            self.model = nn.Linear(2, 2)
            self.shared_model = nn.Linear(2, 2)
            self.target_model = nn.Linear(2, 2)
            self.q_model = nn.Linear(2, 2)

    agent = Agent()
    assert agent_modules(agent) == [agent.model, agent.q_model]
    del Agent.trained_names
    assert agent_modules(agent) == [agent.model]


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


class FakeLoad:
    """A governor's clock and CPU counters, advanced by hand."""

    def __init__(self, monkeypatch, governor):
        self.now, self.busy, self.ours = 100.0, 0.0, 0.0
        monkeypatch.setattr(threads.time, "monotonic", lambda: self.now)
        monkeypatch.setattr(governor, "busy_seconds", lambda: self.busy)
        monkeypatch.setattr(governor, "own_seconds", lambda: self.ours)

    def advance(self, seconds, others, ours=2.0):
        """``seconds`` pass with ``others`` CPUs busy with other processes, ``ours`` with us."""
        self.now += seconds
        self.ours += ours * seconds
        self.busy += (ours + others) * seconds


@pytest.fixture
def restore_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_governor_gives_way_to_a_competitor_and_takes_the_cpus_back(monkeypatch, restore_threads):
    governor = ThreadGovernor(ThreadDecision(2, "conv", follow_load=True), cpus=(0, 1))
    load = FakeLoad(monkeypatch, governor)
    torch.set_num_threads(2)
    assert governor.adapt() == 2  # the first reading only starts the counters
    load.advance(1.0, others=0.9, ours=1.1)  # a busy loop squeezed by our spinning threads
    assert governor.adapt() == 1 == torch.get_num_threads()
    load.advance(0.5, others=0.0)
    assert governor.adapt() == 1  # not re-read within the interval
    load.advance(0.6, others=0.05)
    assert governor.adapt() == 2 == torch.get_num_threads()


def test_governor_threads_for_the_load():
    governor = ThreadGovernor(ThreadDecision(8, "conv", follow_load=True), cpus=range(8))
    assert [governor.threads_for(x) for x in (0.0, 0.2, 0.8, 3.0, 7.9, 20.0)] == [8, 8, 7, 5, 1, 1]


def test_governor_is_idle_for_one_thread_and_explicit_counts(monkeypatch, restore_threads):
    for decision in (ThreadDecision(1, "mlp"), ThreadDecision(2, "as asked")):
        governor = ThreadGovernor(decision, cpus=(0, 1))
        load = FakeLoad(monkeypatch, governor)
        torch.set_num_threads(decision.threads)
        for _ in range(3):
            load.advance(2.0, others=2.0)
            assert governor.adapt() == decision.threads
        assert not governor.active


def test_governor_reads_real_counters():
    governor = ThreadGovernor(ThreadDecision(2, "conv", follow_load=True), allowed_cpus())
    busy, ours = governor.busy_seconds(), governor.own_seconds()
    assert busy > 0 and ours > 0
    sum(range(3_000_000))  # some CPU time of our own
    assert governor.own_seconds() > ours and governor.busy_seconds() >= busy


def test_parse_cpu_list():
    assert parse_cpu_list("0-3,6") == (0, 1, 2, 3, 6)
    assert parse_cpu_list(" 2,0,2 ") == (0, 2)
    for bad in ("a", "3-1", "", ",", "-1"):
        with pytest.raises(ValueError):
            parse_cpu_list(bad)


def test_restrict_to_cpus_refuses_cpus_not_allowed():
    outside = max(allowed_cpus()) + 1
    with pytest.raises(ValueError, match=f"CPUs \\[{outside}\\] are not available"):
        restrict_to_cpus([outside])


def test_restrict_to_cpus_pins_the_process_and_its_children():
    code = (
        "import os; from rlpyt.utils.launching.cpus import allowed_cpus, restrict_to_cpus; "
        "cpu = allowed_cpus()[-1]; restrict_to_cpus([cpu]); "
        "print(sorted(os.sched_getaffinity(0)) == [cpu], os.environ['RLPYT_ALLOWED_CPUS'] "
        "== str(cpu))"
    )
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this OS")
    assert _python(code) == "True True"


def test_async_optimizer_leaves_the_sampler_side_its_cpus():
    from rlpyt.agents.dqn.classic import ClassicDqnAgent
    from rlpyt.algos.dqn.dqn import DQN
    from rlpyt.envs.gym import make as gym_make
    from rlpyt.runners.async_rl import AsyncRl
    from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
    from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler

    def runner(SamplerCls, affinity):
        sampler = SamplerCls(gym_make, dict(id="CartPole-v1"), batch_T=2, batch_B=4)
        return AsyncRl(DQN(), ClassicDqnAgent(), sampler, n_steps=100, affinity=affinity)

    unpinned = dict(optimizer=[{}], sampler=dict(workers_cpus=[0, 0, 0]))
    assert runner(AsyncSerialSampler, unpinned).sampler_busy_cpus() == 1
    assert runner(AsyncCpuSampler, unpinned).sampler_busy_cpus() == 3  # its three workers
    pinned = dict(optimizer=[dict(cpus=[0])], sampler=dict(workers_cpus=[1, 1]))
    assert runner(AsyncCpuSampler, pinned).sampler_busy_cpus() == 0  # CPUs of its own


def test_unpinned_sync_ranks_share_the_cpus(eight_cpus, monkeypatch):
    from rlpyt.runners import minibatch_rl

    monkeypatch.setattr(minibatch_rl, "process_cpus", lambda cpus=None: tuple(range(8)))
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    rank = object.__new__(minibatch_rl.MinibatchRl)
    rank.world_size, rank.affinity = 4, {}
    assert rank.ranks_beside() == 6  # 8 CPUs, 4 ranks: two each
    assert decide_torch_threads(modules=[conv_model()], busy_beside=6).threads == 2
    rank.affinity = dict(master_cpus=[0, 1])
    assert rank.ranks_beside() == 0
    rank.world_size, rank.affinity = 1, {}
    assert rank.ranks_beside() == 0


def test_governor_without_cpu_counters_keeps_its_threads_and_says_so(monkeypatch, restore_threads):
    governor = ThreadGovernor(ThreadDecision(2, "conv", follow_load=True), cpus=(0, 1))
    torch.set_num_threads(2)

    def unreadable():
        raise OSError("no /proc/stat")

    monkeypatch.setattr(governor, "busy_seconds", unreadable)
    with pytest.warns(RuntimeWarning, match="cannot be read"):
        assert governor.adapt() == 2
    assert not governor.active and governor.adapt() == 2
