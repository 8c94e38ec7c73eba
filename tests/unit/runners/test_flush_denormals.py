"""Runners flush denormal floats to zero in the training process unless the affinity says no."""

import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.pg.a2c import A2C
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.async_rl import AsyncRl
from rlpyt.runners.base import flush_denormals
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.serial.sampler import SerialSampler

CARTPOLE = dict(EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=4, batch_B=2)


def denormals_survive() -> bool:
    """1e-30 * 1e-10 = 1e-40 is a denormal float32: zero when flushed."""
    return float(torch.tensor([1e-30], dtype=torch.float32).mul(1e-10)) != 0.0


@pytest.fixture
def unflushed():
    torch.set_flush_denormal(False)
    if not denormals_survive() or not torch.set_flush_denormal(True):
        torch.set_flush_denormal(False)
        pytest.skip("this CPU has no denormal switch")
    torch.set_flush_denormal(False)
    yield
    torch.set_flush_denormal(False)  # the rest of the suite runs with torch's default


def test_the_helper_flushes_by_default_and_leaves_the_setting_when_told_no(unflushed):
    assert denormals_survive()
    assert flush_denormals({"flush_denormal": False}) is False
    assert denormals_survive()
    assert flush_denormals({}) is True
    assert not denormals_survive()


def test_minibatch_rl_flushes_unless_the_affinity_says_no(unflushed):
    runner = MinibatchRl(A2C(), ClassicFfAgent(), SerialSampler(**CARTPOLE), n_steps=8)
    runner.affinity = dict(flush_denormal=False)
    runner._set_master_affinity()
    assert denormals_survive()
    runner.affinity = dict()
    runner._set_master_affinity()
    assert not denormals_survive()


@pytest.mark.parametrize(
    ("affinity", "flushed"),
    [
        (None, True),
        (dict(optimizer=[dict(flush_denormal=False)], sampler={}), False),
        (dict(optimizer=[{}], sampler={}, flush_denormal=False), False),
        (dict(optimizer=[dict(flush_denormal=True)], sampler={}, flush_denormal=False), True),
    ],
)
def test_async_rl_reads_the_optimizer_entry_then_the_top(unflushed, affinity, flushed):
    sampler = AsyncSerialSampler(**CARTPOLE)
    runner = AsyncRl(DQN(), ClassicDqnAgent(), sampler, n_steps=8, affinity=affinity)
    runner._set_master_affinity()
    assert denormals_survive() is not flushed
