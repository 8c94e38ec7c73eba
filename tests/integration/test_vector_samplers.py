"""Vector collectors against per-env collectors, and the vector path through every sampler.

The reference vector env (``tests.unit.samplers.vector_helpers.ListVecEnv``) steps the same
per-env CartPoles the per-env collectors step, so for a fixed seed the vector collectors must
write the same samples and hand in the same TrajInfos, field by field, over several iterations
across episode ends and time limits: serial, CPU and GPU samplers, reset and wait-reset
collectors, feed-forward and recurrent agents.
"""

import copy

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent, ClassicR2d1Agent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.qpg.sac import SAC
from rlpyt.envs.gym import make as gym_make
from rlpyt.envs.gym_vector import make_vec
from rlpyt.envs.vector import EnvListMaker
from rlpyt.runners.async_rl import AsyncRl
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlEval
from rlpyt.samplers.async_.collectors import (
    DbCpuResetCollector,
    DbCpuWaitResetCollector,
    DbGpuResetCollector,
)
from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
from rlpyt.samplers.async_.gpu_sampler import AsyncGpuSampler
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector, CpuWaitResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector, GpuWaitResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.samplers.vector import TrajInfoBatch, VecEnvSlot
from rlpyt.utils.logging import logger
from tests.integration.test_parallel_samplers import TWO_WORKERS, assert_same_samples
from tests.unit.samplers.vector_helpers import CountEnv, count_vec_make, list_vec_make

ENV = dict(id="CartPole-v1", max_episode_steps=30)  # time limits within a few batches


def collector(SamplerCls, wait_reset):
    if SamplerCls is GpuSampler:
        return GpuWaitResetCollector if wait_reset else GpuResetCollector
    return CpuWaitResetCollector if wait_reset else CpuResetCollector


def run(SamplerCls, EnvCls, env_kwargs, wait_reset=False, recurrent=False, n_itr=4, **kw):
    """Samples and TrajInfos of ``n_itr`` iterations (parameters scaled in between)."""
    torch.manual_seed(0)
    sampler = SamplerCls(
        EnvCls=EnvCls,
        env_kwargs=env_kwargs,
        batch_T=16,
        batch_B=8,
        CollectorCls=collector(SamplerCls, wait_reset),
        max_decorrelation_steps=0,
        **kw,
    )
    agent = ClassicLstmAgent() if recurrent else ClassicFfAgent()
    affinity = None if SamplerCls is SerialSampler else TWO_WORKERS
    sampler.initialize(agent, affinity=affinity, seed=3, bootstrap_value=True)
    batches, infos = [], []
    try:
        for itr in range(n_itr):
            agent.sample_mode(itr)
            samples, traj_infos = sampler.obtain_samples(itr)
            batches.append(copy.deepcopy(samples))
            infos.append(canonical(traj_infos))
            with torch.no_grad():
                for param in agent.parameters():
                    param.mul_(1.1)
        if sampler.eval_n_envs:
            infos.append(canonical(sampler.evaluate_agent(n_itr)))
    finally:
        sampler.shutdown()
    return batches, infos


def same_samples(expected, actual, path, SamplerCls):  # noqa: N803
    """Equal samples; GPU collectors (no agent in the worker) leave ``timeout_value`` NaN."""
    if SamplerCls is not GpuSampler:
        assert_same_samples(expected, actual, path)
        return
    assert torch.isnan(actual.agent.timeout_value).all()
    assert_same_samples(expected.env, actual.env, path + ".env")
    for field in ("action", "prev_action", "agent_info", "bootstrap_value"):
        assert_same_samples(
            getattr(expected.agent, field), getattr(actual.agent, field), f"{path}.{field}"
        )


def canonical(traj_infos):
    """TrajInfos as dicts, in a fixed order (parallel samplers gather them by worker)."""
    return sorted((dict(t) for t in traj_infos), key=lambda d: sorted(d.items()))


def assert_resumes_exactly(sampler, traj_info_view):
    """Iteration 1 sampled again from the state saved after iteration 0 gives the same batch.

    ``traj_info_view`` turns the completed TrajInfos into what must be equal.
    """
    sampler.obtain_samples(0)
    state = sampler.state_dict()
    expected = copy.deepcopy(sampler.obtain_samples(1))
    sampler.load_state_dict(state)
    again = sampler.obtain_samples(1)
    assert_same_samples(expected[0], again[0], "resumed")
    assert traj_info_view(expected[1]) == traj_info_view(again[1])


