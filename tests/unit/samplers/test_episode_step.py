"""The one episode step: rows against a naive loop, and every collector stepping through it."""

import copy
import os
from types import SimpleNamespace

import numpy as np
import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.envs.traj_info import TrajInfo
from rlpyt.envs.vector import EnvListMaker
from rlpyt.samplers.buffer import build_samples_buffer, build_step_buffer
from rlpyt.samplers.collections import BatchSpec
from rlpyt.samplers.episode import EpisodeStepper
from rlpyt.samplers.parallel.cpu.collectors import (
    CpuEvalCollector,
    CpuResetCollector,
    CpuWaitResetCollector,
)
from rlpyt.samplers.parallel.gpu.collectors import (
    GpuEvalCollector,
    GpuResetCollector,
    GpuWaitResetCollector,
)
from rlpyt.samplers.serial.collectors import SerialEvalCollector
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.collections import AttrDict
from tests.unit.samplers.sampler_helpers import ProbeEnv

B, T = 3, 24


def serial_collector(CollectorCls, EnvCls=ProbeEnv, **kwargs):  # noqa: N803
    sampler = SerialSampler(
        EnvCls=EnvCls,
        env_kwargs={},
        batch_T=T,
        batch_B=B,
        CollectorCls=CollectorCls,
        max_decorrelation_steps=0,
        **kwargs,
    )
    sampler.initialize(ClassicFfAgent(), seed=5)
    return sampler


def step_arrays(collector):
    observation = np.stack([env.reset() for env in collector.envs])
    return observation, np.zeros(B, np.float32), np.zeros(B, bool)


def test_reset_collector_rows_match_a_naive_loop():
    sampler = serial_collector(CpuResetCollector)
    collector = sampler.collector
    observation, reward, done = step_arrays(collector)
    naive_envs = copy.deepcopy(collector.envs)
    traj_infos = [TrajInfo() for _ in range(B)]
    completed, naive_lengths, lengths = [], [], [0] * B
    for t in range(T):
        action = np.array([(t + b) % 2 for b in range(B)])
        collector.step_envs(action, observation, reward, done, None, traj_infos, completed)
        for b, env in enumerate(naive_envs):
            o, r, d, _ = env.step(action[b])
            lengths[b] += 1
            if d:
                naive_lengths.append(lengths[b])
                lengths[b] = 0
                o = env.reset()
            assert np.array_equal(observation[b], o) and reward[b] == r and done[b] == d
    assert [traj.Length for traj in completed] == naive_lengths
    assert [traj.Length for traj in traj_infos] == lengths
    sampler.shutdown()


def test_wait_reset_rows_freeze_a_done_env_until_reset_if_needed():
    sampler = serial_collector(CpuWaitResetCollector)
    collector = sampler.collector
    observation, reward, done = step_arrays(collector)
    naive_envs = copy.deepcopy(collector.envs)
    traj_infos = [TrajInfo() for _ in range(B)]
    completed, waiting = [], [False] * B
    for _ in range(T):
        action = np.ones(B, dtype=np.int64)
        env_infos = collector.step_envs(
            action, observation, reward, done, None, traj_infos, completed
        )
        for b, env in enumerate(naive_envs):
            if waiting[b]:  # not stepped: null action, zero reward, done, last observation
                assert action[b] == 0 and reward[b] == 0 and done[b] and env_infos[b] is None
                continue
            o, r, d, _ = env.step(1)
            waiting[b] = d
            assert np.array_equal(observation[b], o) and reward[b] == r and done[b] == d
    assert any(waiting), "ProbeEnv episodes last 5..14 steps"
    assert list(collector.need_reset) == waiting
    inputs = SimpleNamespace(observation=observation, prev_action=action, prev_reward=reward)
    collector.reset_if_needed(inputs)
    for b, env in enumerate(naive_envs):
        if waiting[b]:
            assert np.array_equal(observation[b], env.reset())
            assert action[b] == 0 and reward[b] == 0
    assert not collector.need_reset.any() and not collector.need_env_reset.any()
    sampler.shutdown()


class Semaphore:
    """Always available: the test plays the action server (actions stay the null action)."""

    def release(self):
        pass

    def acquire(self, timeout=None):
        return True


def gpu_parts(envs, eval_envs):
    """Samples and step buffers and a sync record, as a GPU worker gets them."""
    agent = ClassicFfAgent()
    agent.initialize(envs[0].spaces)
    _, samples_np, examples = build_samples_buffer(
        agent, ProbeEnv(), BatchSpec(T, B), agent_shared=False, env_shared=False
    )
    step_np, _ = build_step_buffer(examples, B, shared=False)
    eval_step_np, _ = build_step_buffer(examples, len(eval_envs), shared=False)
    sync = AttrDict(
        obs_ready=Semaphore(),
        act_ready=Semaphore(),
        eval_obs_ready=Semaphore(),
        eval_act_ready=Semaphore(),
        quit=SimpleNamespace(value=False),
        stop_eval=SimpleNamespace(value=False),
        eval_active=np.ones(len(eval_envs), dtype=bool),
        parent_pid=os.getppid(),
    )
    return samples_np, step_np, eval_step_np, sync


