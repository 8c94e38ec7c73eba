"""An evaluation's trajectories are a function of (sampler seed, iteration) and the agent alone.

The serial sampler's evaluation at one iteration gives the same episodes whatever batches and
evaluations came before it, with per-env and vector eval envs, with epsilon-greedy (DQN) and
sampled (PG) evaluation actions; and it leaves the process's generators as it found them.
"""

import random

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.envs.gym import make as gym_make
from rlpyt.envs.gym_vector import make_vec
from rlpyt.samplers.evaluation import evaluation_rng, evaluation_seed
from rlpyt.samplers.serial.sampler import SerialSampler

ENV_MAKERS = {"per-env": gym_make, "vector": make_vec}
AGENTS = {"dqn": lambda: ClassicDqnAgent(eps_eval=0.5), "pg": ClassicFfAgent}


def make_sampler(env, agent_name, seed=7):
    torch.manual_seed(0)  # the same initial weights in every sampler of a test
    env_kwargs = dict(id="CartPole-v1")
    if env == "vector":
        env_kwargs["vectorization_mode"] = "sync"
    sampler = SerialSampler(
        EnvCls=ENV_MAKERS[env],
        env_kwargs=env_kwargs,
        batch_T=8,
        batch_B=2,
        max_decorrelation_steps=0,
        eval_n_envs=3,
        eval_max_steps=240,
    )
    agent = AGENTS[agent_name]()
    sampler.initialize(agent=agent, seed=seed)
    return sampler, agent


def episodes(sampler, agent, itr):
    agent.eval_mode(itr)
    return [(t["Length"], t["Return"]) for t in sampler.evaluate_agent(itr)]


@pytest.mark.parametrize("agent_name", AGENTS)
@pytest.mark.parametrize("env", ENV_MAKERS)
def test_an_evaluation_depends_on_its_iteration_not_on_the_history(env, agent_name):
    fresh, fresh_agent = make_sampler(env, agent_name)
    wanted = episodes(fresh, fresh_agent, 3)
    fresh.shutdown()

    used, agent = make_sampler(env, agent_name)
    for itr in range(3):  # batches and evaluations move the envs and the generators
        agent.sample_mode(itr)
        used.obtain_samples(itr)
        episodes(used, agent, itr)
    assert episodes(used, agent, 3) == wanted
    assert episodes(used, agent, 3) == wanted  # again, right after itself
    assert episodes(used, agent, 4) != wanted  # another iteration, other episodes
    used.shutdown()


def test_an_evaluation_leaves_the_process_generators_as_they_were():
    sampler, agent = make_sampler("per-env", "dqn")
    random.seed(1)
    np.random.seed(1)
    torch.manual_seed(1)
    before = (random.getstate(), np.random.get_state(), torch.get_rng_state())
    episodes(sampler, agent, 2)  # epsilon 0.5: about half of the actions draw from torch
    python_state, numpy_state, torch_state = before
    assert random.getstate() == python_state
    assert all(
        np.array_equal(a, b) for a, b in zip(np.random.get_state(), numpy_state, strict=True)
    )
    assert torch.equal(torch.get_rng_state(), torch_state)
    sampler.shutdown()


def test_evaluation_rng_restores_the_generators_and_repeats_its_draws():
    torch.manual_seed(5)
    state = torch.get_rng_state()
    with evaluation_rng(seed=3, itr=9):
        first = (random.random(), np.random.rand(), torch.rand(2))
    assert torch.equal(torch.get_rng_state(), state)
    with evaluation_rng(seed=3, itr=9):
        second = (random.random(), np.random.rand(), torch.rand(2))
    assert first[:2] == second[:2] and torch.equal(first[2], second[2])
    with evaluation_rng(seed=3, itr=10):
        assert not torch.equal(torch.rand(2), first[2])


def test_evaluation_seeds_differ_by_seed_iteration_and_key():
    seeds = {evaluation_seed(s, itr, *key) for s in (0, 1) for itr in (0, 1) for key in ((), (1,))}
    assert len(seeds) == 8
    assert evaluation_seed(2, 5) == evaluation_seed(2, 5)
    assert all(0 <= s < 2**32 for s in seeds)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_evaluation_rng_forks_and_seeds_cuda_once_it_runs():
    torch.cuda.init()
    state = torch.cuda.get_rng_state()
    with evaluation_rng(seed=3, itr=9):
        first = torch.rand(2, device="cuda")
    assert torch.equal(torch.cuda.get_rng_state(), state)
    with evaluation_rng(seed=3, itr=9):
        assert torch.equal(torch.rand(2, device="cuda"), first)