# The reference backend steps waiting envs (results ignored), as gymnasium's vector envs do.
@pytest.mark.filterwarnings("ignore:.*already returned terminated:UserWarning")
@pytest.mark.parametrize("recurrent", [False, True], ids=["ff", "rnn"])
@pytest.mark.parametrize("wait_reset", [False, True], ids=["reset", "wait_reset"])
def test_vector_collectors_give_the_per_env_samples(wait_reset, recurrent):
    expected, expected_infos = run(SerialSampler, gym_make, ENV, wait_reset, recurrent)
    assert sum(len(i) for i in expected_infos) >= 4, "too few episode ends to cover resets"
    assert expected[-1].env.env_info.timeout.any() or any(
        b.env.env_info.timeout.any() for b in expected
    ), "no time limit reached: the test would not cover truncations"
    # timeout_value: V(final observation) from per-env and vector CPU collectors alike
    # (checked by test_timeout_value_is_the_value_of_the_final_observation); recurrent: NaN.
    recorded = any(not torch.isnan(b.agent.timeout_value).all() for b in expected)
    assert recorded != recurrent
    for SamplerCls in (SerialSampler, CpuSampler, GpuSampler):
        batches, infos = run(SamplerCls, list_vec_make, ENV, wait_reset, recurrent)
        for e, a in zip(expected, batches, strict=True):
            same_samples(e, a, f"vector {SamplerCls.__name__}", SamplerCls)
        assert infos == expected_infos, SamplerCls.__name__


@pytest.mark.parametrize("SamplerCls", [SerialSampler, CpuSampler, GpuSampler])
def test_vector_evaluation_gives_the_per_env_trajectories(SamplerCls):
    kw = dict(eval_n_envs=4, eval_max_steps=4 * 80, eval_max_trajectories=8)
    # Evaluation actions come from each process's torch generator: compare like with like.
    _, expected = run(SamplerCls, gym_make, ENV, n_itr=1, **kw)
    _, infos = run(SamplerCls, list_vec_make, ENV, n_itr=1, **kw)
    assert len(expected[-1]) == 8
    assert infos == expected


def test_next_step_reset_backend_records_one_waiting_row_per_episode():
    env_kwargs = dict(ENV, next_step=True)
    batches, infos = run(SerialSampler, list_vec_make, env_kwargs, n_itr=3)
    _, per_env_infos = run(SerialSampler, gym_make, ENV, n_itr=3)
    done = np.concatenate([b.env.done.numpy() for b in batches])
    reward = np.concatenate([b.env.reward.numpy() for b in batches])
    action = np.concatenate([b.agent.action.numpy() for b in batches])
    obs = np.concatenate([b.env.observation.numpy() for b in batches])
    ends = [(t, b) for t, b in zip(*np.nonzero(done[:-1]), strict=True) if reward[t, b] == 1]
    assert ends, "no episode ended"
    for t, b in ends:  # the row after an episode's last step is the backend's reset step
        assert done[t + 1, b] and reward[t + 1, b] == 0 and action[t + 1, b] == 0
        if t + 2 < len(obs):
            assert np.abs(obs[t + 2, b]).max() <= 0.05  # CartPole's reset state
    # The first batch's episodes are the per-env ones (later ones start one step later).
    assert sorted(t["Return"] for t in infos[0]) == sorted(t["Return"] for t in per_env_infos[0])


def test_wait_reset_needs_a_backend_that_resets_a_subset():
    with pytest.raises(NotImplementedError, match="cannot reset a subset"):
        run(SerialSampler, list_vec_make, dict(ENV, subset=False), wait_reset=True, n_itr=1)


def test_serial_sampler_builds_one_vector_env_and_resumes_exactly():
    torch.manual_seed(0)
    sampler = SerialSampler(list_vec_make, ENV, batch_T=16, batch_B=6, max_decorrelation_steps=5)
    agent = ClassicFfAgent()
    sampler.initialize(agent, seed=2)
    assert all(isinstance(env, VecEnvSlot) for env in sampler.envs)
    assert len({id(env.vec_env) for env in sampler.envs}) == 1
    assert isinstance(sampler.traj_infos, TrajInfoBatch)
    assert_resumes_exactly(sampler, lambda traj_infos: [dict(t) for t in traj_infos])
    sampler.shutdown()


