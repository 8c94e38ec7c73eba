"""Parallel samplers under the runners, and serial == parallel reproducibility.

Every sampler x {reset, wait-reset} collector x {feed-forward, recurrent} agent trains a few
A2C iterations under MinibatchRlEval; for a fixed seed on the CPU, SerialSampler, CpuSampler
and GpuSampler give identical samples, field by field, over several iterations (with the
parameters changing in between, as training changes them), under every start method.
"""

import copy
import csv
import gc
import os

import numpy as np
import pytest
import torch

from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.agents.pg.mujoco import MujocoFfAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlEval
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector, CpuWaitResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import (
    AlternatingSampler,
    NoOverlapAlternatingSampler,
)
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector, GpuWaitResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context
from tests.unit.samplers.sampler_helpers import (
    AlternatingClassicLstmAgent,
    ProbeEnv,
    alive,
    new_shm_entries,
    shm_entries,
)

START_METHODS = ["fork", "forkserver", "spawn"]
COLLECTORS = {
    (CpuSampler, False): CpuResetCollector,
    (CpuSampler, True): CpuWaitResetCollector,
    (SerialSampler, False): CpuResetCollector,
    (SerialSampler, True): CpuWaitResetCollector,
}
TWO_WORKERS = dict(workers_cpus=[0, 1], set_affinity=False)


def collector_for(SamplerCls, wait_reset):
    return COLLECTORS.get(
        (SamplerCls, wait_reset), GpuWaitResetCollector if wait_reset else GpuResetCollector
    )


def agent_for(SamplerCls, recurrent):
    if not recurrent:
        return ClassicFfAgent()
    if SamplerCls in (AlternatingSampler, NoOverlapAlternatingSampler):
        return AlternatingClassicLstmAgent()
    return ClassicLstmAgent()


def affinity_for(SamplerCls):
    if SamplerCls in (AlternatingSampler, NoOverlapAlternatingSampler):
        return dict(TWO_WORKERS, alternating=True)
    return dict(TWO_WORKERS)


# -- every sampler under the runner ---------------------------------------------------------


