"""The asynchronous side of the replay algorithms (DQN family, DDPG, TD3, SAC).

What the AsyncRl runner relies on: ``async_initialize`` builds the ``Async*`` twin of the
replay the synchronous path builds; the memory copier's ``samples_to_buffer`` + the replay's
``append_samples`` followed by ``optimize_agent(itr, sampler_itr=...)`` trains exactly as
``optimize_agent(itr, samples)`` does; schedules follow the sampler's iteration; the optimizer
trains a model apart from the shared one and publishes it with ``send_shared_memory``.
"""

from __future__ import annotations

import multiprocessing as mp
from collections import namedtuple

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.algos.dqn.cat_dqn import CategoricalDQN
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.qpg.ddpg import DDPG
from rlpyt.algos.qpg.sac import SAC
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.envs.base import EnvSpaces
from rlpyt.replays.non_sequence.frame import (
    AsyncPrioritizedReplayFrameBuffer,
    AsyncUniformReplayFrameBuffer,
)
from rlpyt.replays.non_sequence.prioritized import AsyncPrioritizedReplayBuffer
from rlpyt.replays.non_sequence.time_limit import AsyncTlUniformReplayBuffer
from rlpyt.replays.non_sequence.uniform import AsyncUniformReplayBuffer, UniformReplayBuffer
from rlpyt.samplers.collections import BatchSpec
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.int_box import IntBox
from rlpyt.utils.collections import AttrDict

Samples = namedtuple("Samples", ["agent", "env"])
AgentSamples = namedtuple("AgentSamples", ["action"])
EnvSamples = namedtuple("EnvSamples", ["observation", "reward", "done", "env_info"])
EnvInfo = namedtuple("EnvInfo", ["timeout"])

T, B, OBS, A = 4, 2, 5, 2
SPEC = BatchSpec(T, B)
DQN_SPACES = EnvSpaces(observation=FloatBox(-1, 1, shape=(OBS,)), action=IntBox(0, 3))
SIZE = dict(replay_size=64)
QPG_SPACES = EnvSpaces(observation=FloatBox(-10, 10, shape=(OBS,)), action=FloatBox(-1, 1, (A,)))


def _examples(discrete: bool, image: bool = False) -> AttrDict:
    observation = np.zeros((2, 4, 4), np.uint8) if image else np.zeros(OBS, np.float32)
    return AttrDict(
        observation=observation,
        action=np.int64(0) if discrete else np.zeros(A, np.float32),
        reward=np.float32(0),
        done=np.bool_(False),
        env_info=EnvInfo(timeout=np.bool_(False)),
    )


def _batches(discrete: bool, n: int, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    batches = []
    for _ in range(n):
        done = rng.random((T, B)) < 0.2
        action = (rng.integers(0, 3, (T, B)) if discrete else rng.uniform(-1, 1, (T, B, A))).astype(
            np.int64 if discrete else np.float32
        )
        batches.append(
            Samples(
                agent=AgentSamples(action=action),
                env=EnvSamples(
                    observation=rng.standard_normal((T, B, OBS)).astype(np.float32),
                    reward=rng.standard_normal((T, B)).astype(np.float32),
                    done=done,
                    env_info=EnvInfo(timeout=done & (rng.random((T, B)) < 0.5)),
                ),
            )
        )
    return batches


def _dqn_agent(share_memory: bool, state=None) -> ClassicDqnAgent:
    agent = ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[16]), initial_model_state_dict=state)
    agent.initialize(DQN_SPACES, share_memory=share_memory)
    return agent


def _sac_agent(share_memory: bool, state=None) -> SacAgent:
    small = dict(hidden_sizes=[16])
    agent = SacAgent(model_kwargs=small, q_model_kwargs=small, initial_model_state_dict=state)
    agent.initialize(QPG_SPACES, share_memory=share_memory)
    return agent


def _async(algo, agent, examples, mid_batch_reset=True):
    replay = algo.async_initialize(agent, 100, SPEC, mid_batch_reset, examples)
    algo.optim_initialize(rank=0)
    return replay


