"""DQN and CategoricalDQN losses against naive per-sample loops on fixed tensors."""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.algos.dqn.cat_dqn import CategoricalDQN
from rlpyt.algos.dqn.dqn import DQN, bootstrap_target
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.envs.base import EnvSpaces
from rlpyt.samplers.collections import BatchSpec
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.int_box import IntBox

Batch = namedtuple(
    "Batch",
    [
        "agent_inputs",
        "action",
        "return_",
        "done",
        "done_n",
        "target_inputs",
        "target_discount",
        "is_weights",
    ],
)


class TableAgent:
    """Q-values (or atom probabilities) looked up by observation id: online and target tables."""

    device = torch.device("cpu")

    def __init__(self, online: torch.Tensor, target: torch.Tensor):
        self.online = online.clone().requires_grad_(True)
        self.target_table = target

    def __call__(self, observation, prev_action, prev_reward):
        return self.online[observation.long()]

    def target(self, observation, prev_action, prev_reward):
        return self.target_table[observation.long()]


def _batch(n=6, seed=0, n_actions=3):
    g = torch.Generator().manual_seed(seed)
    obs = torch.arange(n)
    next_obs = torch.arange(n, 2 * n)
    zeros = torch.zeros(n)
    return Batch(
        agent_inputs=(obs, zeros, zeros),
        action=torch.randint(0, n_actions, (n,), generator=g),
        return_=torch.randn(n, generator=g),
        done=torch.zeros(n, dtype=torch.bool),
        done_n=torch.tensor([False, True, False, False, True, False])[:n],
        target_inputs=(next_obs, zeros, zeros),
        target_discount=torch.tensor([0.99, 0.99, 0.9801, 0.99**3, 0.99, 1.0])[:n],
        is_weights=torch.rand(n, generator=g) + 0.5,
    )


def _dqn(**kwargs) -> DQN:
    algo = DQN(**kwargs)
    algo.mid_batch_reset = True
    return algo


@pytest.mark.parametrize("double_dqn", [False, True])
@pytest.mark.parametrize("delta_clip", [1.0, None])
@pytest.mark.parametrize("prioritized", [False, True])
def test_dqn_loss_matches_naive_loop(double_dqn, delta_clip, prioritized):
    g = torch.Generator().manual_seed(1)
    online, target = torch.randn(12, 3, generator=g) * 2, torch.randn(12, 3, generator=g) * 2
    batch = _batch()
    algo = _dqn(double_dqn=double_dqn, delta_clip=delta_clip, prioritized_replay=prioritized)
    algo.agent = TableAgent(online, target)
    loss, td = algo.loss(batch)
    losses, tds = [], []
    for i in range(6):
        nxt = 6 + i
        if double_dqn:
            best = int(torch.argmax(online[nxt]))
            q_next = float(target[nxt, best])
        else:
            q_next = float(target[nxt].max())
        y = float(batch.return_[i])
        if not batch.done_n[i]:
            y += float(batch.target_discount[i]) * q_next
        d = y - float(online[i, int(batch.action[i])])
        if delta_clip is None or abs(d) <= delta_clip:
            value = 0.5 * d * d
        else:
            value = delta_clip * (abs(d) - 0.5 * delta_clip)
        if prioritized:
            value *= float(batch.is_weights[i])
        losses.append(value)
        tds.append(abs(d) if delta_clip is None else min(abs(d), delta_clip))
    assert float(loss.detach()) == pytest.approx(sum(losses) / 6, rel=1e-5)
    np.testing.assert_allclose(td.numpy(), tds, rtol=1e-5)


def test_double_dqn_target_differs_from_max_when_argmaxes_differ():
    online = torch.zeros(12, 2)
    target = torch.zeros(12, 2)
    online[6:, 0] = 1.0  # online prefers action 0 at every next state
    target[6:, 1] = 5.0  # the target network values action 1
    batch = _batch()
    plain, double = _dqn(), _dqn(double_dqn=True)
    plain.agent = double.agent = TableAgent(online, target)
    assert torch.allclose(plain.target_value(batch.target_inputs), torch.full((6,), 5.0))
    assert torch.allclose(double.target_value(batch.target_inputs), torch.zeros(6))


def test_terminal_rows_ignore_a_nan_target():
    batch = _batch()
    target = torch.full((6,), float("nan"))
    target[~batch.done_n] = 1.0
    y = bootstrap_target(batch, target)
    assert torch.isfinite(y).all()
    assert torch.allclose(y[batch.done_n], batch.return_[batch.done_n])


def naive_projection(return_, done_n, discount, target_p, v_min, v_max):
    """C51's projection as in the paper, one atom at a time."""
    n_atoms = len(target_p)
    dz = (v_max - v_min) / (n_atoms - 1)
    out = np.zeros(n_atoms)
    for j in range(n_atoms):
        z_j = v_min + j * dz
        tz = return_ + (0.0 if done_n else discount * z_j)
        tz = min(max(tz, v_min), v_max)
        b = (tz - v_min) / dz
        lo, hi = math.floor(b), math.ceil(b)
        if lo == hi:
            out[lo] += target_p[j]
        else:
            out[lo] += target_p[j] * (hi - b)
            out[hi] += target_p[j] * (b - lo)
    return out


