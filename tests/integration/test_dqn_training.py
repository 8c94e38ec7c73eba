"""DQN and CategoricalDQN driven by every sampler and collector; replay choice; exact resume."""

from __future__ import annotations

import copy
import csv
import math
import os

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.agents.dqn.classic import ClassicCatDqnAgent, ClassicDqnAgent
from rlpyt.algos.dqn.cat_dqn import CategoricalDQN
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.envs.gym import make as gym_make
from rlpyt.replays.non_sequence.frame import UniformReplayFrameBuffer
from rlpyt.replays.non_sequence.prioritized import PrioritizedReplayBuffer
from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector, CpuWaitResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector, GpuWaitResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context

T, B = 8, 4
SAMPLERS = {
    "serial-reset": (SerialSampler, CpuResetCollector, None),
    "serial-wait": (SerialSampler, CpuWaitResetCollector, None),
    "cpu-reset": (CpuSampler, CpuResetCollector, dict(workers_cpus=[0, 1], set_affinity=False)),
    "cpu-wait": (CpuSampler, CpuWaitResetCollector, dict(workers_cpus=[0, 1], set_affinity=False)),
    "gpu-reset": (GpuSampler, GpuResetCollector, dict(workers_cpus=[0, 1], set_affinity=False)),
    "gpu-wait": (
        GpuSampler,
        GpuWaitResetCollector,
        dict(workers_cpus=[0, 1], set_affinity=False),
    ),
    "alternating": (
        AlternatingSampler,
        GpuResetCollector,
        dict(workers_cpus=[0, 1], set_affinity=False, alternating=True),
    ),
}


def small_dqn(AlgoCls=DQN, **kwargs):
    settings = dict(
        batch_size=16,
        min_steps_learn=64,
        replay_size=2_000,
        replay_ratio=4,
        target_update_interval=5,
        eps_steps=500,
        learning_rate=1e-3,
    )
    settings.update(kwargs)
    return AlgoCls(**settings)


def cartpole_sampler(SamplerCls=SerialSampler, CollectorCls=CpuResetCollector, **kwargs):
    return SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=T,
        batch_B=B,
        CollectorCls=CollectorCls,
        max_decorrelation_steps=10,
        **kwargs,
    )