@pytest.mark.parametrize("EnvCls", [count_vec_make, CountEnv], ids=["vector", "per_env"])
def test_timeout_value_is_the_value_of_the_final_observation(EnvCls):  # noqa: N803
    horizon, discount = 5, 0.9
    sampler = SerialSampler(EnvCls, dict(horizon=horizon), batch_T=8, batch_B=3)
    agent = ClassicFfAgent()
    examples = sampler.initialize(agent, seed=0, bootstrap_value=True)
    samples, _ = sampler.obtain_samples(0)
    timeout = samples.env.env_info.timeout
    assert timeout.any()
    tv = samples.agent.timeout_value
    assert torch.isnan(tv[~timeout]).all() and not torch.isnan(tv[timeout]).any()
    for t, b in zip(*np.nonzero(timeout.numpy()), strict=True):
        final = torch.full((1, 4), float(horizon))  # CountEnv's last observation
        action = samples.agent.action[t, b].reshape(1)
        reward = samples.env.reward[t, b].reshape(1)
        expected = agent.value(final, action, reward)
        assert torch.allclose(tv[t, b], expected[0]), (t, b)
        assert not torch.allclose(tv[t, b], samples.agent.agent_info.value[t, b])
    algo = A2C(discount=discount)
    algo.initialize(agent, 1, sampler.batch_spec, mid_batch_reset=True, examples=examples)
    return_, _, _ = algo.process_returns(samples)
    t, b = (int(i[0]) for i in np.nonzero(timeout.numpy()))
    assert torch.allclose(return_[t, b], 1 + discount * tv[t, b])
    sampler.shutdown()


def test_sampler_checks_vector_env_kwargs():
    with pytest.raises(TypeError, match="'sutton_barto', which CartPoleVectorEnv"):
        SerialSampler(make_vec, dict(id="CartPole-v1", sutton_barto=True), batch_T=4, batch_B=2)
    with pytest.raises(TypeError, match="'num_envs', which a vector-env EnvCls gets"):
        SerialSampler(make_vec, dict(id="CartPole-v1", num_envs=4), batch_T=4, batch_B=2)


@pytest.mark.filterwarnings("ignore:.*already returned terminated:UserWarning")
@pytest.mark.parametrize("wait_reset", [False, True], ids=["reset", "wait_reset"])
def test_gymnasium_sync_vector_env_gives_the_per_env_samples(wait_reset):
    expected, expected_infos = run(SerialSampler, gym_make, ENV, wait_reset, n_itr=3)
    sync = dict(ENV, vectorization_mode="sync")
    for SamplerCls in (SerialSampler, CpuSampler):
        batches, infos = run(SamplerCls, make_vec, sync, wait_reset, n_itr=3)
        for e, a in zip(expected, batches, strict=True):
            same_samples(e, a, f"make_vec sync {SamplerCls.__name__}", SamplerCls)
        assert infos == expected_infos


NATIVE = dict(id="CartPole-v1", vectorization_mode="vector_entry_point")


@pytest.mark.parametrize(
    "SamplerCls, CollectorCls, sampler_affinity",
    [
        (AsyncSerialSampler, DbCpuResetCollector, {}),
        (AsyncCpuSampler, DbCpuWaitResetCollector, TWO_WORKERS),
        (AsyncGpuSampler, DbGpuResetCollector, TWO_WORKERS),
    ],
    ids=["async-serial", "async-cpu-wait", "async-gpu"],
)
def test_async_samplers_feed_dqn_from_a_vector_env(SamplerCls, CollectorCls, sampler_affinity):
    env_kwargs = dict(ENV, vectorization_mode="sync") if "Wait" in CollectorCls.__name__ else NATIVE
    sampler = SamplerCls(
        EnvCls=make_vec,
        env_kwargs=env_kwargs,
        batch_T=8,
        batch_B=4,
        CollectorCls=CollectorCls,
        max_decorrelation_steps=10,
    )
    algo = DQN(batch_size=16, min_steps_learn=64, replay_size=2_000, replay_ratio=4)
    affinity = dict(optimizer=[dict()], sampler=sampler_affinity)
    runner = AsyncRl(
        algo, ClassicDqnAgent(), sampler, 640, affinity, seed=3, log_interval_steps=160
    )
    logger.disable()
    try:
        rows = list(runner.iter_train())
    finally:
        logger.enable()
    assert rows[-1]["Diagnostics/CumSteps"] == 640 and rows[-1]["Diagnostics/CumUpdates"] > 0
    assert sum(r["Diagnostics/NewCompletedTrajs"] for r in rows) > 0
    replay = runner.algo.replay_buffer
    observations = np.asarray(replay.samples.observation[: replay.t])
    assert replay.t > 0 and np.abs(observations).sum() > 0