@pytest.mark.parametrize("recurrent", [False, True], ids=["ff", "rnn"])
@pytest.mark.parametrize("wait_reset", [False, True], ids=["reset", "wait_reset"])
@pytest.mark.parametrize(
    "SamplerCls", [CpuSampler, GpuSampler, AlternatingSampler, NoOverlapAlternatingSampler]
)
def test_minibatch_rl_eval_trains_with_every_sampler(tmp_path, SamplerCls, wait_reset, recurrent):
    shm_before = shm_entries()
    sampler = SamplerCls(
        EnvCls=ProbeEnv,
        env_kwargs={},
        batch_T=8,
        batch_B=4,
        CollectorCls=collector_for(SamplerCls, wait_reset),
        max_decorrelation_steps=5,
        eval_n_envs=2,
        eval_max_steps=60,  # 30 steps per eval env: room for 2 episodes of at most 14 steps
        eval_max_trajectories=4,
    )
    runner = MinibatchRlEval(
        algo=A2C(),
        agent=agent_for(SamplerCls, recurrent),
        sampler=sampler,
        n_steps=2 * 32,
        log_interval_steps=32,
        seed=5,
        affinity=affinity_for(SamplerCls),
    )
    log_dir = str(tmp_path / "run")
    with logger_context(log_dir, 0, "parallel", {}, override_prefix=True):
        runner.train()
    with open(os.path.join(log_dir, "run_0", "progress.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["Diagnostics/CumSteps"]) for r in rows] == [0, 32, 64]
    assert all(
        float(r["Diagnostics/TrajsInEval"]) == 4 for r in rows
    )  # quota 2 episodes x 2 eval envs
    samples = sampler.samples_np
    assert not np.isnan(samples.agent.agent_info.value).any()  # every slot written
    info = samples.env.env_info
    stepped = info.pid != 0  # rows of waiting envs (wait-reset) hold zeros
    assert stepped.any() and (info.torch_threads[stepped] == 1).all()  # one thread per worker
    assert len(np.unique(info.pid[stepped])) == 2  # both workers stepped envs
    pids = [p.pid for p in sampler.workers.processes]
    assert not alive(pids)
    del runner, sampler, samples
    gc.collect()  # the agent's own lock (named semaphores under spawn) goes with the agent
    assert not new_shm_entries(shm_before)


def test_minibatch_rl_with_cartpole_and_cpu_sampler(tmp_path):
    sampler = CpuSampler(EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=16, batch_B=4)
    runner = MinibatchRl(
        algo=A2C(),
        agent=ClassicFfAgent(),
        sampler=sampler,
        n_steps=256,
        seed=1,
        affinity=TWO_WORKERS,
        log_interval_steps=64,
    )
    with logger_context(str(tmp_path), 0, "cartpole", {}, override_prefix=True):
        runner.train()
    assert float(sampler.samples_np.env.reward.sum()) > 0


# -- reproducibility ------------------------------------------------------------------------


def sample_iterations(SamplerCls, wait_reset, recurrent, start_method=None, n_itr=3):
    """Samples (deep copies) of ``n_itr`` iterations, parameters scaled between iterations."""
    torch.manual_seed(0)  # the same initial parameters for every sampler
    kwargs = {} if SamplerCls is SerialSampler else dict(start_method=start_method)
    sampler = SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=16,
        batch_B=8,  # 4 envs per worker: equal GEMM blocking, so bitwise-equal forwards
        CollectorCls=collector_for(SamplerCls, wait_reset),
        max_decorrelation_steps=20,
        **kwargs,
    )
    agent = ClassicLstmAgent() if recurrent else ClassicFfAgent()
    affinity = None if SamplerCls is SerialSampler else TWO_WORKERS
    sampler.initialize(agent, affinity=affinity, seed=11, bootstrap_value=True)
    batches, returns = [], []
    try:
        for itr in range(n_itr):
            agent.sample_mode(itr)
            samples, traj_infos = sampler.obtain_samples(itr)
            batches.append(copy.deepcopy(samples))
            returns.append(sorted(info.Return for info in traj_infos))
            agent.train_mode(itr)
            with torch.no_grad():  # stands in for an optimizer step
                for param in agent.parameters():
                    param.mul_(1.1)
    finally:
        sampler.shutdown()
    return batches, returns


def assert_same_samples(expected, actual, path="samples"):
    if isinstance(expected, tuple):
        for field, e, a in zip(expected._fields, expected, actual, strict=True):
            assert_same_samples(e, a, f"{path}.{field}")
    elif expected is not None:
        # NaN == NaN here: timeout_value is NaN wherever no collector wrote a value.
        assert torch.equal(expected, actual) or (
            expected.is_floating_point()
            and torch.equal(torch.isnan(expected), torch.isnan(actual))
            and torch.equal(expected.nan_to_num(), actual.nan_to_num())
        ), f"{path} differs"


@pytest.mark.parametrize("recurrent", [False, True], ids=["ff", "rnn"])
@pytest.mark.parametrize("wait_reset", [False, True], ids=["reset", "wait_reset"])
def test_serial_cpu_gpu_identical_samples(wait_reset, recurrent):
    serial, serial_returns = sample_iterations(SerialSampler, wait_reset, recurrent)
    assert any(serial_returns), "no episode ended: the test would not cover resets"
    for SamplerCls in (CpuSampler, GpuSampler):
        batches, returns = sample_iterations(SamplerCls, wait_reset, recurrent)
        for expected, actual in zip(serial, batches, strict=True):
            assert_same_samples(expected, actual, SamplerCls.__name__)
        assert returns == serial_returns


@pytest.mark.parametrize("start_method", START_METHODS)
def test_identical_samples_under_every_start_method(start_method):
    serial, _ = sample_iterations(SerialSampler, True, False, n_itr=2)
    for SamplerCls in (CpuSampler, GpuSampler):
        batches, _ = sample_iterations(SamplerCls, True, False, start_method, n_itr=2)
        for expected, actual in zip(serial, batches, strict=True):
            assert_same_samples(expected, actual, f"{SamplerCls.__name__}/{start_method}")


@pytest.mark.parametrize("CollectorCls", [GpuResetCollector, GpuWaitResetCollector])
def test_alternating_and_no_overlap_give_the_same_samples(CollectorCls):
    """Two workers stepping both halves of their envs in turn, and four with one env each."""

    def run(SamplerCls, n_worker):
        torch.manual_seed(0)
        sampler = SamplerCls(
            EnvCls=gym_make,
            env_kwargs=dict(id="CartPole-v1"),
            batch_T=8,
            batch_B=4,
            max_decorrelation_steps=5,
            CollectorCls=CollectorCls,
        )
        agent = AlternatingClassicLstmAgent()
        affinity = dict(workers_cpus=list(range(n_worker)), set_affinity=False, alternating=True)
        sampler.initialize(agent, affinity=affinity, seed=3, bootstrap_value=True)
        try:
            batches = []
            for itr in range(3):
                agent.sample_mode(itr)
                batches.append(copy.deepcopy(sampler.obtain_samples(itr)[0]))
        finally:
            sampler.shutdown()
        return batches

    for expected, actual in zip(
        run(AlternatingSampler, 2), run(NoOverlapAlternatingSampler, 4), strict=True
    ):
        assert_same_samples(expected, actual)


@pytest.mark.parametrize(
    "affinity, batch_B, agent, error, message",
    [
        (dict(workers_cpus=[0, 1]), 4, ClassicFfAgent(), ValueError, "alternating=True"),
        (
            dict(workers_cpus=[0, 1], alternating=True),
            3,
            ClassicFfAgent(),
            ValueError,
            "even batch_B",
        ),
        (
            dict(workers_cpus=[0, 1], alternating=True),
            4,
            ClassicLstmAgent(),
            TypeError,
            "recurrent but not alternating",
        ),
    ],
    ids=["no-alternating-affinity", "odd-batch_B", "non-alternating-recurrent-agent"],
)
def test_alternating_sampler_refuses_what_it_cannot_run_before_starting(
    affinity, batch_B, agent, error, message
):
    sampler = AlternatingSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=4, batch_B=batch_B
    )
    with pytest.raises(error, match=message):
        sampler.initialize(agent, affinity=affinity, seed=0)
    assert sampler.workers is None  # refused before any worker started
    sampler.shutdown()


