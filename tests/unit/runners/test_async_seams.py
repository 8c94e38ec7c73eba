"""The asynchronous runner's parts are told by their protocols (no getattr probes)."""

import pytest

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.dqn.r2d1_agent import R2d1Agent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.algos.dqn.cat_dqn import CategoricalDQN
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from rlpyt.algos.qpg.ddpg import DDPG
from rlpyt.algos.qpg.sac import SAC
from rlpyt.algos.qpg.sac_v import SAC_V
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.envs.gym import make as gym_make
from rlpyt.protocols import AsyncReplayAlgorithm, AsyncSampler, RecurrentAgent
from rlpyt.runners.async_rl import AsyncRl, AsyncRlEval
from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler

ENV = dict(id="CartPole-v1")


def _sampler(SamplerCls):
    return SamplerCls(gym_make, ENV, batch_T=2, batch_B=2)


@pytest.mark.parametrize("SamplerCls", [AsyncSerialSampler, AsyncCpuSampler])
def test_async_samplers_are_async_samplers(SamplerCls):
    assert isinstance(_sampler(SamplerCls), AsyncSampler)


@pytest.mark.parametrize("SamplerCls", [SerialSampler, CpuSampler])
def test_synchronous_samplers_are_not(SamplerCls):
    assert not isinstance(_sampler(SamplerCls), AsyncSampler)


@pytest.mark.parametrize("AlgoCls", [DQN, CategoricalDQN, R2D1, DDPG, TD3, SAC, SAC_V])
def test_replay_algorithms_are_async_replay_algorithms_before_initialize(AlgoCls):
    algo = AlgoCls()
    assert algo.replay_buffer is None  # built by initialize / async_initialize
    assert isinstance(algo, AsyncReplayAlgorithm)


@pytest.mark.parametrize("AlgoCls", [A2C, PPO])
def test_policy_gradients_are_not(AlgoCls):
    assert not isinstance(AlgoCls(), AsyncReplayAlgorithm)


@pytest.mark.parametrize("RunnerCls", [AsyncRl, AsyncRlEval])
def test_async_runners_refuse_a_synchronous_sampler(RunnerCls):
    with pytest.raises(TypeError, match="needs an asynchronous sampler"):
        RunnerCls(DQN(), ClassicDqnAgent(), _sampler(SerialSampler), n_steps=100)


@pytest.mark.parametrize("RunnerCls", [AsyncRl, AsyncRlEval])
def test_async_runners_refuse_an_on_policy_algorithm(RunnerCls):
    with pytest.raises(TypeError, match="keeps no replay"):
        RunnerCls(PPO(), ClassicFfAgent(), _sampler(AsyncSerialSampler), n_steps=100)


def test_async_runner_takes_a_replay_algorithm_and_an_async_sampler():
    runner = AsyncRl(DQN(), ClassicDqnAgent(), _sampler(AsyncSerialSampler), n_steps=100)
    assert isinstance(runner.sampler, AsyncSampler)


def test_recurrent_agents_are_told_from_feed_forward_ones():
    assert isinstance(R2d1Agent(), RecurrentAgent)
    assert isinstance(ClassicLstmAgent(), RecurrentAgent)
    assert not isinstance(ClassicDqnAgent(), RecurrentAgent)
    assert not isinstance(ClassicFfAgent(), RecurrentAgent)


def test_the_refusal_names_what_a_replay_algorithm_lacks():
    class NoRatioDQN(DQN):
        pass

    # The attribute is really gone: Python 3.12's runtime protocols look attributes up with
    # inspect.getattr_static, which a __getattribute__ that raises does not hide.
    algo = NoRatioDQN()
    del algo.replay_ratio
    sampler = _sampler(AsyncSerialSampler)
    with pytest.raises(TypeError, match=r"NoRatioDQN keeps no replay \(it lacks replay_ratio\)"):
        AsyncRl(algo, ClassicDqnAgent(), sampler, n_steps=100)


def test_the_refusal_names_what_a_synchronous_sampler_lacks():
    lacks = r"got SerialSampler \(it lacks async_initialize, busy_processes\)"
    with pytest.raises(TypeError, match=lacks):
        AsyncRl(DQN(), ClassicDqnAgent(), _sampler(SerialSampler), n_steps=100)


@pytest.mark.parametrize(("sampler_itr", "taken"), [(9, 1), (0, 5)])
def test_the_optimizer_stops_taking_reports_once_the_throttle_opens(sampler_itr, taken):
    """With the sampler past the throttle, one report is handled and the optimizer may run
    (the rest wait for its next call); behind the throttle, the queue is drained. Draining it to the
    end regardless would let a sampler that reports faster than rows are logged keep the
    optimizer from ever updating."""
    import queue
    from types import SimpleNamespace

    runner = AsyncRl(DQN(), ClassicDqnAgent(), _sampler(AsyncSerialSampler), n_steps=100)
    runner.reports = queue.Queue()
    for itr in range(5):
        runner.reports.put(("batch", itr, [], 0.0))
    runner.ctrl = SimpleNamespace(sampler_itr=SimpleNamespace(value=sampler_itr))
    runner.throttle_itr = 2
    runner._finished = False
    handled = []
    runner._check_children = lambda: None
    runner.handle_report = lambda kind, itr, traj_infos, seconds: handled.append(itr)
    assert list(runner.handle_reports(block=False)) == []
    assert handled == list(range(taken))
    assert runner.reports.qsize() == 5 - taken