@pytest.fixture
def step_calls(monkeypatch):
    """Counts EpisodeStepper.step_envs calls per collector class (it still steps)."""
    calls = {}
    step_envs = EpisodeStepper.step_envs

    def counting(self, *args):
        calls[type(self).__name__] = calls.get(type(self).__name__, 0) + 1
        return step_envs(self, *args)

    monkeypatch.setattr(EpisodeStepper, "step_envs", counting)
    return calls


@pytest.mark.parametrize("CollectorCls", [CpuResetCollector, CpuWaitResetCollector])
def test_agent_collectors_step_through_the_episode_step(step_calls, CollectorCls):  # noqa: N803
    sampler = serial_collector(CollectorCls)
    sampler.obtain_samples(0)
    assert step_calls == {CollectorCls.__name__: T}
    sampler.shutdown()


@pytest.mark.parametrize("CollectorCls", [GpuResetCollector, GpuWaitResetCollector])
def test_gpu_collectors_step_through_the_episode_step(step_calls, CollectorCls):  # noqa: N803
    envs = [ProbeEnv() for _ in range(B)]
    samples_np, step_np, _, sync = gpu_parts(envs, [])
    collector = CollectorCls(
        rank=0,
        envs=envs,
        samples_np=samples_np,
        batch_T=T,
        TrajInfoCls=TrajInfo,
        sync=sync,
        step_buffer_np=step_np,
    )
    agent_inputs, traj_infos = collector.start_envs(0)
    _, _, completed = collector.collect_batch(agent_inputs, traj_infos, 0)
    assert step_calls == {CollectorCls.__name__: T}
    assert completed and samples_np.env.done.any()


def test_eval_collectors_step_through_the_episode_step(step_calls):
    agent = ClassicFfAgent()
    agent.initialize(ProbeEnv().spaces)
    serial = SerialEvalCollector([ProbeEnv() for _ in range(2)], agent, TrajInfo, max_T=30)
    cpu = CpuEvalCollector(0, [ProbeEnv() for _ in range(2)], TrajInfo, max_T=30, agent=agent)
    eval_envs = [ProbeEnv() for _ in range(2)]
    _, _, eval_step_np, sync = gpu_parts([ProbeEnv()], eval_envs)
    gpu = GpuEvalCollector(0, eval_envs, TrajInfo, max_T=30, sync=sync, step_buffer_np=eval_step_np)
    for collector in (serial, cpu, gpu):
        assert all(len(per_env) >= 2 for per_env in collector.collect_per_env(0))
    assert step_calls == {"SerialEvalCollector": 30, "CpuEvalCollector": 30, "GpuEvalCollector": 30}


def test_eval_buffers_are_built_once_and_reused():
    agent = ClassicFfAgent()
    agent.initialize(ProbeEnv().spaces)
    collector = SerialEvalCollector([ProbeEnv() for _ in range(2)], agent, TrajInfo, max_T=20)
    collector.collect_evaluation(0)
    buffers = collector._buffers
    collector.collect_evaluation(1)
    assert all(a is b for a, b in zip(buffers, collector._buffers, strict=True))


@pytest.mark.parametrize("CollectorCls", [CpuResetCollector, CpuWaitResetCollector])
def test_vector_collectors_step_through_the_episode_step(step_calls, CollectorCls):  # noqa: N803
    """Over a vector env the collectors' twins take the same step (its vector phases)."""
    sampler = serial_collector(
        CollectorCls, EnvListMaker(ProbeEnv), eval_n_envs=2, eval_max_steps=40
    )
    sampler.obtain_samples(0)
    assert step_calls == {"Vec" + CollectorCls.__name__: T}
    assert sampler.evaluate_agent(0)
    assert step_calls["VecSerialEvalCollector"] > 0
    sampler.shutdown()


def filing(CollectorCls, record):  # noqa: N803
    """``CollectorCls`` with its trajectory-end and done hooks recording into ``record``."""

    class Filing(CollectorCls):
        def _file_trajectory(self, b, traj_info, completed):
            record.append(("filed", b, traj_info.Length, traj_info.Return))
            super()._file_trajectory(b, traj_info, completed)

        def _restart_env(self, b, observation):
            record.append(("restart", b))
            return super()._restart_env(b, observation)

        def _env_done(self, b):
            record.append(("done", b))
            super()._env_done(b)

    return Filing


@pytest.mark.parametrize("CollectorCls", [CpuResetCollector, CpuWaitResetCollector])
def test_both_paths_call_a_collectors_hooks_alike(CollectorCls):  # noqa: N803
    """Per-env envs and the same envs as a vector env: the same hook calls, in order."""
    records = []
    for EnvCls in (ProbeEnv, EnvListMaker(ProbeEnv)):  # noqa: N806
        record = []
        sampler = serial_collector(filing(CollectorCls, record), EnvCls)
        completed = [sampler.obtain_samples(itr)[1] for itr in range(3)]
        sampler.shutdown()
        records.append((record, [[(t.Length, t.Return) for t in c] for c in completed]))
    (per_env, per_env_completed), (vector, vector_completed) = records
    if CollectorCls.mid_batch_reset:  # the vector env resets ended envs itself
        per_env = [entry for entry in per_env if entry[0] != "restart"]
    assert vector == per_env
    assert vector_completed == per_env_completed
    kinds = [entry[0] for entry in records[0][0]]
    assert kinds.count("filed") == kinds.count("restart") >= 3 * B  # 5..14-step episodes, T=24
    assert kinds.count("done") >= kinds.count("filed")