# -- evaluation, layout, pinning ------------------------------------------------------------


def deterministic_action_one(agent):
    """Make the policy pick action 1 (ProbeEnv rewards it with 1), so Return == Length."""
    with torch.no_grad():
        for param in agent.model.pi.parameters():
            param.zero_()
        list(agent.model.pi.parameters())[-1].copy_(torch.tensor([-50.0, 50.0]))


@pytest.mark.parametrize("SamplerCls", [CpuSampler, GpuSampler, AlternatingSampler])
def test_parallel_eval_uses_the_agent_and_serial_quota(SamplerCls):
    kwargs = dict(
        EnvCls=ProbeEnv,
        env_kwargs={},
        batch_T=4,
        batch_B=4,
        eval_n_envs=3,
        eval_max_steps=300,
        eval_max_trajectories=6,
    )
    serial = SerialSampler(**kwargs)
    agent = ClassicFfAgent()
    serial.initialize(agent, seed=2)
    deterministic_action_one(agent)
    agent.eval_mode(0)
    expected = sorted(info.Length for info in serial.evaluate_agent(0))

    sampler = SamplerCls(**kwargs)
    agent = ClassicFfAgent()
    sampler.initialize(agent, seed=2, affinity=affinity_for(SamplerCls))
    try:
        deterministic_action_one(agent)
        agent.eval_mode(0)
        infos = sampler.evaluate_agent(0)
    finally:
        sampler.shutdown()
    assert all(info.Return == info.Length for info in infos)  # the agent's actions were used
    assert sorted(info.Length for info in infos) == expected  # same envs, seeds and quotas
    assert len(infos) == 6


@pytest.mark.parametrize("set_affinity", [True, False])
def test_workers_pinned_only_when_asked(set_affinity):
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip("needs two allowed CPUs")
    sampler = CpuSampler(EnvCls=ProbeEnv, env_kwargs={}, batch_T=2, batch_B=2)
    affinity = dict(workers_cpus=[allowed[0], allowed[1]], set_affinity=set_affinity)
    sampler.initialize(ClassicFfAgent(), seed=0, affinity=affinity)
    try:
        pinned = [sorted(os.sched_getaffinity(p.pid)) for p in sampler.workers.processes]
    finally:
        sampler.shutdown()
    if set_affinity:
        assert pinned == [[allowed[0]], [allowed[1]]]
    else:
        assert pinned == [allowed, allowed]