def read_rows(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture
def quiet_logger():
    logger.disable()
    yield
    logger.enable()


@pytest.mark.parametrize("sampler", list(SAMPLERS))
@pytest.mark.parametrize("categorical", [False, True], ids=["dqn", "catdqn"])
def test_every_sampler_drives_dqn(sampler, categorical, quiet_logger):
    SamplerCls, CollectorCls, affinity = SAMPLERS[sampler]
    AlgoCls, AgentCls = (
        (CategoricalDQN, ClassicCatDqnAgent) if categorical else (DQN, ClassicDqnAgent)
    )
    algo = small_dqn(AlgoCls, prioritized_replay=categorical)  # both replay kinds get used
    runner = MinibatchRl(
        algo=algo,
        agent=AgentCls(model_kwargs=dict(hidden_sizes=[16])),
        sampler=cartpole_sampler(SamplerCls, CollectorCls),
        n_steps=6 * T * B,
        log_interval_steps=T * B,
        affinity=affinity,
        seed=0,
    )
    runner.train()
    assert algo.update_counter == (6 - algo.min_itr_learn) * algo.updates_per_optimize
    assert algo.replay_buffer.t == (6 * T) % algo.replay_buffer.T


def test_replay_is_chosen_from_the_observation(quiet_logger):
    cartpole = small_dqn()
    MinibatchRl(
        cartpole,
        ClassicDqnAgent(),
        cartpole_sampler(),
        n_steps=T * B,
        log_interval_steps=T * B,
        seed=0,
    ).train()
    assert type(cartpole.replay_buffer) is UniformReplayBuffer
    prioritized = small_dqn(prioritized_replay=True)
    MinibatchRl(
        prioritized,
        ClassicDqnAgent(),
        cartpole_sampler(),
        n_steps=T * B,
        log_interval_steps=T * B,
        seed=0,
    ).train()
    assert type(prioritized.replay_buffer) is PrioritizedReplayBuffer
    atari = small_dqn(min_steps_learn=10**6)
    sampler = SerialSampler(
        EnvCls=AtariEnv,
        env_kwargs=dict(game="pong"),
        batch_T=2,
        batch_B=2,
        TrajInfoCls=AtariTrajInfo,
        max_decorrelation_steps=0,
    )
    MinibatchRl(atari, AtariDqnAgent(), sampler, n_steps=8, log_interval_steps=8, seed=0).train()
    assert type(atari.replay_buffer) is UniformReplayFrameBuffer


def test_prioritized_needs_a_prioritized_replay_class():
    with pytest.raises(ValueError, match="keeps no priorities"):
        DQN(prioritized_replay=True, ReplayBufferCls=UniformReplayBuffer)
    with pytest.raises(ValueError, match="prioritized_replay=True"):
        DQN(ReplayBufferCls=PrioritizedReplayBuffer)


def test_replay_ratio_columns_mean_what_rlpyt_means(tmp_path):
    algo = small_dqn(replay_ratio=8, batch_size=16)
    runner = MinibatchRl(
        algo,
        ClassicDqnAgent(),
        cartpole_sampler(),
        n_steps=10 * T * B,
        log_interval_steps=2 * T * B,
        seed=0,
    )
    with logger_context(str(tmp_path), 0, "r", {}, override_prefix=True) as run_dir:
        runner.train()
    rows = read_rows(run_dir)
    last = rows[-1]
    # Updates x batch size per sampled step: 2 updates of 16 per 32 samples.
    assert float(last["Diagnostics/ReplayRatio"]) == pytest.approx(8.0)
    cum_updates = float(last["Diagnostics/CumUpdates"])
    assert cum_updates == algo.update_counter
    expected = cum_updates * 16 / float(last["Diagnostics/CumSteps"])
    assert float(last["Diagnostics/CumReplayRatio"]) == pytest.approx(expected)
    assert math.isfinite(float(last["lossAverage"]))


class CrashError(Exception):
    pass


class CrashingRl(MinibatchRl):
    crash_itr = 6

    def sample_and_optimize(self, itr):
        if itr == self.crash_itr:
            raise CrashError()
        return super().sample_and_optimize(itr)


def _resume_runner(RunnerCls, SamplerCls, CollectorCls, affinity, AlgoCls, AgentCls):
    algo = small_dqn(AlgoCls, snapshot_replay=True, prioritized_replay=True, n_step_return=3)
    return RunnerCls(
        algo=algo,
        agent=AgentCls(model_kwargs=dict(hidden_sizes=[16])),
        sampler=cartpole_sampler(SamplerCls, CollectorCls),
        n_steps=10 * T * B,
        log_interval_steps=2 * T * B,
        affinity=affinity,
        seed=5,
        log_traj_window=5,
    )


STAT_KEYS = (
    "Diagnostics/CumSteps",
    "Diagnostics/CumUpdates",
    "ReturnAverage",
    "lossAverage",
    "tdAbsErrAverage",
    "gradNormMax",
)


@pytest.mark.parametrize(
    "sampler, categorical",
    [("serial-reset", False), ("serial-wait", True), ("cpu-wait", False)],
)
def test_resume_with_replay_is_exact(tmp_path, sampler, categorical):
    SamplerCls, CollectorCls, affinity = SAMPLERS[sampler]
    classes = (CategoricalDQN, ClassicCatDqnAgent) if categorical else (DQN, ClassicDqnAgent)
    args = (SamplerCls, CollectorCls, affinity, *classes)
    straight = _resume_runner(MinibatchRl, *args)
    with logger_context(str(tmp_path / "s"), 0, "r", {}, "last", override_prefix=True) as d:
        straight.train()
    straight_rows = read_rows(d)
    crashing = _resume_runner(CrashingRl, *args)
    log_dir = str(tmp_path / "r")
    with (
        pytest.raises(CrashError),
        logger_context(log_dir, 0, "r", {}, "last", override_prefix=True),
    ):
        crashing.train()
    resumed = _resume_runner(MinibatchRl, *args)
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True, resume=True) as d:
        resumed.train(resume_from=True)
    resumed_rows = read_rows(d)
    assert len(straight_rows) == len(resumed_rows) == 5
    for a, b in zip(straight_rows, resumed_rows, strict=True):
        for key in STAT_KEYS:
            assert a[key] == b[key], (key, a[key], b[key])
    for p, q in zip(straight.agent.parameters(), resumed.agent.parameters(), strict=True):
        assert torch.equal(p, q)
    for p, q in zip(
        straight.agent.target_model.parameters(),
        resumed.agent.target_model.parameters(),
        strict=True,
    ):
        assert torch.equal(p, q)


