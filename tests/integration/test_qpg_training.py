"""DDPG, TD3, SAC and SAC_V driven by the samplers; replay choice; time limits; exact resume."""

from __future__ import annotations

import copy
import csv
import os
from collections import namedtuple

import numpy as np
import pytest
import torch

from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.agents.qpg.sac_v_agent import SacAgent as SacVAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.algos.qpg.ddpg import DDPG
from rlpyt.algos.qpg.sac import SAC
from rlpyt.algos.qpg.sac_v import SAC_V
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.envs.base import Env, EnvStep
from rlpyt.envs.gym import make as gym_make
from rlpyt.replays.non_sequence.time_limit import TlUniformReplayBuffer
from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector, CpuWaitResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector, GpuWaitResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.spaces.float_box import FloatBox
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context

T, B = 4, 4
N_ITR = 8
SAMPLERS = {
    "serial-reset": (SerialSampler, CpuResetCollector, None),
    "serial-wait": (SerialSampler, CpuWaitResetCollector, None),
    "cpu-reset": (CpuSampler, CpuResetCollector, dict(workers_cpus=[0, 1], set_affinity=False)),
    "cpu-wait": (CpuSampler, CpuWaitResetCollector, dict(workers_cpus=[0, 1], set_affinity=False)),
    "gpu-reset": (GpuSampler, GpuResetCollector, dict(workers_cpus=[0, 1], set_affinity=False)),
    "gpu-wait": (GpuSampler, GpuWaitResetCollector, dict(workers_cpus=[0, 1], set_affinity=False)),
    "alternating": (
        AlternatingSampler,
        GpuResetCollector,
        dict(workers_cpus=[0, 1], set_affinity=False, alternating=True),
    ),
}
SMALL = dict(hidden_sizes=[16, 16])
FAMILIES = {
    "ddpg": (DDPG, DdpgAgent, dict(model_kwargs=SMALL, q_model_kwargs=SMALL)),
    "td3": (TD3, Td3Agent, dict(model_kwargs=SMALL, q_model_kwargs=SMALL)),
    "sac": (SAC, SacAgent, dict(model_kwargs=SMALL, q_model_kwargs=SMALL)),
    "sac_v": (
        SAC_V,
        SacVAgent,
        dict(model_kwargs=SMALL, q_model_kwargs=SMALL, v_model_kwargs=SMALL),
    ),
}
LOSS_COLUMN = {"ddpg": "qLoss", "td3": "qLoss", "sac": "q1Loss", "sac_v": "vLoss"}


def small_algo(family, **kwargs):
    AlgoCls = FAMILIES[family][0]
    settings = dict(
        batch_size=16,
        min_steps_learn=2 * T * B,
        replay_size=1_000,
        replay_ratio=8,
    )
    settings.update(kwargs)
    return AlgoCls(**settings)


def small_agent(family, **kwargs):
    _, AgentCls, settings = FAMILIES[family]
    return AgentCls(**settings, **kwargs)


def pendulum_sampler(SamplerCls=SerialSampler, CollectorCls=CpuResetCollector, **env_kwargs):
    return SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="Pendulum-v1", max_episode_steps=10, **env_kwargs),
        batch_T=T,
        batch_B=B,
        CollectorCls=CollectorCls,
        max_decorrelation_steps=3,
    )


