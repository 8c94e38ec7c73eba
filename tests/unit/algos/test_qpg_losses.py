"""DDPG, TD3, SAC and SAC_V: targets and losses against naive per-sample loops on fixed tensors,
time-limit targets through a real replay, update order and intervals, learning rates, optimizer
state round trips, OptInfo fields, and a few iterations with the real agents on Pendulum."""

from __future__ import annotations

import copy
import math
from collections import namedtuple

import numpy as np
import pytest
import torch

from rlpyt.algos.qpg.ddpg import DDPG
from rlpyt.algos.qpg.ddpg import OptInfo as DdpgOptInfo
from rlpyt.algos.qpg.sac import SAC
from rlpyt.algos.qpg.sac import OptInfo as SacOptInfo
from rlpyt.algos.qpg.sac_v import SAC_V
from rlpyt.algos.qpg.sac_v import OptInfo as SacVOptInfo
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.distributions.gaussian import DistInfoStd
from rlpyt.replays.non_sequence.time_limit import TlUniformReplayBuffer
from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer
from rlpyt.samplers.collections import BatchSpec
from rlpyt.utils.collections import AttrDict

Batch = namedtuple(
    "Batch",
    ["agent_inputs", "action", "return_", "done", "done_n", "target_inputs", "target_discount"],
)
N, A = 6, 2  # rows of the fixed minibatch, action size


def _batch(seed=0) -> Batch:
    """Rows 0..5 at observations (ids) 0..5 bootstrapping from ids 6..11."""
    g = torch.Generator().manual_seed(seed)
    obs, next_obs, zeros = torch.arange(N), torch.arange(N, 2 * N), torch.zeros(N)
    return Batch(
        agent_inputs=(obs, zeros, zeros),
        action=torch.rand(N, A, generator=g) * 2 - 1,
        return_=torch.randn(N, generator=g),
        done=torch.zeros(N, dtype=torch.bool),
        done_n=torch.tensor([False, True, False, False, True, False]),
        target_inputs=(next_obs, zeros, zeros),
        target_discount=torch.tensor([0.99, 0.99, 0.99**2, 0.99**3, 0.99, 1.0]),
    )


def _table(g, *shape, scale=1.0):
    return torch.nn.Parameter(torch.randn(*shape, generator=g) * scale)