@pytest.mark.parametrize("double_dqn", [False, True])
def test_c51_projection_matches_naive(double_dqn):
    n_atoms, n_actions = 11, 3
    g = torch.Generator().manual_seed(3)
    online = torch.softmax(torch.randn(12, n_actions, n_atoms, generator=g), dim=-1)
    target = torch.softmax(torch.randn(12, n_actions, n_atoms, generator=g), dim=-1)
    batch = _batch()
    batch = batch._replace(return_=torch.tensor([0.3, -12.0, 4.0, 9.5, 0.0, -2.2]))
    algo = CategoricalDQN(V_min=-5, V_max=5, double_dqn=double_dqn)
    algo.mid_batch_reset = True
    algo.agent = TableAgent(online, target)
    projected = algo.projected_target(batch, torch.device("cpu"))
    z = np.linspace(-5, 5, n_atoms)
    for i in range(6):
        chooser = online if double_dqn else target
        best = int(np.argmax((chooser[6 + i].numpy() * z).sum(-1)))
        expected = naive_projection(
            float(batch.return_[i]),
            bool(batch.done_n[i]),
            float(batch.target_discount[i]),
            target[6 + i, best].numpy(),
            -5,
            5,
        )
        np.testing.assert_allclose(projected[i].numpy(), expected, atol=1e-6)
        assert float(projected[i].sum()) == pytest.approx(1.0, abs=1e-5)


def test_c51_loss_is_cross_entropy_and_kl_priorities():
    n_atoms = 5
    g = torch.Generator().manual_seed(4)
    online = torch.softmax(torch.randn(12, 2, n_atoms, generator=g), dim=-1)
    target = torch.softmax(torch.randn(12, 2, n_atoms, generator=g), dim=-1)
    batch = _batch(n_actions=2)
    algo = CategoricalDQN(V_min=-1, V_max=1)
    algo.mid_batch_reset = True
    algo.agent = TableAgent(online, target)
    loss, kl = algo.loss(batch)
    projected = algo.projected_target(batch, torch.device("cpu"))
    ce, kls = [], []
    for i in range(6):
        p = online[i, int(batch.action[i])].numpy()
        t = projected[i].numpy()
        ce.append(-(t * np.log(p)).sum())
        kls.append((t * (np.log(np.maximum(t, 1e-6)) - np.log(p))).sum())
    assert float(loss.detach()) == pytest.approx(np.mean(ce), rel=1e-5)
    np.testing.assert_allclose(kl.numpy(), np.maximum(kls, 0), atol=1e-6)


def test_beta_schedule_is_linear_from_learning_start():
    algo = _dqn(pri_beta_init=0.4, pri_beta_final=1.0)
    algo.min_itr_learn, algo.pri_beta_itr = 10, 110
    assert algo.beta_at(0) == pytest.approx(0.4)
    assert algo.beta_at(10) == pytest.approx(0.4)
    assert algo.beta_at(60) == pytest.approx(0.7)
    assert algo.beta_at(500) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("eps_start_steps", "itr_min"),
    [(None, 3), (0, 0), (100, 2), (800, 16)],  # None: rlpyt's, from min_itr_learn = 160 // 48
)
def test_epsilon_schedule_starts_at_eps_start_steps(eps_start_steps, itr_min):
    agent = ClassicDqnAgent(eps_init=1.0, eps_final=0.1, model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(EnvSpaces(observation=FloatBox(-1, 1, shape=(3,)), action=IntBox(0, 2)))
    algo = DQN(min_steps_learn=160, eps_steps=480, eps_start_steps=eps_start_steps)
    algo.agent = agent
    algo._setup_schedules(BatchSpec(6, 8))  # 48 env steps per iteration
    itr_max = max(itr_min, 10)  # 480 // 48; a start after the end is a step there
    assert algo.min_itr_learn == 3  # learning still starts at min_steps_learn
    assert (agent.eps_itr_min, agent.eps_itr_max) == (itr_min, itr_max)
    for itr in range(20):
        if itr <= itr_min:
            expected = 1.0
        elif itr >= itr_max:
            expected = 0.1
        else:
            expected = 1.0 - 0.9 * (itr - itr_min) / (itr_max - itr_min)
        assert agent.sample_epsilon(itr) == pytest.approx(expected)


def test_eps_start_steps_is_checked_and_passed_on_by_the_subclasses():
    with pytest.raises(ValueError, match="eps_start_steps"):
        DQN(eps_start_steps=-1)
    with pytest.raises((ValueError, TypeError), match="eps_start_steps"):
        DQN(eps_start_steps=0.5)
    assert DQN().eps_start_steps is None
    assert CategoricalDQN(eps_start_steps=0).eps_start_steps == 0
    assert R2D1(eps_start_steps=7).eps_start_steps == 7


def test_adam_eps_default_also_with_empty_optim_kwargs():
    assert DQN(batch_size=64).optim_kwargs == {"eps": 0.01 / 64}
    assert DQN(batch_size=64, optim_kwargs={}).optim_kwargs == {"eps": 0.01 / 64}
    assert DQN(optim_kwargs={"eps": 1e-3}).optim_kwargs == {"eps": 1e-3}
    assert DQN(OptimCls=torch.optim.SGD).optim_kwargs == {}


def test_default_priority_follows_delta_clip():
    assert DQN(delta_clip=2.0).default_priority == 2.0
    assert DQN(delta_clip=None).default_priority == 1.0


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (dict(batch_size=0), "batch_size"),
        (dict(discount=1.5), "discount"),
        (dict(n_step_return=0), "n_step_return"),
        (dict(target_update_tau=0), "target_update_tau"),
    ],
)
def test_bad_numbers_are_named(kwargs, words):
    with pytest.raises(ValueError, match=words):
        DQN(**kwargs)


def test_categorical_support_must_be_ordered():
    with pytest.raises(ValueError, match="V_min"):
        CategoricalDQN(V_min=1, V_max=1)