def test_resume_without_replay_refills_before_learning(tmp_path):
    args = (SerialSampler, CpuResetCollector, None, DQN, ClassicDqnAgent)
    crashing = _resume_runner(CrashingRl, *args)
    crashing.algo.snapshot_replay = False
    log_dir = str(tmp_path / "r")
    with (
        pytest.raises(CrashError),
        logger_context(log_dir, 0, "r", {}, "last", override_prefix=True),
    ):
        crashing.train()
    resumed = _resume_runner(MinibatchRl, *args)
    resumed.algo.snapshot_replay = False
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True, resume=True):
        resumed.train(resume_from=True)
    algo = resumed.algo
    # Crashed at itr 6 after the snapshot of itr 5; itrs 6 and 7 refill (min_itr_learn = 2).
    learned_itrs = 10 - 6 - algo.min_itr_learn
    before = (6 - algo.min_itr_learn) * algo.updates_per_optimize
    assert algo.update_counter == before + learned_itrs * algo.updates_per_optimize


def test_wait_reset_padding_is_never_replayed(quiet_logger):
    algo = small_dqn(min_steps_learn=10**6)  # only fill the replay
    runner = MinibatchRl(
        algo,
        ClassicDqnAgent(),
        cartpole_sampler(CollectorCls=CpuWaitResetCollector),
        n_steps=40 * T * B,
        log_interval_steps=40 * T * B,
        seed=1,
    )
    runner.train()
    replay = algo.replay_buffer
    batches = [replay.sample_batch(1000) for _ in range(4)]
    done = np.concatenate([b.done.numpy() for b in batches])
    return_ = np.concatenate([b.return_.numpy() for b in batches])
    # Padding rows repeat the last observation with done=True; a sampled row is never one
    # whose previous step (same column) was a done that the env waited after, i.e. never a
    # row after a done within the same batch.
    assert done.any()  # real episode ends are replayed
    assert not bool(np.any(done & (return_ == 0)))


@pytest.mark.parametrize("categorical", [False, True], ids=["dqn", "catdqn"])
def test_shared_replay_draw_equals_one_update_at_a_time(categorical, quiet_logger):
    # optimize_agent draws the minibatches of all updates up to the next target update at
    # once and computes their targets in one pass; one update at a time on the same
    # minibatches must give the same weights.
    AlgoCls, AgentCls = (
        (CategoricalDQN, ClassicCatDqnAgent) if categorical else (DQN, ClassicDqnAgent)
    )
    k = 4
    algo = small_dqn(AlgoCls, min_steps_learn=10**6, target_update_interval=k)
    runner = MinibatchRl(
        algo,
        AgentCls(model_kwargs=dict(hidden_sizes=[16])),
        cartpole_sampler(),
        n_steps=8 * T * B,
        log_interval_steps=8 * T * B,
        seed=3,
    )
    runner.train()  # fills the replay, no learning
    algo.updates_per_optimize, algo.min_itr_learn = k, 0
    big = algo.replay_buffer.sample_batch(k * algo.batch_size)
    start_agent = {
        name: {key: value.clone() for key, value in state.items()}
        for name, state in algo.agent.state_dict().items()
    }
    start_optim = copy.deepcopy(algo.optimizer.state_dict())

    def run(shared):
        algo.agent.load_state_dict(start_agent)
        algo.optimizer.load_state_dict(copy.deepcopy(start_optim))
        algo.update_counter = 0
        draws = iter(range(k))
        if shared:
            algo.replay_buffer.sample_batch = lambda n: big
        else:
            algo.updates_per_draw = lambda remaining, until_target_update: 1
            bs = algo.batch_size
            algo.replay_buffer.sample_batch = lambda n: big[(j := next(draws)) * bs : (j + 1) * bs]
        info = algo.optimize_agent(100)
        del algo.replay_buffer.sample_batch
        algo.__dict__.pop("updates_per_draw", None)
        return info, {key: value.clone() for key, value in algo.agent.state_dict()["model"].items()}

    shared_info, shared_weights = run(shared=True)
    single_info, single_weights = run(shared=False)
    assert algo.update_counter == k
    np.testing.assert_allclose(shared_info.loss, single_info.loss, rtol=1e-5)
    for key in shared_weights:
        torch.testing.assert_close(shared_weights[key], single_weights[key], rtol=1e-5, atol=1e-6)
    target = algo.agent.target_model.state_dict()
    for key, value in single_weights.items():  # the target update after the k-th step
        torch.testing.assert_close(target[key], value)