class FakeSacAgent(torch.nn.Module):
    """Tables by observation id: ``Qi(s, a) = Qi[s] + ki . a``, pi's ``action = tanh(mu[s])``,
    ``log_pi = lp[s]``; target Q-tables separate."""

    device = torch.device("cpu")
    recurrent = False
    action_max = 1.0  # the action bound h (ActorCriticAgent)

    def __init__(self, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.q1_table, self.q2_table = _table(g, 2 * N), _table(g, 2 * N)
        self.k1, self.k2 = _table(g, A), _table(g, A)
        self.tq1_table = torch.randn(2 * N, generator=g)
        self.tq2_table = torch.randn(2 * N, generator=g)
        self.tk1, self.tk2 = torch.randn(A, generator=g), torch.randn(A, generator=g)
        self.mu, self.log_std = _table(g, 2 * N, A), _table(g, 2 * N, A, scale=0.3)
        self.lp = _table(g, 2 * N)
        self.v_table, self.tv_table = _table(g, 2 * N), torch.randn(2 * N, generator=g)
        self.env_spaces = AttrDict(action=AttrDict(shape=(A,)))
        self.target_updates: list[tuple[int, float]] = []
        self.update_counter_source = None

    def q(self, obs, pa, pr, action):
        s = obs.long()
        return self.q1_table[s] + action @ self.k1, self.q2_table[s] + action @ self.k2

    def target_q(self, obs, pa, pr, action):
        s = obs.long()
        return self.tq1_table[s] + action @ self.tk1, self.tq2_table[s] + action @ self.tk2

    def pi(self, obs, pa, pr):
        s = obs.long()
        return torch.tanh(self.mu[s]), self.lp[s], DistInfoStd(self.mu[s], self.log_std[s])

    def v(self, obs, pa, pr):
        return self.v_table[obs.long()]

    def target_v(self, obs, pa, pr):
        return self.tv_table[obs.long()]

    def pi_parameters(self):
        return [self.mu, self.log_std, self.lp]

    def q1_parameters(self):
        return [self.q1_table, self.k1]

    def q2_parameters(self):
        return [self.q2_table, self.k2]

    def v_parameters(self):
        return [self.v_table]

    def update_target(self, tau=1):
        self.target_updates.append((self.update_counter_source(), tau))


class FakeDdpgAgent(torch.nn.Module):
    """``Q(s, a) = Q[s] + k . a``, ``mu(s) = tanh(m[s])``; targets from fixed tables (twin for
    TD3)."""

    device = torch.device("cpu")
    recurrent = False

    def __init__(self, twin=False, seed=0, target_scale=1.0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.twin = twin
        self.q1_table, self.q2_table = _table(g, 2 * N), _table(g, 2 * N)
        self.k1, self.k2 = _table(g, A), _table(g, A)
        self.m = _table(g, 2 * N, A)
        self.tq1 = torch.randn(2 * N, generator=g) * target_scale
        self.tq2 = torch.randn(2 * N, generator=g) * target_scale
        self.target_updates: list[tuple[int, float]] = []
        self.mu_steps: list[int] = []
        self.update_counter_source = None

    def q(self, obs, pa, pr, action):
        s = obs.long()
        q1 = self.q1_table[s] + action @ self.k1
        return (q1, self.q2_table[s] + action @ self.k2) if self.twin else q1

    def q_at_mu(self, obs, pa, pr):
        self.mu_steps.append(self.update_counter_source())
        s = obs.long()
        return self.q1_table[s] + torch.tanh(self.m[s]) @ self.k1

    def target_q_at_mu(self, obs, pa, pr):
        s = obs.long()
        return (self.tq1[s], self.tq2[s]) if self.twin else self.tq1[s]

    def mu_parameters(self):
        return [self.m]

    def q_parameters(self):
        return [self.q1_table, self.k1] + ([self.q2_table, self.k2] if self.twin else [])

    def update_target(self, tau=1):
        self.target_updates.append((self.update_counter_source(), tau))


def _ready(algo, agent):
    """Attach a fake agent and build the optimizers without a replay."""
    algo.agent = agent
    agent.update_counter_source = lambda: algo.update_counter
    algo.mid_batch_reset = True
    algo.optim_initialize()
    return algo


def _records(algo):
    return {field: [] for field in algo.OptInfoCls._fields}


# ---- targets and losses vs naive loops ------------------------------------------------------


@pytest.mark.parametrize("reward_scale", [1, 5])
@pytest.mark.parametrize("action_prior", ["uniform", "gaussian"])
def test_sac_losses_match_naive_loop(reward_scale, action_prior):
    agent = FakeSacAgent()
    algo = _ready(SAC(reward_scale=reward_scale, action_prior=action_prior), agent)
    with torch.no_grad():
        algo._log_alpha.fill_(math.log(0.3))
    algo._alpha = algo._log_alpha.detach().exp()
    batch = _batch()
    (q1_loss, q2_loss, pi_loss, alpha_loss), _ = algo.loss(batch)
    alpha, entropy_target = 0.3, -float(A)
    t = {name: getattr(agent, name).detach().tolist() for name in vars(agent)["_parameters"]}
    q1s, q2s, pis, alphas = [], [], [], []
    for i in range(N):
        nxt = N + i
        a_next = [math.tanh(m) for m in t["mu"][nxt]]
        tq1 = float(agent.tq1_table[nxt]) + sum(
            x * float(k) for x, k in zip(a_next, agent.tk1, strict=True)
        )
        tq2 = float(agent.tq2_table[nxt]) + sum(
            x * float(k) for x, k in zip(a_next, agent.tk2, strict=True)
        )
        y = reward_scale * float(batch.return_[i])
        if not batch.done_n[i]:
            y += float(batch.target_discount[i]) * (min(tq1, tq2) - alpha * t["lp"][nxt])
        a = batch.action[i].tolist()
        q1 = t["q1_table"][i] + sum(x * k for x, k in zip(a, t["k1"], strict=True))
        q2 = t["q2_table"][i] + sum(x * k for x, k in zip(a, t["k2"], strict=True))
        q1s.append(0.5 * (y - q1) ** 2)
        q2s.append(0.5 * (y - q2) ** 2)
        a_new = [math.tanh(m) for m in t["mu"][i]]
        new_q1 = t["q1_table"][i] + sum(x * k for x, k in zip(a_new, t["k1"], strict=True))
        new_q2 = t["q2_table"][i] + sum(x * k for x, k in zip(a_new, t["k2"], strict=True))
        prior = 0.0
        if action_prior == "gaussian":
            prior = sum(-0.5 * x * x - 0.5 * math.log(2 * math.pi) for x in a_new)
        pis.append(alpha * t["lp"][i] - min(new_q1, new_q2) - prior)
        alphas.append(-math.log(alpha) * (t["lp"][i] + entropy_target))
    assert float(q1_loss.detach()) == pytest.approx(np.mean(q1s), rel=1e-5)
    assert float(q2_loss.detach()) == pytest.approx(np.mean(q2s), rel=1e-5)
    assert float(pi_loss.detach()) == pytest.approx(np.mean(pis), rel=1e-5)
    assert float(alpha_loss.detach()) == pytest.approx(np.mean(alphas), rel=1e-5)


def test_sac_gradients_reach_only_each_losss_own_network():
    agent = FakeSacAgent()
    algo = _ready(SAC(), agent)
    log_alpha_before = float(algo._log_alpha.detach())
    snapshot = {name: p.detach().clone() for name, p in agent.named_parameters()}
    batch = _batch()
    (q1_loss, q2_loss, pi_loss, alpha_loss), _ = algo.loss(batch)
    q_grads = torch.autograd.grad(q1_loss + q2_loss, agent.q1_parameters(), retain_graph=True)
    pi_grads = torch.autograd.grad(pi_loss, agent.pi_parameters(), allow_unused=True)
    algo.update(batch, None, _records(algo))
    # Every gradient the update used is its own loss's (Q's not polluted by the policy loss).
    assert torch.allclose(agent.q1_table.grad, q_grads[0])
    assert torch.allclose(agent.k1.grad, q_grads[1])
    assert torch.allclose(agent.mu.grad, pi_grads[0])
    assert float(algo._log_alpha.detach()) != log_alpha_before
    unused = ("log_std", "v_table")  # log_std enters no SAC loss here (only OptInfo), V is SAC_V's
    for name, p in agent.named_parameters():
        assert torch.equal(p.detach(), snapshot[name]) == (name in unused), name


def test_sac_fixed_alpha_and_target_entropy():
    agent = FakeSacAgent()
    fixed = _ready(SAC(fixed_alpha=0.2), agent)
    records = _records(fixed)
    for _ in range(3):
        fixed.update(_batch(), None, records)
    assert [float(a) for a in records["alpha"]] == pytest.approx([0.2] * 3)
    assert fixed.learn_alpha is False
    auto = _ready(SAC(), FakeSacAgent())
    assert auto._target_entropy == -float(A)
    # Actions in [-2, 2]: entropy counted in units of the bound, so the log 2 per dim that an
    # env-unit density loses is taken off the target too (Stable-Baselines3's alpha dynamics).
    wide_agent = FakeSacAgent()
    wide_agent.action_max = 2.0
    wide = _ready(SAC(), wide_agent)
    assert wide._target_entropy == pytest.approx(-A + A * math.log(2.0))
    given = _ready(SAC(target_entropy=-0.5), FakeSacAgent())
    assert given._target_entropy == -0.5
    with pytest.raises(ValueError, match="reparameterize=False"):
        SAC(reparameterize=False)
    with pytest.raises(ValueError, match="action_prior"):
        SAC(action_prior="laplace")
    with pytest.raises(ValueError, match="target_entropy"):
        SAC(target_entropy="max")


@pytest.mark.parametrize("reg", [0.0, 0.001])
def test_sac_v_losses_match_naive_loop(reg):
    agent = FakeSacAgent()
    algo = _ready(SAC_V(reward_scale=5, policy_output_regularization=reg), agent)
    batch = _batch()
    (q1_loss, q2_loss, v_loss, pi_loss), _ = algo.loss(batch)
    t = {name: p.detach().tolist() for name, p in agent.named_parameters()}
    q1s, q2s, vs, pis = [], [], [], []
    for i in range(N):
        y = 5 * float(batch.return_[i])
        if not batch.done_n[i]:
            y += float(batch.target_discount[i]) * float(agent.tv_table[N + i])
        a = batch.action[i].tolist()
        q1s.append(
            0.5 * (y - t["q1_table"][i] - sum(x * k for x, k in zip(a, t["k1"], strict=True))) ** 2
        )
        q2s.append(
            0.5 * (y - t["q2_table"][i] - sum(x * k for x, k in zip(a, t["k2"], strict=True))) ** 2
        )
        a_new = [math.tanh(m) for m in t["mu"][i]]
        min_q = min(
            t["q1_table"][i] + sum(x * k for x, k in zip(a_new, t["k1"], strict=True)),
            t["q2_table"][i] + sum(x * k for x, k in zip(a_new, t["k2"], strict=True)),
        )
        vs.append(0.5 * (t["v_table"][i] - (min_q - t["lp"][i])) ** 2)
        penalty = np.mean(
            [0.5 * m * m + 0.5 * s * s for m, s in zip(t["mu"][i], t["log_std"][i], strict=True)]
        )
        pis.append(t["lp"][i] - min_q + reg * penalty)
    for value, naive in ((q1_loss, q1s), (q2_loss, q2s), (v_loss, vs), (pi_loss, pis)):
        assert float(value.detach()) == pytest.approx(np.mean(naive), rel=1e-5)


@pytest.mark.parametrize("clip", [1e6, 0.5])
def test_ddpg_target_and_losses_match_naive_loop(clip):
    agent = FakeDdpgAgent(target_scale=3.0)
    algo = _ready(DDPG(q_target_clip=clip), agent)
    batch = _batch()
    ys, qs, mus = [], [], []
    with torch.no_grad():
        q_table, k, m = agent.q1_table.clone(), agent.k1.clone(), agent.m.clone()
    for i in range(N):
        y = float(batch.return_[i])
        if not batch.done_n[i]:
            y += float(batch.target_discount[i]) * float(agent.tq1[N + i])
        y = max(-clip, min(clip, y))
        ys.append(y)
        q = float(q_table[i]) + float(batch.action[i] @ k)
        qs.append(0.5 * (y - q) ** 2)
        mus.append(-(float(q_table[i]) + float(torch.tanh(m[i]) @ k)))
    np.testing.assert_allclose(algo.targets(batch).numpy(), ys, rtol=1e-5)
    if clip == 0.5:
        assert max(abs(y) for y in ys) == pytest.approx(0.5)
    assert float(algo.q_loss(batch).detach()) == pytest.approx(np.mean(qs), rel=1e-5)
    agent.update_counter_source = lambda: 0
    assert float(algo.mu_loss(batch).detach()) == pytest.approx(np.mean(mus), rel=1e-5)


def test_td3_clipped_double_q_target_and_twin_loss_match_naive_loop():
    agent = FakeDdpgAgent(twin=True)
    algo = _ready(TD3(), agent)
    batch = _batch()
    ys, losses = [], []
    for i in range(N):
        y = float(batch.return_[i])
        if not batch.done_n[i]:
            y += float(batch.target_discount[i]) * min(
                float(agent.tq1[N + i]), float(agent.tq2[N + i])
            )
        ys.append(y)
        q1 = float(agent.q1_table[i].detach()) + float(batch.action[i] @ agent.k1.detach())
        q2 = float(agent.q2_table[i].detach()) + float(batch.action[i] @ agent.k2.detach())
        losses.append(0.5 * (y - q1) ** 2 + 0.5 * (y - q2) ** 2)
    np.testing.assert_allclose(algo.targets(batch).numpy(), ys, rtol=1e-5)
    assert float(algo.q_loss(batch).detach()) == pytest.approx(np.mean(losses), rel=1e-5)


def test_td3_target_smoothing_with_the_real_agent():
    """Zero target noise: y from the target nets at mu'(s'); with noise, y differs and stays
    within the Q range over actions inside the noise clip."""
    from rlpyt.agents.qpg.td3_agent import Td3Agent
    from rlpyt.envs.gym import make

    env = make("Pendulum-v1")
    torch.manual_seed(0)
    agent = Td3Agent(
        model_kwargs=dict(hidden_sizes=[8]),
        q_model_kwargs=dict(hidden_sizes=[8]),
        target_noise_std=0.0,
    )
    agent.initialize(env.spaces)
    g = torch.Generator().manual_seed(3)
    obs = torch.randn(N, 3, generator=g)
    batch = _batch()._replace(
        agent_inputs=(obs, torch.zeros(N, 1), torch.zeros(N)),
        target_inputs=(obs.flip(0), torch.zeros(N, 1), torch.zeros(N)),
        action=torch.rand(N, 1, generator=g) * 4 - 2,
    )
    algo = TD3()
    algo.agent = agent
    y = algo.targets(batch)
    for i in range(N):
        s = batch.target_inputs[0][i : i + 1]
        with torch.no_grad():
            a = agent.target_model(s, None, None)
            q = min(
                float(agent.target_q_model(s, None, None, a)),
                float(agent.target_q2_model(s, None, None, a)),
            )
        naive = float(batch.return_[i]) + (
            0.0 if batch.done_n[i] else float(batch.target_discount[i]) * q
        )
        assert float(y[i]) == pytest.approx(naive, rel=1e-5, abs=1e-6)
    env.close()


# ---- time limits through the replay -------------------------------------------------------

Samples = namedtuple("Samples", ["agent", "env"])
AgentSamples = namedtuple("AgentSamples", ["action"])
EnvSamples = namedtuple("EnvSamples", ["observation", "reward", "done", "env_info"])
EnvInfo = namedtuple("EnvInfo", ["timeout"])


def _examples():
    return AttrDict(
        observation=np.zeros(1, np.float32),
        action=np.zeros(A, np.float32),
        reward=np.float32(0),
        done=np.bool_(False),
        env_info=EnvInfo(timeout=np.bool_(False)),
    )


def _episode_samples():
    """T=6, B=1: a timeout at t=1, a terminal at t=4; observation = step index."""
    T = 6
    done = np.array([False, True, False, False, True, False])[:, None]
    timeout = np.array([False, True, False, False, False, False])[:, None]
    return Samples(
        agent=AgentSamples(action=np.zeros((T, 1, A), np.float32)),
        env=EnvSamples(
            observation=np.arange(T, dtype=np.float32).reshape(T, 1, 1),
            reward=np.ones((T, 1), np.float32),
            done=done,
            env_info=EnvInfo(timeout=timeout),
        ),
    )


class ConstantValueAgent:
    device = torch.device("cpu")

    def target_q_at_mu(self, obs, pa, pr):
        return torch.full(obs.shape[:1], 10.0)


@pytest.mark.parametrize("bootstrap_timelimit", [True, False])
def test_time_limit_target_bootstraps_a_timeout_not_a_terminal(bootstrap_timelimit):
    algo = DDPG(bootstrap_timelimit=bootstrap_timelimit, replay_size=16, discount=0.9)
    algo.mid_batch_reset = True
    algo.replay_buffer = algo.make_replay_buffer(_examples(), BatchSpec(6, 1))
    expected_cls = TlUniformReplayBuffer if bootstrap_timelimit else UniformReplayBuffer
    assert type(algo.replay_buffer) is expected_cls
    algo.append_samples(_episode_samples())
    algo.agent = ConstantValueAgent()
    rows = np.arange(5)  # the last row's window is not complete yet
    batch = algo.replay_buffer.extract_batch(rows, np.zeros(5, dtype=int))
    y = algo.targets(batch).numpy()
    # t=1 timed out: reward + gamma * V' when bootstrapping the time limit, else a terminal.
    assert y[1] == pytest.approx(1 + 0.9 * 10 if bootstrap_timelimit else 1.0)
    assert y[4] == pytest.approx(1.0)  # terminal: never bootstraps
    assert y[0] == pytest.approx(1 + 0.9 * 10)
    assert y[3] == pytest.approx(1 + 0.9 * 10)


def test_envs_without_timeout_get_the_plain_replay():
    examples = _examples()
    examples.env_info = namedtuple("NoTimeout", [])()
    algo = SAC(replay_size=16)
    algo.mid_batch_reset = True
    assert type(algo.make_replay_buffer(examples, BatchSpec(2, 1))) is UniformReplayBuffer
    given = SAC(replay_size=16, ReplayBufferCls=UniformReplayBuffer)
    given.mid_batch_reset = True
    assert type(given.make_replay_buffer(_examples(), BatchSpec(2, 1))) is UniformReplayBuffer


# ---- update order and intervals -------------------------------------------------------------


def test_td3_delays_policy_and_target_updates():
    agent = FakeDdpgAgent(twin=True)
    algo = _ready(TD3(), agent)
    records = _records(algo)
    for _ in range(6):
        algo.update(_batch(), None, records)
    assert agent.mu_steps == [2, 4, 6]  # the policy step follows the Q step of update 2, 4, 6
    assert agent.target_updates == [(2, 0.005), (4, 0.005), (6, 0.005)]
    assert len(records["qLoss"]) == 6
    assert len(records["muLoss"]) == len(records["muGradNorm"]) == 3


def test_ddpg_updates_policy_and_targets_every_update_by_default():
    agent = FakeDdpgAgent()
    algo = _ready(DDPG(), agent)
    records = _records(algo)
    for _ in range(3):
        algo.update(_batch(), None, records)
    assert agent.mu_steps == [1, 2, 3]
    assert agent.target_updates == [(1, 0.01), (2, 0.01), (3, 0.01)]


@pytest.mark.parametrize("AlgoCls", [SAC, SAC_V])
def test_sac_target_updates_every_interval(AlgoCls):  # noqa: N803
    agent = FakeSacAgent()
    algo = _ready(AlgoCls(target_update_interval=3, target_update_tau=0.1), agent)
    records = _records(algo)
    for _ in range(7):
        algo.update(_batch(), None, records)
    assert agent.target_updates == [(3, 0.1), (6, 0.1)]
    assert all(len(values) >= 7 for values in records.values())


@pytest.mark.parametrize(
    "AlgoCls, kwargs, T, B, expected",
    [
        (SAC, dict(replay_ratio=1, batch_size=256), 1, 1, 1),  # int() would give 0 updates
        (SAC, dict(replay_ratio=256, batch_size=256), 5, 1, 5),
        (SAC, dict(replay_ratio=100, batch_size=64), 1, 1, 2),  # round(1.5625)
        (DDPG, dict(replay_ratio=64, batch_size=64), 2, 3, 6),
        (DDPG, dict(replay_ratio=10, batch_size=100), 1, 1, 1),
        (TD3, dict(replay_ratio=100, batch_size=100), 1, 1, 1),
        (TD3, dict(replay_ratio=150, batch_size=100), 1, 1, 2),  # round(1.5) -> 2
        (SAC_V, dict(replay_ratio=0.5, batch_size=256), 4, 1, 1),
    ],
)
def test_updates_per_optimize_is_rounded_and_never_zero(AlgoCls, kwargs, T, B, expected):  # noqa: N803
    algo = AlgoCls(**kwargs, replay_size=64)
    algo.optim_initialize = lambda rank=0: None
    algo.initialize(FakeSacAgent(), 10, BatchSpec(T, B), True, _examples())
    assert algo.updates_per_optimize == expected


def test_min_itr_learn_goes_to_agents_that_take_it():
    class Taker(FakeSacAgent):
        def give_min_itr_learn(self, min_itr_learn):
            self.given = min_itr_learn

    agent = Taker()
    algo = SAC(min_steps_learn=100, replay_size=64)
    algo.initialize(agent, 10, BatchSpec(3, 2), True, _examples())
    assert algo.min_itr_learn == 16 and agent.given == 16


# ---- learning rates, optimizer states, OptInfo ----------------------------------------------


def test_td3_mu_learning_rate_is_honoured():
    def lrs(algo):
        _ready(algo, FakeDdpgAgent(twin=True))
        return algo.mu_optimizer.param_groups[0]["lr"], algo.q_optimizer.param_groups[0]["lr"]

    assert lrs(TD3()) == (1e-3, 1e-3)  # not DDPG's 1e-4 for mu
    assert lrs(TD3(mu_learning_rate=5e-4, q_learning_rate=2e-3)) == (5e-4, 2e-3)
    assert lrs(TD3(learning_rate=3e-4)) == (3e-4, 1e-3)  # rlpyt's configs name it so
    assert lrs(TD3(learning_rate=3e-4, mu_learning_rate=3e-4)) == (3e-4, 1e-3)
    with pytest.raises(ValueError, match="mu_learning_rate"):
        TD3(learning_rate=3e-4, mu_learning_rate=5e-4)
    assert lrs(DDPG()) == (1e-4, 1e-3)


def _train(algo, agent, n=3):
    records = _records(algo)
    for seed in range(n):
        algo.update(_batch(seed), None, records)
    return records


@pytest.mark.parametrize(
    "make, keys",
    [
        (lambda: (DDPG(), FakeDdpgAgent()), {"q", "mu"}),
        (lambda: (TD3(), FakeDdpgAgent(twin=True)), {"q", "mu"}),
        (
            lambda: (SAC(), FakeSacAgent()),
            {"pi_optimizer", "q1_optimizer", "q2_optimizer", "alpha_optimizer", "log_alpha"},
        ),
        (
            lambda: (SAC_V(), FakeSacAgent()),
            {"pi_optimizer", "q1_optimizer", "q2_optimizer", "v_optimizer"},
        ),
    ],
)
def test_optim_state_dict_round_trip(make, keys):
    algo, agent = make()
    _ready(algo, agent)
    _train(algo, agent)
    state = algo.optim_state_dict()
    assert set(state) == keys
    fresh, fresh_agent = make()
    _ready(fresh, fresh_agent)
    fresh_agent.load_state_dict(agent.state_dict())
    fresh.load_state_dict(copy.deepcopy(algo.state_dict()))  # as pickled in a snapshot
    assert fresh.update_counter == algo.update_counter == 3
    assert _flat(fresh.optim_state_dict()) == _flat(state)
    # Resumed from the same state, the next updates are identical.
    a, b = _train(algo, agent, 2), _train(fresh, fresh_agent, 2)
    for field in a:
        assert [t.tolist() for t in a[field]] == [t.tolist() for t in b[field]], field


def _flat(state):
    if isinstance(state, dict):
        return {k: _flat(v) for k, v in state.items()}
    if isinstance(state, list):
        return [_flat(v) for v in state]
    if isinstance(state, torch.Tensor):
        return state.tolist()
    return state


def test_sac_initial_optim_state_dict_and_log_alpha():
    algo = _ready(SAC(), FakeSacAgent())
    _train(algo, algo.agent)
    state = algo.optim_state_dict()
    assert isinstance(state["log_alpha"], float) and state["log_alpha"] != 0.0
    again = _ready(SAC(initial_optim_state_dict=state), FakeSacAgent())
    assert again.alpha == pytest.approx(math.exp(state["log_alpha"]))


def test_opt_info_fields_are_rlpyts():
    assert DDPG.opt_info_fields == ("muLoss", "qLoss", "muGradNorm", "qGradNorm")
    assert TD3.opt_info_fields == DdpgOptInfo._fields
    assert SAC.opt_info_fields == SacOptInfo._fields == (
        "q1Loss", "q2Loss", "piLoss", "q1GradNorm", "q2GradNorm", "piGradNorm",
        "q1", "q2", "piMu", "piLogStd", "qMeanDiff", "alpha",
    )  # fmt: skip
    assert SAC_V.opt_info_fields == SacVOptInfo._fields == (
        "q1Loss", "q2Loss", "vLoss", "piLoss", "q1GradNorm", "q2GradNorm", "vGradNorm",
        "piGradNorm", "q1", "q2", "v", "piMu", "piLogStd", "qMeanDiff",
    )  # fmt: skip


# ---- the real agents, a few iterations on Pendulum --------------------------------------------


@pytest.mark.parametrize("name", ["DDPG", "TD3", "SAC", "SAC_V"])
def test_real_agents_train_a_few_iterations(name):
    from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
    from rlpyt.agents.qpg.sac_agent import SacAgent
    from rlpyt.agents.qpg.sac_v_agent import SacAgent as SacVAgent
    from rlpyt.agents.qpg.td3_agent import Td3Agent
    from rlpyt.envs.gym import make
    from rlpyt.samplers.serial.sampler import SerialSampler

    small = dict(hidden_sizes=[16])
    AlgoCls, AgentCls = dict(  # noqa: N806
        DDPG=(DDPG, DdpgAgent), TD3=(TD3, Td3Agent), SAC=(SAC, SacAgent), SAC_V=(SAC_V, SacVAgent)
    )[name]
    agent_kwargs = dict(model_kwargs=small, q_model_kwargs=small)
    if name == "SAC_V":
        agent_kwargs["v_model_kwargs"] = small
    torch.manual_seed(0)
    sampler = SerialSampler(
        EnvCls=make, env_kwargs=dict(id="Pendulum-v1"), batch_T=4, batch_B=2,
        max_decorrelation_steps=0,
    )  # fmt: skip
    agent = AgentCls(**agent_kwargs)
    examples = sampler.initialize(agent, seed=0)
    algo = AlgoCls(batch_size=16, min_steps_learn=16, replay_size=200, replay_ratio=16)
    algo.initialize(agent, 5, sampler.batch_spec, sampler.mid_batch_reset, examples)
    assert type(algo.replay_buffer) is TlUniformReplayBuffer
    before = [p.detach().clone() for p in agent.parameters()]
    for itr in range(4):
        agent.sample_mode(itr)
        samples, _ = sampler.obtain_samples(itr)
        agent.train_mode(itr)
        opt_info = algo.optimize_agent(itr, samples)
        if itr < algo.min_itr_learn:
            assert all(values == [] for values in opt_info)
    assert algo.update_counter == 2 * algo.updates_per_optimize
    assert all(isinstance(v, float) and math.isfinite(v) for values in opt_info for v in values)
    lengths = {field: len(values) for field, values in opt_info._asdict().items()}
    assert min(lengths.values()) > 0, lengths
    assert any(
        not torch.equal(p, q.detach()) for p, q in zip(before, agent.parameters(), strict=True)
    )
    sampler.shutdown()
