"""A2C and PPO updates against naive re-implementations; their optimizer and return helpers."""

import copy
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.base import OptInfo, make_optimizer, opt_info_from
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.buffer import buffer_method

T, B = 16, 4


def sampled_batch(algo, seed=0, batch_T=T):
    """A real CartPole batch from SerialSampler, with the algorithm initialized on its agent."""
    torch.manual_seed(seed)
    agent = ClassicFfAgent(model_kwargs=dict(hidden_sizes=[16, 16]))
    sampler = SerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=batch_T, batch_B=B
    )
    examples = sampler.initialize(agent=agent, seed=seed, bootstrap_value=True)
    algo.initialize(
        agent=agent,
        n_itr=10,
        batch_spec=sampler.batch_spec,
        mid_batch_reset=sampler.mid_batch_reset,
        examples=examples,
    )
    samples, _ = sampler.obtain_samples(0)
    samples = buffer_method(samples, "clone")
    sampler.shutdown()
    agent.train_mode(0)
    return agent, samples


def naive_returns(samples, discount, gae_lambda):
    """GAE by a per-element Python loop (no time-limit steps in these short batches)."""
    reward = samples.env.reward.tolist()
    done = samples.env.done.tolist()
    value = samples.agent.agent_info.value.tolist()
    bootstrap = samples.agent.bootstrap_value.reshape(-1).tolist()
    advantage = np.zeros((len(reward), B))
    for b in range(B):
        next_advantage, next_value = 0.0, bootstrap[b]
        for t in reversed(range(len(reward))):
            not_done = 0.0 if done[t][b] else 1.0
            delta = reward[t][b] + discount * not_done * next_value - value[t][b]
            next_advantage = delta + discount * gae_lambda * not_done * next_advantage
            advantage[t, b], next_value = next_advantage, value[t][b]
    advantage = torch.tensor(advantage, dtype=torch.float32)
    return advantage + samples.agent.agent_info.value, advantage


def naive_step(model, optimizer, loss, clip):
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(list(model.parameters()), clip, foreach=False)
    optimizer.step()


def assert_same_parameters(model, reference):
    for p, q in zip(model.parameters(), reference.parameters(), strict=True):
        assert torch.allclose(p, q, atol=1e-5), (p - q).abs().max()


def test_ppo_one_minibatch_matches_naive_clipped_surrogate_updates():
    algo = PPO(
        discount=0.98,
        gae_lambda=0.8,
        learning_rate=3e-3,
        value_loss_coeff=0.7,
        entropy_loss_coeff=0.0,
        optim_kwargs=dict(eps=1e-5),
        clip_grad_norm=0.5,
        minibatches=1,
        epochs=5,
        ratio_clip=0.2,
        linear_lr_schedule=False,
        normalize_advantage=True,
    )
    agent, samples = sampled_batch(algo)
    reference = copy.deepcopy(agent.model)
    optimizer = torch.optim.Adam(reference.parameters(), lr=3e-3, eps=1e-5, foreach=False)
    return_, advantage = naive_returns(samples, 0.98, 0.8)
    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-6)
    action = samples.agent.action.long().unsqueeze(-1)
    old_prob = samples.agent.agent_info.dist_info.prob.gather(-1, action).squeeze(-1)
    losses = []
    for _ in range(5):
        pi, value = reference(samples.env.observation, None, None)
        ratio = (pi.gather(-1, action).squeeze(-1) + 1e-8) / (old_prob + 1e-8)
        surrogate = torch.min(ratio * advantage, ratio.clamp(0.8, 1.2) * advantage)
        loss = -surrogate.mean() + 0.7 * (0.5 * (value - return_) ** 2).mean()
        losses.append(loss.item())
        naive_step(reference, optimizer, loss, 0.5)

    opt_info = algo.optimize_agent(0, samples)

    assert_same_parameters(agent.model, reference)
    assert opt_info.loss == pytest.approx(losses, rel=1e-4, abs=1e-5)
    assert all(len(values) == 5 for values in opt_info)
    assert all(isinstance(v, float) for values in opt_info for v in values)
    assert algo.update_counter == 5


def test_ppo_minibatches_linear_schedule_and_diagnostics():
    algo = PPO(minibatches=4, epochs=3, learning_rate=1e-3, ratio_clip=0.1)
    agent, samples = sampled_batch(algo)
    before = [p.detach().clone() for p in agent.parameters()]
    opt_info = algo.optimize_agent(0, samples)
    assert all(len(values) == 12 for values in opt_info) and algo.update_counter == 12
    assert any(not torch.equal(p, q) for p, q in zip(agent.parameters(), before, strict=True))
    # Two actions: entropy in (0, log 2], perplexity = mean exp(entropy) in (1, 2].
    assert all(0 < e <= np.log(2) + 1e-6 for e in opt_info.entropy)
    assert all(1 < p <= 2 + 1e-6 for p in opt_info.perplexity)
    assert all(g > 0 for g in opt_info.gradNorm)
    assert algo.optimizer.param_groups[0]["lr"] == pytest.approx(1e-3 * 9 / 10)
    assert algo.ratio_clip == pytest.approx(0.1 * 9 / 10)


