"""R2D1 driven by the serial, CPU, GPU and alternating samplers; stored states; exact resume."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicR2d1Agent, ClassicR2d1AlternatingAgent
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector, CpuWaitResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context
from tests.integration.test_dqn_training import STAT_KEYS, CrashError, read_rows

T, B = 8, 4
N_ITR = 6
WORKERS = dict(workers_cpus=[0, 1], set_affinity=False)
SAMPLERS = {
    "serial-reset": (SerialSampler, CpuResetCollector, None, ClassicR2d1Agent),
    "serial-wait": (SerialSampler, CpuWaitResetCollector, None, ClassicR2d1Agent),
    "cpu-reset": (CpuSampler, CpuResetCollector, WORKERS, ClassicR2d1Agent),
    "gpu-reset": (GpuSampler, GpuResetCollector, WORKERS, ClassicR2d1Agent),
    "alternating": (
        AlternatingSampler,
        GpuResetCollector,
        dict(WORKERS, alternating=True),
        ClassicR2d1AlternatingAgent,
    ),
}
MODEL = dict(hidden_sizes=[16], lstm_size=8, head_size=16)


def small_r2d1(**kwargs):
    settings = dict(
        batch_T=8,
        batch_B=4,
        warmup_T=4,
        store_rnn_state_interval=4,
        n_step_return=2,
        min_steps_learn=3 * T * B,
        replay_size=1_000,
        replay_ratio=4,
        target_update_interval=3,
        eps_steps=200,
        learning_rate=1e-3,
        discount=0.99,
    )
    settings.update(kwargs)
    return R2D1(**settings)


def runner_for(sampler, n_itr=N_ITR, RunnerCls=MinibatchRl, **algo_kwargs):
    SamplerCls, CollectorCls, affinity, AgentCls = SAMPLERS[sampler]
    return RunnerCls(
        algo=small_r2d1(**algo_kwargs),
        agent=AgentCls(model_kwargs=MODEL),
        sampler=SamplerCls(
            EnvCls=gym_make,
            env_kwargs=dict(id="CartPole-v1"),
            batch_T=T,
            batch_B=B,
            CollectorCls=CollectorCls,
            max_decorrelation_steps=5,
        ),
        n_steps=n_itr * T * B,
        log_interval_steps=2 * T * B,
        affinity=affinity,
        seed=3,
        log_traj_window=5,
    )


@pytest.fixture
def quiet_logger():
    logger.disable()
    yield
    logger.enable()


@pytest.mark.parametrize("sampler", list(SAMPLERS))
def test_every_sampler_drives_r2d1_and_the_replay_keeps_the_agents_states(sampler, quiet_logger):
    runner = runner_for(sampler)
    algo = runner.algo
    batches = []
    append = algo.append_samples

    def spy(samples):  # the states and priorities the algorithm hands to the replay
        info = samples.agent.agent_info
        batches.append(
            (int(algo.replay_buffer.t), torch.as_tensor(info.prev_rnn_state.h).clone().numpy())
        )
        append(samples)

    algo.append_samples = spy
    runner.train()
    assert algo.update_counter == (N_ITR - algo.min_itr_learn) * algo.updates_per_optimize > 0
    replay = algo.replay_buffer
    assert replay.t == (N_ITR * T) % replay.T
    # The replay's state at each stored row (every 4th) is the one the agent recorded there.
    for t_start, h in batches:
        for r in range(T):
            if (t_start + r) % 4 == 0:
                stored = replay.samples_prev_rnn_state.h[(t_start + r) // 4]
                np.testing.assert_array_equal(stored, h[r])
    assert any(np.abs(h).sum() > 0 for _, h in batches)  # real states, not only zeros
    batch = replay.sample_batch(4)
    loss, _, _, priorities = algo.loss(batch)
    assert torch.isfinite(loss) and torch.all(priorities > 0)


def test_resume_with_replay_is_exact(tmp_path):
    class CrashingRl(MinibatchRl):
        def sample_and_optimize(self, itr):
            if itr == 7:
                raise CrashError()
            return super().sample_and_optimize(itr)

    def make(RunnerCls):
        return runner_for("serial-reset", 10, RunnerCls, snapshot_replay=True)

    straight = make(MinibatchRl)
    with logger_context(str(tmp_path / "s"), 0, "r", {}, "last", override_prefix=True) as d:
        straight.train()
    straight_rows = read_rows(d)
    log_dir = str(tmp_path / "r")
    with (
        pytest.raises(CrashError),
        logger_context(log_dir, 0, "r", {}, "last", override_prefix=True),
    ):
        make(CrashingRl).train()
    resumed = make(MinibatchRl)
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True, resume=True) as d:
        resumed.train(resume_from=True)
    resumed_rows = read_rows(d)
    assert len(straight_rows) == len(resumed_rows) == 5
    for a, b in zip(straight_rows, resumed_rows, strict=True):
        for key in (*STAT_KEYS, "priorityAverage"):
            assert a[key] == b[key], (key, a[key], b[key])
    for p, q in zip(straight.agent.parameters(), resumed.agent.parameters(), strict=True):
        assert torch.equal(p, q)