def test_dqn_minibatch_rl_on_a_vector_env(tmp_path):
    sampler = SerialSampler(
        make_vec, NATIVE, batch_T=8, batch_B=16, eval_n_envs=4, eval_max_steps=400
    )
    algo = DQN(batch_size=32, min_steps_learn=256, replay_size=4_000)
    runner = MinibatchRlEval(
        algo, ClassicDqnAgent(), sampler, n_steps=2_048, seed=0, log_interval_steps=1_024
    )
    logger.disable()
    try:
        rows = list(runner.iter_train())
    finally:
        logger.enable()
    assert rows[-1]["Diagnostics/CumSteps"] == 2_048 and rows[-1]["Diagnostics/TrajsInEval"] > 0
    assert runner.algo.replay_buffer.t > 0


def test_alternating_sampler_gives_the_per_env_samples_over_sync_vector_envs():
    def run_alternating(EnvCls, env_kwargs):  # noqa: N803
        torch.manual_seed(0)
        sampler = AlternatingSampler(
            EnvCls=EnvCls, env_kwargs=env_kwargs, batch_T=16, batch_B=8, max_decorrelation_steps=0
        )
        sampler.initialize(ClassicFfAgent(), affinity=dict(TWO_WORKERS, alternating=True), seed=3)
        try:
            return [copy.deepcopy(sampler.obtain_samples(itr)) for itr in range(3)]
        finally:
            sampler.shutdown()

    expected = run_alternating(gym_make, ENV)
    actual = run_alternating(make_vec, dict(ENV, vectorization_mode="sync"))
    for (e, e_infos), (a, a_infos) in zip(expected, actual, strict=True):
        assert_same_samples(e, a, "alternating")
        assert canonical(a_infos) == canonical(e_infos)


def test_cpu_sampler_resumes_a_vector_env_exactly():
    torch.manual_seed(0)
    sampler = CpuSampler(make_vec, NATIVE, batch_T=16, batch_B=8, max_decorrelation_steps=5)
    sampler.initialize(ClassicFfAgent(), affinity=TWO_WORKERS, seed=2)
    try:
        assert_resumes_exactly(sampler, canonical)
    finally:
        sampler.shutdown()


def test_wait_reset_decorrelation_restarts_the_envs_that_ended():
    # 50 random CartPole steps end most episodes during decorrelation; with autoreset off, an
    # env left ended would start the first batch frozen (reward 0, done at t = 0).
    sampler = SerialSampler(
        make_vec,
        dict(id="CartPole-v1", vectorization_mode="sync"),
        batch_T=4,
        batch_B=16,
        CollectorCls=CpuWaitResetCollector,
        max_decorrelation_steps=50,
    )
    sampler.initialize(ClassicFfAgent(), seed=1)
    try:
        samples, _ = sampler.obtain_samples(0)
        assert (samples.env.reward[0] == 1).all() and not samples.env.done[0].any()
    finally:
        sampler.shutdown()


def test_sac_and_r2d1_train_on_vector_envs():
    # The Q-function policy gradients and the recurrent replay family through vector envs.
    runs = [
        (
            SAC(min_steps_learn=100, batch_size=32),
            SacAgent(),
            SerialSampler(make_vec, dict(id="Pendulum-v1", vectorization_mode="sync"), 1, 4),
            400,
        ),
        (
            R2D1(min_steps_learn=320, batch_T=20, batch_B=4, warmup_T=0, replay_size=4_000),
            ClassicR2d1Agent(),
            SerialSampler(make_vec, NATIVE, batch_T=40, batch_B=4),
            1_280,
        ),
    ]
    for algo, agent, sampler, n_steps in runs:
        runner = MinibatchRl(algo, agent, sampler, n_steps, seed=0, log_interval_steps=n_steps // 2)
        logger.disable()
        try:
            rows = list(runner.iter_train())
        finally:
            logger.enable()
        assert rows[-1]["Diagnostics/CumSteps"] == n_steps
        assert rows[-1]["Diagnostics/CumUpdates"] > 0, type(algo).__name__


@pytest.mark.parametrize("wait_reset", [False, True], ids=["reset", "wait_reset"])
def test_per_env_envs_wrapped_as_a_vector_env_give_the_per_env_samples(wait_reset):
    """``EnvListMaker(gym_make)``: the per-env CartPoles through the vector collectors."""
    expected, expected_infos = run(SerialSampler, gym_make, ENV, wait_reset)
    assert any(not torch.isnan(b.agent.timeout_value).all() for b in expected)
    for SamplerCls in (SerialSampler, CpuSampler):  # CpuSampler: the maker pickles
        batches, infos = run(SamplerCls, EnvListMaker(gym_make), ENV, wait_reset)
        for e, a in zip(expected, batches, strict=True):
            assert_same_samples(e, a, f"EnvListVecEnv {SamplerCls.__name__}")
        assert infos == expected_infos