def test_envs_split_evenly_in_contiguous_blocks():
    sampler = GpuSampler(EnvCls=ProbeEnv, env_kwargs={}, batch_T=3, batch_B=5)
    sampler.initialize(ClassicFfAgent(), seed=0, affinity=TWO_WORKERS)
    try:
        pids = [p.pid for p in sampler.workers.processes]
        samples, _ = sampler.obtain_samples(0)
    finally:
        sampler.shutdown()
    assert sampler.worker_env_ranks == [[0, 1, 2], [3, 4]]
    assert samples.env.env_info.pid.tolist() == [[pids[0]] * 3 + [pids[1]] * 2] * 3
    assert not alive(pids)


def test_default_worker_count_is_capped_at_batch_size():
    sampler = CpuSampler(EnvCls=ProbeEnv, env_kwargs={}, batch_T=2, batch_B=1)
    sampler.initialize(ClassicFfAgent(), seed=0)
    try:
        assert sampler.n_worker == 1
    finally:
        sampler.shutdown()


def test_cpu_sampler_runs_a_gaussian_agent():
    # Its example agent_info holds a tensor that requires grad (log_std); the shared-memory
    # size check must accept it, or CpuSampler cannot start a Gaussian agent.
    sampler = CpuSampler(gym_make, dict(id="Pendulum-v1"), batch_T=4, batch_B=2)
    sampler.initialize(MujocoFfAgent(), affinity=TWO_WORKERS, seed=0)
    try:
        samples, _ = sampler.obtain_samples(0)
        assert samples.agent.action.shape == (4, 2, 1)
    finally:
        sampler.shutdown()


# -- alternating samplers: a worker steps one half of its envs while the master serves the other


class GatedProbeEnv(ProbeEnv):
    """ProbeEnv whose env seeded ``gated_seed`` holds its first step until ``gate`` is set."""

    def __init__(self, gate, gated_seed):
        super().__init__()
        self.gate = gate
        self.gated_seed = gated_seed

    def step(self, action):
        if self._seed == self.gated_seed and self._steps == 0:
            if not self.gate.wait(timeout=20):
                raise RuntimeError("the master served no next step while this env stepped")
        return super().step(action)


class GateOpeningAgent(ClassicFfAgent):
    """Sets ``gate`` at its third step call after ``n_steps`` is zeroed: group 0 at time step
    1 (after group 0 and group 1 at time step 0)."""

    def __init__(self, gate):
        super().__init__()
        self.gate = gate
        self.n_steps = 0

    def step(self, observation, prev_action, prev_reward):
        self.n_steps += 1
        if self.n_steps == 3:
            self.gate.set()
        return super().step(observation, prev_action, prev_reward)


def test_alternating_worker_steps_one_half_while_the_master_serves_its_other_half():
    """Env 1 (group 1, on worker 0 with env 0 of group 0) waits, in its first step, until the
    master has computed group 0's actions for time step 1, which needs env 0's next
    observation from the same worker: only a worker that publishes one half's observations
    before stepping its other half gets there (one round trip for all its envs deadlocks)."""
    import multiprocessing as mp

    gate = mp.get_context("fork").Event()
    sampler = AlternatingSampler(
        EnvCls=GatedProbeEnv,
        env_kwargs=dict(gate=gate, gated_seed=1),
        batch_T=3,
        batch_B=4,
        max_decorrelation_steps=0,
        start_method="fork",
    )
    agent = GateOpeningAgent(gate)
    sampler.initialize(agent, affinity=dict(TWO_WORKERS, alternating=True), seed=0)
    agent.n_steps = 0  # the example step while building the buffers does not count
    try:
        samples, _ = sampler.obtain_samples(0)
        pid = samples.env.env_info.pid
        assert (pid[:, 0] == pid[:, 1]).all() and (pid[:, 0] != pid[:, 2]).all()
    finally:
        sampler.shutdown()
