"""The asynchronous samplers: their runner-facing methods, their bases, and the double buffer.

``RECORDED`` holds each method's ``inspect.signature`` as AsyncRl calls it: a change of name,
order, default or kind fails here. The behaviour tests run each sampler's two-step start in
this process (the master's ``async_initialize``, then the sampler process's ``initialize``) and
check that each batch goes to the half ``db_idx`` names and leaves the other untouched.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.envs.gym import make as gym_make
from rlpyt.protocols import AsyncSampler
from rlpyt.samplers.async_.action_server import (
    AsyncActionServer,
    AsyncAlternatingActionServer,
    AsyncNoOverlapAlternatingActionServer,
)
from rlpyt.samplers.async_.alternating_sampler import (
    AsyncAlternatingSampler,
    AsyncNoOverlapAlternatingSampler,
)
from rlpyt.samplers.async_.base import AsyncParallelSamplerMixin, AsyncSamplerMixin
from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
from rlpyt.samplers.async_.gpu_sampler import AsyncGpuSampler
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.base import BaseSampler
from rlpyt.samplers.parallel.base import ParallelSamplerBase
from rlpyt.samplers.parallel.gpu.action_server import (
    ActionServer,
    AlternatingActionServer,
    NoOverlapAlternatingActionServer,
)

P = inspect.Parameter.POSITIONAL_OR_KEYWORD
V = inspect.Parameter.VAR_POSITIONAL
VK = inspect.Parameter.VAR_KEYWORD
EMPTY = inspect.Parameter.empty

RECORDED = {
    "async_initialize": [
        ("agent", P, EMPTY),
        ("bootstrap_value", P, False),
        ("traj_info_kwargs", P, None),
        ("seed", P, None),
    ],
    "initialize": [("affinity", P, None), ("args", V, EMPTY), ("kwargs", VK, EMPTY)],
    "obtain_samples": [("itr", P, EMPTY), ("db_idx", P, 0)],
    "evaluate_agent": [("itr", P, EMPTY)],
    "busy_processes": [("affinity", P, EMPTY)],
    "state_dict": [],
    "load_state_dict": [("state", P, EMPTY)],
    "shutdown": [],
}
SAMPLERS = [
    AsyncSerialSampler,
    AsyncCpuSampler,
    AsyncGpuSampler,
    AsyncAlternatingSampler,
    AsyncNoOverlapAlternatingSampler,
]
PARALLEL = SAMPLERS[1:]
GPU = SAMPLERS[2:]
# Class attributes the runner and the workers read (None: the class has no such attribute).
FLAGS = {  # (gpu, alternating, mid_batch_reset, serve_torch_threads)
    AsyncSerialSampler: (None, None, True, None),
    AsyncCpuSampler: (False, False, True, None),
    AsyncGpuSampler: (True, False, True, 1),
    AsyncAlternatingSampler: (True, True, True, 1),
    AsyncNoOverlapAlternatingSampler: (True, True, True, 1),
}
SERVERS = {
    AsyncGpuSampler: (AsyncActionServer, ActionServer),
    AsyncAlternatingSampler: (AsyncAlternatingActionServer, AlternatingActionServer),
    AsyncNoOverlapAlternatingSampler: (
        AsyncNoOverlapAlternatingActionServer,
        NoOverlapAlternatingActionServer,
    ),
}
T, B = 4, 4
TWO_WORKERS = dict(workers_cpus=[0, 1], set_affinity=False)
AFFINITY = {
    AsyncSerialSampler: {},
    AsyncCpuSampler: TWO_WORKERS,
    AsyncGpuSampler: TWO_WORKERS,
    AsyncAlternatingSampler: dict(TWO_WORKERS, alternating=True),
    AsyncNoOverlapAlternatingSampler: dict(TWO_WORKERS, alternating=True),
}


def described(function):
    parameters = list(inspect.signature(function).parameters.values())[1:]  # without self
    return [(p.name, p.kind, p.default) for p in parameters]


@pytest.mark.parametrize("SamplerCls", SAMPLERS)
def test_runner_facing_methods_keep_their_signatures(SamplerCls):  # noqa: N803
    for name, recorded in RECORDED.items():
        assert described(getattr(SamplerCls, name)) == recorded, (SamplerCls.__name__, name)


@pytest.mark.parametrize("SamplerCls", SAMPLERS)
def test_class_flags(SamplerCls):  # noqa: N803
    names = ("gpu", "alternating", "mid_batch_reset", "serve_torch_threads")
    assert tuple(getattr(SamplerCls, name, None) for name in names) == FLAGS[SamplerCls]


@pytest.mark.parametrize("SamplerCls", SAMPLERS)
def test_async_samplers_extend_the_sampler_base(SamplerCls):  # noqa: N803
    """The asynchronous part is a sampler class, not a mixin of ``object``."""
    assert issubclass(AsyncSamplerMixin, BaseSampler)
    assert issubclass(AsyncParallelSamplerMixin, ParallelSamplerBase)
    assert issubclass(SamplerCls, AsyncSamplerMixin)
    assert issubclass(SamplerCls, AsyncParallelSamplerMixin) == (SamplerCls in PARALLEL)


@pytest.mark.parametrize("SamplerCls", GPU)
def test_gpu_async_samplers_serve_through_their_action_servers(SamplerCls):  # noqa: N803
    async_server, server = SERVERS[SamplerCls]
    assert issubclass(SamplerCls, async_server) and issubclass(async_server, server)
    assert issubclass(ActionServer, ParallelSamplerBase)
    assert SamplerCls.serve_actions is server.serve_actions


def make_sampler(SamplerCls, **kwargs):  # noqa: N803
    return SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=T,
        batch_B=B,
        max_decorrelation_steps=0,
        **kwargs,
    )


@pytest.fixture
def keep_threads():
    """``initialize`` sets the sampler process's torch threads: restore this process's."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("SamplerCls", SAMPLERS)