# ---- which replay ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make_algo", "examples", "expected"),
    [
        (lambda: DQN(**SIZE), _examples(True), AsyncUniformReplayBuffer),
        (
            lambda: DQN(prioritized_replay=True, **SIZE),
            _examples(True),
            AsyncPrioritizedReplayBuffer,
        ),
        (
            lambda: CategoricalDQN(**SIZE),
            _examples(True, image=True),
            AsyncUniformReplayFrameBuffer,
        ),
        (
            lambda: DQN(prioritized_replay=True, **SIZE),
            _examples(True, image=True),
            AsyncPrioritizedReplayFrameBuffer,
        ),
        (lambda: SAC(**SIZE), _examples(False), AsyncTlUniformReplayBuffer),
        (
            lambda: DDPG(bootstrap_timelimit=False, **SIZE),
            _examples(False),
            AsyncUniformReplayBuffer,
        ),
        (
            lambda: DQN(ReplayBufferCls=AsyncUniformReplayBuffer, **SIZE),
            _examples(True),
            AsyncUniformReplayBuffer,
        ),
    ],
    ids=["dqn", "dqn_pri", "catdqn_frames", "dqn_pri_frames", "sac_tl", "ddpg_no_tl", "given"],
)
def test_async_initialize_builds_the_async_twin(make_algo, examples, expected):
    algo = make_algo()
    replay = algo.make_replay_buffer(examples, SPEC, async_=True)
    assert type(replay) is expected and replay.async_
    if algo.ReplayBufferCls is None:  # chosen: the sync path builds the sync twin
        assert type(algo.make_replay_buffer(examples, SPEC)) is expected.__mro__[2]


def test_a_sync_replay_class_given_to_an_async_run_is_a_clear_error():
    algo = DQN(ReplayBufferCls=UniformReplayBuffer, min_steps_learn=0, **SIZE)
    with pytest.raises(ValueError, match="AsyncUniformReplayBuffer"):
        algo.async_initialize(_dqn_agent(True), 100, SPEC, True, _examples(True))


