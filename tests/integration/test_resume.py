"""Exact resume: N iterations straight == a run that crashes after N/2, resumed in a fresh runner.

Both runs use the same n_steps, so schedules (PPO's linear learning-rate decay) agree.
"""

import csv
import os

import pytest
import torch

from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.parallel.cpu.collectors import CpuWaitResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector, GpuWaitResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context

BATCH_T, BATCH_B, LOG_STEPS = 16, 4, 128  # 2 iterations per log interval


class CrashError(Exception):
    pass


class CrashingRl(MinibatchRl):
    """Dies at the start of iteration ``crash_itr`` (after the snapshot of the one before)."""

    crash_itr = 4

    def sample_and_optimize(self, itr):
        if itr == self.crash_itr:
            raise CrashError()
        return super().sample_and_optimize(itr)


def make_runner(
    n_steps,
    collector=None,
    RunnerCls=MinibatchRl,
    SamplerCls=SerialSampler,
    AgentCls=ClassicFfAgent,
):
    kwargs = {} if collector is None else dict(CollectorCls=collector)
    sampler = SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=BATCH_T,
        batch_B=BATCH_B,
        max_decorrelation_steps=20,
        **kwargs,
    )
    algo = PPO(minibatches=2, epochs=2, learning_rate=3e-3)
    return RunnerCls(
        algo=algo,
        agent=AgentCls(),
        sampler=sampler,
        n_steps=n_steps,
        log_interval_steps=LOG_STEPS,
        seed=7,
        log_traj_window=5,
    )


def read_rows(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


STAT_KEYS = (
    "Diagnostics/Iteration",
    "Diagnostics/CumSteps",
    "ReturnAverage",
    "LengthMax",
    "lossAverage",
    "entropyAverage",
    "Diagnostics/CumUpdates",
)


def run_straight_and_resumed(
    tmp_path, collector=None, SamplerCls=SerialSampler, AgentCls=ClassicFfAgent
):
    n_steps = 8 * BATCH_T * BATCH_B  # 8 iterations, 4 log points
    straight = make_runner(n_steps, collector, SamplerCls=SamplerCls, AgentCls=AgentCls)
    with logger_context(str(tmp_path / "straight"), 0, "r", {}, "last", override_prefix=True) as d:
        straight.train()
    straight_rows = read_rows(d)

    crashing = make_runner(n_steps, collector, CrashingRl, SamplerCls, AgentCls)
    log_dir = str(tmp_path / "resumed")
    with (
        pytest.raises(CrashError),
        logger_context(log_dir, 0, "r", {}, "last", override_prefix=True),
    ):
        crashing.train()
    resumed = make_runner(n_steps, collector, SamplerCls=SamplerCls, AgentCls=AgentCls)
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True, resume=True) as d:
        resumed.train(resume_from=True)
    return straight, straight_rows, resumed, read_rows(d)


def assert_same_run(straight, straight_rows, resumed, resumed_rows):
    for p, q in zip(straight.agent.parameters(), resumed.agent.parameters(), strict=True):
        assert torch.equal(p, q)
    assert len(straight_rows) == len(resumed_rows) == 4
    for a, b in zip(straight_rows, resumed_rows, strict=True):
        for key in STAT_KEYS:
            assert a[key] == b[key], (key, a[key], b[key])


def test_resume_is_exact(tmp_path):
    assert_same_run(*run_straight_and_resumed(tmp_path))


def test_resume_is_exact_with_wait_reset(tmp_path):
    assert_same_run(*run_straight_and_resumed(tmp_path, CpuWaitResetCollector))


@pytest.mark.parametrize(
    "SamplerCls, collector",
    [
        (CpuSampler, None),
        (CpuSampler, CpuWaitResetCollector),
        (GpuSampler, GpuResetCollector),
        (GpuSampler, GpuWaitResetCollector),
    ],
    ids=["cpu-reset", "cpu-wait", "gpu-reset", "gpu-wait"],
)
def test_resume_is_exact_with_parallel_samplers(tmp_path, SamplerCls, collector):
    # Each worker hands over its envs, carried inputs, TrajInfos and noise generator.
    assert_same_run(*run_straight_and_resumed(tmp_path, collector, SamplerCls))


@pytest.mark.parametrize("SamplerCls", [SerialSampler, CpuSampler])
def test_resume_is_exact_with_a_recurrent_agent(tmp_path, SamplerCls):
    # CPU workers step agents of their own: their recurrent state travels with the collector's.
    run = run_straight_and_resumed(tmp_path, CpuWaitResetCollector, SamplerCls, ClassicLstmAgent)
    assert_same_run(*run)


def test_parallel_resume_needs_the_same_number_of_workers():
    sampler = CpuSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=BATCH_T, batch_B=BATCH_B
    )
    sampler.initialize(ClassicFfAgent(), affinity=dict(workers_cpus=[0, 0]), seed=1)
    try:
        state = sampler.state_dict()
        assert len(state["workers"]) == 2
        state["workers"] = state["workers"][:1]
        with pytest.raises(ValueError, match="same number of workers"):
            sampler.load_state_dict(state)
    finally:
        sampler.shutdown()


def test_resume_without_snapshot_says_how(tmp_path):
    runner = make_runner(BATCH_T * BATCH_B)
    with logger_context(str(tmp_path / "none"), 0, "r", {}, "none", override_prefix=True):
        try:
            runner.train(resume_from=str(tmp_path / "none" / "run_0"))
        except FileNotFoundError as exc:
            assert "snapshot_mode" in str(exc)
        else:
            raise AssertionError("resuming without a snapshot must fail")