def test_each_batch_goes_to_the_half_db_idx_names(SamplerCls, keep_threads):  # noqa: N803
    sampler = make_sampler(SamplerCls, eval_n_envs=2, eval_max_steps=40)
    assert isinstance(sampler, AsyncSampler)
    agent = ClassicDqnAgent()
    double_buffer, examples = sampler.async_initialize(agent, seed=1)
    assert "observation" in examples
    first, second = (half.env.observation.numpy() for half in double_buffer)
    assert first.shape == second.shape == (T, B, 4)
    try:
        sampler.initialize(AFFINITY[SamplerCls])
        first[:], second[:] = np.nan, np.nan
        sampler.obtain_samples(0, 0)
        assert np.isfinite(first).all() and np.isnan(second).all()
        written = first.copy()
        sampler.obtain_samples(1, db_idx=1)
        assert np.isfinite(second).all()
        np.testing.assert_array_equal(first, written)  # the other half stays as it was
        assert not np.array_equal(second, written)  # the envs went on
        assert (double_buffer[1].agent.action.numpy() < 2).all()
        traj_infos = sampler.evaluate_agent(2)
        assert all(info.Length > 0 for info in traj_infos)
        assert sampler.state_dict() == {}
    finally:
        sampler.shutdown()


@pytest.mark.parametrize("SamplerCls", SAMPLERS)
def test_initialize_refuses_the_synchronous_call(SamplerCls):  # noqa: N803
    sampler = make_sampler(SamplerCls)
    with pytest.raises(TypeError, match="async_initialize"):
        sampler.initialize(ClassicDqnAgent(), {})
    with pytest.raises(TypeError, match="async_initialize"):
        sampler.initialize({}, seed=1)


def test_busy_processes():
    assert make_sampler(AsyncSerialSampler).busy_processes({}) == 1
    for SamplerCls in PARALLEL:  # noqa: N806
        sampler = make_sampler(SamplerCls)
        assert sampler.busy_processes(AFFINITY[SamplerCls]) == 2, SamplerCls.__name__