def test_async_initialize_sets_schedules_in_sampler_iterations():
    algo = DQN(min_steps_learn=40, replay_ratio=8, batch_size=4, updates_per_sync=3, **SIZE)
    agent = _dqn_agent(True)
    replay = algo.async_initialize(agent, 100, SPEC, True, _examples(True))
    assert replay is algo.replay_buffer
    assert algo.min_itr_learn == 40 // (T * B)
    assert algo.updates_per_optimize == algo.updates_per_sync == 3  # not 8 * 8 / 4 = 16
    assert (agent.eps_itr_min, agent.eps_itr_max) == (5, int(1e6) // (T * B))
    sac = SAC(min_steps_learn=24, **SIZE)
    sac_agent = _sac_agent(True)
    sac.async_initialize(sac_agent, 100, SPEC, True, _examples(False))
    assert sac_agent.min_itr_learn == 3  # exploration before learning, shared with samplers


# ---- training follows the sampler ------------------------------------------------------------


def test_optimize_agent_without_samples_follows_sampler_itr():
    algo = DQN(
        min_steps_learn=16,
        batch_size=4,
        updates_per_sync=3,
        prioritized_replay=True,
        pri_beta_steps=80,
        replay_size=200,
    )
    replay = _async(algo, _dqn_agent(True), _examples(True))
    for samples in _batches(True, 3):
        replay.append_samples(algo.samples_to_buffer(samples))
    t_before = replay.t
    info = algo.optimize_agent(itr=50, sampler_itr=1)  # sampler before min_itr_learn = 2
    assert info.loss == [] and replay.t == t_before  # nothing appended either
    info = algo.optimize_agent(itr=0, sampler_itr=6)
    assert len(info.loss) == 3 and replay.t == t_before
    assert replay.beta == pytest.approx(algo.beta_at(6)) and algo.beta_at(6) != algo.beta_at(0)


def _train_dqn(async_: bool, mid_batch_reset: bool, prioritized: bool, state=None):
    np.random.seed(3)  # the replay's generator is seeded from numpy's
    agent = _dqn_agent(share_memory=async_, state=state)
    algo = DQN(
        min_steps_learn=8,
        batch_size=8,
        replay_ratio=2,
        updates_per_sync=2,
        replay_size=64,
        target_update_interval=3,
        prioritized_replay=prioritized,
        n_step_return=2,
    )
    if async_:
        replay = _async(algo, agent, _examples(True), mid_batch_reset)
    else:
        algo.initialize(agent, 100, SPEC, mid_batch_reset, _examples(True))
    torch.manual_seed(5)
    infos = []
    for itr, samples in enumerate(_batches(True, 6)):
        if async_:
            replay.append_samples(algo.samples_to_buffer(samples))
            infos.append(algo.optimize_agent(itr, sampler_itr=itr))
        else:
            infos.append(algo.optimize_agent(itr, samples))
    return agent, algo, infos


@pytest.mark.parametrize("prioritized", [False, True])
@pytest.mark.parametrize("mid_batch_reset", [True, False])
def test_dqn_copier_append_then_optimize_equals_the_sync_path(mid_batch_reset, prioritized):
    start = _dqn_agent(False).state_dict()
    sync_agent, sync_algo, sync_infos = _train_dqn(False, mid_batch_reset, prioritized, start)
    agent, algo, infos = _train_dqn(True, mid_batch_reset, prioritized, start)
    assert sync_algo.updates_per_optimize == algo.updates_per_sync == 2
    assert infos == sync_infos and sum(len(i.loss) for i in infos) == 10
    _assert_same_state(agent.state_dict(), sync_agent.state_dict())
    np.testing.assert_array_equal(algo.replay_buffer.valid, sync_algo.replay_buffer.valid)
    written = algo.replay_buffer.valid[: 6 * T]
    assert written.all() == mid_batch_reset  # padding marked when waiting
    # The optimizer trained its own model; the samplers' shared one changes only on send.
    assert agent.model is not agent.shared_model
    assert not _same_params(agent.shared_model, agent.model)
    agent.send_shared_memory()
    assert _same_params(agent.shared_model, agent.model) and agent._send_count.value == 1


def _train_sac(async_: bool, state=None):
    np.random.seed(4)
    agent = _sac_agent(share_memory=async_, state=state)
    algo = SAC(
        min_steps_learn=8,
        batch_size=8,
        replay_ratio=4,
        updates_per_sync=4,
        replay_size=64,
    )
    if async_:
        replay = _async(algo, agent, _examples(False))
    else:
        algo.initialize(agent, 100, SPEC, True, _examples(False))
    torch.manual_seed(6)
    infos = []
    for itr, samples in enumerate(_batches(False, 4, seed=1)):
        if async_:
            replay.append_samples(algo.samples_to_buffer(samples))
            infos.append(algo.optimize_agent(itr, sampler_itr=itr))
        else:
            infos.append(algo.optimize_agent(itr, samples))
    return agent, algo, infos


def test_sac_copier_append_then_optimize_equals_the_sync_path():
    start = _sac_agent(False).state_dict()
    sync_agent, _, sync_infos = _train_sac(False, start)
    agent, algo, infos = _train_sac(True, start)
    assert type(algo.replay_buffer) is AsyncTlUniformReplayBuffer
    assert infos == sync_infos and sum(len(i.q1Loss) for i in infos) == 12
    _assert_same_state(agent.state_dict(), sync_agent.state_dict())
    assert agent.model is not agent.shared_model
    agent.send_shared_memory()
    assert _same_params(agent.shared_model, agent.model)


def test_td3_optimizer_model_is_apart_and_targets_follow_it():
    agent = Td3Agent(model_kwargs=dict(hidden_sizes=[8]), q_model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(QPG_SPACES, share_memory=True)
    algo = TD3(
        min_steps_learn=8, batch_size=8, replay_size=64, target_update_tau=0.5, updates_per_sync=2
    )
    replay = _async(algo, agent, _examples(False))
    for samples in _batches(False, 3):
        replay.append_samples(algo.samples_to_buffer(samples))
    shared_before = {k: v.clone() for k, v in agent.shared_model.state_dict().items()}
    algo.optimize_agent(0, sampler_itr=2)
    assert all(torch.equal(v, shared_before[k]) for k, v in agent.shared_model.state_dict().items())
    target_sum = sum(p.sum() for p in agent.target_model.parameters())
    assert target_sum != sum(p.sum() for p in agent.shared_model.parameters())


def _same_params(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(
        torch.equal(x, y)
        for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True)
    )


def _assert_same_state(mine: dict, theirs: dict) -> None:
    assert mine.keys() == theirs.keys()
    for name, state in theirs.items():
        for key, value in state.items():
            torch.testing.assert_close(mine[name][key], value, rtol=0, atol=0, msg=f"{name}.{key}")


def memory_copier(samples_to_buffer, replay, batches):
    """What AsyncRl's memory copier does with each sampler batch, in a child process."""
    torch.set_num_threads(1)
    for samples in batches:
        replay.append_samples(samples_to_buffer(samples))


def test_a_spawned_memory_copier_fills_the_replay_the_optimizer_draws_from():
    algo = DQN(min_steps_learn=8, batch_size=8, updates_per_sync=2, **SIZE)
    replay = _async(algo, _dqn_agent(True), _examples(True), mid_batch_reset=False)
    batches = _batches(True, 3)
    ctx = mp.get_context("spawn")
    child = ctx.Process(target=memory_copier, args=(algo.samples_to_buffer, replay, batches))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert replay.t == 3 * T
    expected = np.concatenate([b.env.observation for b in batches])
    np.testing.assert_array_equal(replay.samples.observation[: 3 * T], expected)
    assert not replay.valid[: 3 * T].all()  # the copier's records carried the padding flags
    assert len(algo.optimize_agent(0, sampler_itr=2).loss) == 2