def test_ppo_entropy_bonus_enters_the_gradient():
    grads = []
    for coeff in (0.0, 0.5):
        algo = PPO(entropy_loss_coeff=coeff, minibatches=1, epochs=1)
        agent, samples = sampled_batch(algo)
        algo.optimize_agent(0, samples)
        grads.append(agent.model.pi.weight.detach().clone())
    assert not torch.allclose(grads[0], grads[1])


def test_a2c_matches_naive_policy_gradient_update():
    algo = A2C(
        discount=0.99,
        learning_rate=7e-4,
        value_loss_coeff=1.0,
        entropy_loss_coeff=0.01,
        OptimCls=torch.optim.RMSprop,
        optim_kwargs=dict(alpha=0.99, eps=1e-5),
        clip_grad_norm=0.5,
    )
    agent, samples = sampled_batch(algo, batch_T=5)
    reference = copy.deepcopy(agent.model)
    optimizer = torch.optim.RMSprop(
        reference.parameters(), lr=7e-4, alpha=0.99, eps=1e-5, foreach=False
    )
    return_, advantage = naive_returns(samples, 0.99, 1.0)
    pi, value = reference(samples.env.observation, None, None)
    action = samples.agent.action.long().unsqueeze(-1)
    logli = torch.log(pi.gather(-1, action).squeeze(-1) + 1e-8)
    entropy = -(pi * torch.log(pi + 1e-8)).sum(-1).mean()
    loss = -(logli * advantage).mean() + (0.5 * (value - return_) ** 2).mean() - 0.01 * entropy
    naive_step(reference, optimizer, loss, 0.5)

    opt_info = algo.optimize_agent(0, samples)

    assert_same_parameters(agent.model, reference)
    assert opt_info.loss == pytest.approx([loss.item()], rel=1e-5)
    assert opt_info.entropy == pytest.approx([entropy.item()], rel=1e-5)
    assert algo.update_counter == 1


@pytest.mark.parametrize("gae_lambda", [1.0, 0.9])
def test_process_returns_with_timeouts_matches_naive_loop(gae_lambda):
    rng = np.random.default_rng(3)
    reward = torch.tensor(rng.normal(size=(6, 3)), dtype=torch.float32)
    value = torch.tensor(rng.normal(size=(6, 3)), dtype=torch.float32)
    bootstrap = torch.tensor(rng.normal(size=(3,)), dtype=torch.float32)
    done = torch.tensor(rng.random((6, 3)) < 0.4)
    timeout = done & torch.tensor(rng.random((6, 3)) < 0.5)
    timeout[2, 1] = done[2, 1] = True  # at least one time-limit cut
    samples = SimpleNamespace(
        env=SimpleNamespace(reward=reward, done=done, env_info=SimpleNamespace(timeout=timeout)),
        agent=SimpleNamespace(agent_info=SimpleNamespace(value=value), bootstrap_value=bootstrap),
    )
    algo = A2C(discount=0.9, gae_lambda=gae_lambda)
    algo.agent, algo.mid_batch_reset = SimpleNamespace(recurrent=False), True

    return_, advantage, valid = algo.process_returns(samples)

    expected = torch.zeros(6, 3)
    for b in range(3):
        next_advantage, next_value = 0.0, bootstrap[b].item()
        for t in reversed(range(6)):
            # A time-limit cut bootstraps from V(s_t); any done cuts the recursion.
            r = reward[t, b].item() + (0.9 * value[t, b].item() if timeout[t, b] else 0.0)
            not_done = 0.0 if done[t, b] else 1.0
            delta = r + 0.9 * not_done * next_value - value[t, b].item()
            next_advantage = delta + 0.9 * gae_lambda * not_done * next_advantage
            expected[t, b], next_value = next_advantage, value[t, b].item()
    assert valid is None and return_.dtype == advantage.dtype == torch.float32
    assert torch.allclose(advantage, expected, atol=1e-5)
    assert torch.allclose(return_, expected + value, atol=1e-5)


def test_make_optimizer_prefers_fused_then_foreach_and_respects_the_caller():
    params = [torch.nn.Parameter(torch.zeros(3))]
    adam = make_optimizer(torch.optim.Adam, params, 1e-3, dict(eps=1e-5))
    assert adam.param_groups[0]["fused"] and adam.param_groups[0]["eps"] == 1e-5
    rmsprop = make_optimizer(torch.optim.RMSprop, params, 1e-3, {})
    assert rmsprop.param_groups[0]["foreach"]
    chosen = make_optimizer(torch.optim.Adam, params, 1e-3, dict(foreach=False))
    assert chosen.param_groups[0]["foreach"] is False and not chosen.param_groups[0]["fused"]


def test_opt_info_from_converts_per_update_tensors_in_order():
    steps = [tuple(torch.tensor(float(10 * i + j)) for j in range(4)) for i in range(3)]
    info = opt_info_from(steps)
    assert isinstance(info, OptInfo)
    assert info.loss == [0.0, 10.0, 20.0] and info.perplexity == [3.0, 13.0, 23.0]
    assert opt_info_from([]) == OptInfo([], [], [], [])