def read_rows(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture
def quiet_logger():
    logger.disable()
    yield
    logger.enable()


def train(family, sampler="serial-reset", algo=None, agent=None, seed=0, **sampler_kwargs):
    SamplerCls, CollectorCls, affinity = SAMPLERS[sampler]
    algo = algo or small_algo(family)
    runner = MinibatchRl(
        algo=algo,
        agent=agent or small_agent(family),
        sampler=pendulum_sampler(SamplerCls, CollectorCls, **sampler_kwargs),
        n_steps=N_ITR * T * B,
        log_interval_steps=2 * T * B,
        affinity=affinity,
        seed=seed,
    )
    runner.train()
    return runner


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_algorithm_learns_from_the_serial_sampler(family, quiet_logger):
    runner = train(family)
    algo = runner.algo
    assert algo.min_itr_learn == 2
    assert algo.updates_per_optimize == 8 * T * B // 16
    assert algo.update_counter == (N_ITR - algo.min_itr_learn) * algo.updates_per_optimize
    assert type(algo.replay_buffer) is TlUniformReplayBuffer  # Pendulum has a time limit
    for param in runner.agent.parameters():
        assert torch.isfinite(param).all()


@pytest.mark.parametrize("sampler", [s for s in SAMPLERS if s != "serial-reset"])
@pytest.mark.parametrize("family", ["td3", "sac"])
def test_every_sampler_drives_qpg(sampler, family, quiet_logger):
    runner = train(family, sampler)
    algo = runner.algo
    assert algo.update_counter == (N_ITR - algo.min_itr_learn) * algo.updates_per_optimize
    assert algo.replay_buffer.t == (N_ITR * T) % algo.replay_buffer.T


def test_logged_columns_are_rlpyts(tmp_path):
    for family, columns in [
        ("ddpg", ["muLoss", "qLoss", "muGradNorm", "qGradNorm"]),
        (
            "sac",
            ["q1Loss", "q2Loss", "piLoss", "q1GradNorm", "q2GradNorm", "piGradNorm", "alpha"],
        ),
    ]:
        with logger_context(str(tmp_path / family), 0, "r", {}, override_prefix=True) as d:
            train(family)
        last = read_rows(d)[-1]
        for column in columns:
            assert np.isfinite(float(last[f"{column}Average"])), (family, column)


def test_bootstrap_timelimit_false_treats_timeouts_as_terminals(quiet_logger):
    runner = train("sac", algo=small_algo("sac", bootstrap_timelimit=False))
    replay = runner.algo.replay_buffer
    assert type(replay) is UniformReplayBuffer
    batch = replay.sample_batch(500)
    # Every Pendulum episode ends on its 10-step time limit: those rows are terminal now.
    assert bool(batch.done_n[batch.done].all())


def test_timeouts_bootstrap_and_drop_nothing(quiet_logger):
    runner = train("sac")
    batch = runner.algo.replay_buffer.sample_batch(500)
    assert bool(batch.timeout.any())
    assert not bool(batch.done_n.any())  # Pendulum never terminates
    discount = runner.algo.discount
    cut = batch.timeout_n.numpy()
    np.testing.assert_allclose(batch.target_discount.numpy()[~cut], discount, rtol=1e-6)


PointInfo = namedtuple("PointInfo", ["distance"])


class PointEnv(Env):
    """A 1-D point pushed toward 0; episodes end as terminals after 12 steps, no ``timeout``."""

    def __init__(self):
        self._action_space = FloatBox(low=-1.0, high=1.0, shape=(1,))
        self._observation_space = FloatBox(low=-10.0, high=10.0, shape=(2,))
        self._rng = np.random.default_rng(0)
        self.reset()

    def reset(self):
        self._x = float(self._rng.uniform(-1, 1))
        self._t = 0
        return self._observation()

    def _observation(self):
        return np.array([self._x, self._t / 12], dtype=np.float32)

    def step(self, action):
        self._x = float(np.clip(self._x + 0.1 * float(np.asarray(action).reshape(-1)[0]), -10, 10))
        self._t += 1
        done = self._t >= 12
        reward = np.float32(-abs(self._x))
        return EnvStep(self._observation(), reward, done, PointInfo(np.float32(abs(self._x))))

    def seed(self, seed=None):
        super().seed(seed)
        self._rng = np.random.default_rng(seed)


@pytest.mark.parametrize("family", ["ddpg", "sac"])
def test_env_without_time_limits_works(family, quiet_logger):
    # bootstrap_timelimit=True (the default) works with envs whose env_info has no ``timeout``
    # (the original rlpyt failed at buffer creation there).
    algo = small_algo(family)
    runner = MinibatchRl(
        algo=algo,
        agent=small_agent(family),
        sampler=SerialSampler(
            EnvCls=PointEnv, env_kwargs={}, batch_T=T, batch_B=B, max_decorrelation_steps=0
        ),
        n_steps=N_ITR * T * B,
        log_interval_steps=N_ITR * T * B,
        seed=0,
    )
    runner.train()
    assert type(algo.replay_buffer) is UniformReplayBuffer
    assert algo.update_counter > 0
    batch = algo.replay_buffer.sample_batch(500)
    assert bool(batch.done_n.any())


class CrashError(Exception):
    pass


class CrashingRl(MinibatchRl):
    crash_itr = 6

    def sample_and_optimize(self, itr):
        if itr == self.crash_itr:
            raise CrashError()
        return super().sample_and_optimize(itr)


def _resume_runner(RunnerCls, family, sampler):
    SamplerCls, CollectorCls, affinity = SAMPLERS[sampler]
    return RunnerCls(
        algo=small_algo(family, snapshot_replay=True, n_step_return=2),
        agent=small_agent(family),
        sampler=pendulum_sampler(SamplerCls, CollectorCls),
        n_steps=10 * T * B,
        log_interval_steps=2 * T * B,
        affinity=affinity,
        seed=5,
        log_traj_window=5,
    )


@pytest.mark.parametrize(
    "family, sampler",
    [
        ("sac", "serial-reset"),
        ("td3", "serial-wait"),
        ("ddpg", "cpu-wait"),
        ("sac_v", "serial-reset"),
    ],
)
def test_resume_with_replay_is_exact(tmp_path, family, sampler):
    straight = _resume_runner(MinibatchRl, family, sampler)
    with logger_context(str(tmp_path / "s"), 0, "r", {}, "last", override_prefix=True) as d:
        straight.train()
    straight_rows = read_rows(d)
    crashing = _resume_runner(CrashingRl, family, sampler)
    log_dir = str(tmp_path / "r")
    with (
        pytest.raises(CrashError),
        logger_context(log_dir, 0, "r", {}, "last", override_prefix=True),
    ):
        crashing.train()
    resumed = _resume_runner(MinibatchRl, family, sampler)
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True, resume=True) as d:
        resumed.train(resume_from=True)
    resumed_rows = read_rows(d)
    assert len(straight_rows) == len(resumed_rows) == 5
    keys = (
        "Diagnostics/CumSteps",
        "Diagnostics/CumUpdates",
        "ReturnAverage",
        f"{LOSS_COLUMN[family]}Average",
    )
    for a, b in zip(straight_rows, resumed_rows, strict=True):
        for key in keys:
            assert a[key] == b[key], (key, a[key], b[key])
    straight_state = straight.agent.state_dict()
    resumed_state = resumed.agent.state_dict()
    assert straight_state.keys() == resumed_state.keys()
    for name in straight_state:
        for key, value in straight_state[name].items():
            assert torch.equal(value, resumed_state[name][key]), (name, key)


def test_shared_target_pass_equals_one_update_at_a_time(quiet_logger):
    # DDPG draws the minibatches of all updates up to the next target update at once and
    # computes their targets in one pass; one update at a time on the same minibatches must
    # give the same weights (TD3 is left out: its target smoothing noise is drawn per pass).
    k = 4
    algo = small_algo("ddpg", min_steps_learn=10**6, target_update_interval=k)
    runner = MinibatchRl(
        algo=algo,
        agent=small_agent("ddpg"),
        sampler=pendulum_sampler(),
        n_steps=N_ITR * T * B,
        log_interval_steps=N_ITR * T * B,
        seed=3,
    )
    runner.train()  # fills the replay, no learning
    algo.updates_per_optimize, algo.min_itr_learn = k, 0
    big = algo.replay_buffer.sample_batch(k * algo.batch_size)
    start_agent = {
        name: {key: value.clone() for key, value in state.items()}
        for name, state in algo.agent.state_dict().items()
    }
    start_optim = copy.deepcopy(algo.optim_state_dict())

    def run(shared):
        algo.agent.load_state_dict(start_agent)
        algo.load_optim_state_dict(copy.deepcopy(start_optim))
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
        state = algo.agent.state_dict()
        return info, {name: {key: v.clone() for key, v in s.items()} for name, s in state.items()}

    shared_info, shared_state = run(shared=True)
    single_info, single_state = run(shared=False)
    assert algo.update_counter == k
    assert len(shared_info.qLoss) == k
    np.testing.assert_allclose(shared_info.qLoss, single_info.qLoss, rtol=1e-5)
    for name in shared_state:
        for key in shared_state[name]:
            torch.testing.assert_close(
                shared_state[name][key], single_state[name][key], rtol=1e-5, atol=1e-6
            )
