"""Asynchronous parameter sync on CPU: optimizer in this process, sampler agent in another.

The sampler side calls ``async_cpu`` (a model of its own), the optimizer side trains the model
``separate_optim_model`` gives it (what the replay algorithms' ``optim_initialize`` does in an
asynchronous run) and publishes with ``send_shared_memory``; ``recv_shared_memory`` copies only
when the send counter advanced. rlpyt trained the shared model itself on CPU and skipped the
send, so the sampler kept its initial weights: the first check below catches that.
"""

from __future__ import annotations

import multiprocessing as mp

import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent, ClassicR2d1Agent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.envs.base import EnvSpaces
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.int_box import IntBox

TIMEOUT = 60
OBS = 5
DISCRETE = EnvSpaces(observation=FloatBox(-1, 1, shape=(OBS,)), action=IntBox(0, 3))
CONTINUOUS = EnvSpaces(observation=FloatBox(-10, 10, shape=(OBS,)), action=FloatBox(-1, 1, (2,)))


def _dqn():
    return ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[16])), DISCRETE


def _sac():
    small = dict(hidden_sizes=[16])
    return SacAgent(model_kwargs=small, q_model_kwargs=small), CONTINUOUS


def _r2d1():
    return ClassicR2d1Agent(), DISCRETE


AGENTS = {"dqn": _dqn, "sac": _sac, "r2d1": _r2d1}


def checksums(model: torch.nn.Module) -> list[float]:
    return [float(v.double().sum()) for v in model.state_dict().values() if v.is_floating_point()]


def _inputs(spaces, n=2):
    action = spaces.action
    prev_action = (
        torch.zeros(n, dtype=torch.long) if isinstance(action, IntBox) else torch.zeros(n, 2)
    )
    return torch.zeros(n, OBS), prev_action, torch.zeros(n)


def sampler_side(agent, spaces, go, results):
    """The sampler process: own model, step, and receive whenever the master says go."""
    torch.set_num_threads(1)
    agent.async_cpu(share_memory=False)
    agent.sample_mode(0)
    agent.step(*_inputs(spaces))
    results.put(("start", agent._recv_count, checksums(agent.model)))
    for label in ("first", "unsent", "second"):
        if not go.wait(TIMEOUT):
            return
        go.clear()
        agent.recv_shared_memory()
        agent.step(*_inputs(spaces))  # still steps, carried rnn state and all
        results.put((label, agent._recv_count, checksums(agent.model)))


def _perturb(model: torch.nn.Module, amount: float) -> None:
    with torch.no_grad():
        for param in model.parameters():
            param.add_(amount)


@pytest.mark.parametrize("name", list(AGENTS))
def test_weights_sent_by_the_optimizer_reach_a_sampler_in_another_process(name):
    agent, spaces = AGENTS[name]()
    agent.initialize(spaces, share_memory=True)  # in the master, as the sampler does
    ctx = mp.get_context("spawn")
    go, results = ctx.Event(), ctx.Queue()
    child = ctx.Process(target=sampler_side, args=(agent, spaces, go, results), daemon=True)
    child.start()
    try:
        start = results.get(timeout=TIMEOUT)
        agent.separate_optim_model()  # optimizer side, as optim_initialize does
        assert agent.model is not agent.shared_model
        private = [name_ for name_ in ("target_model", "q1_model") if hasattr(agent, name_)]
        before = {n: checksums(getattr(agent, n)) for n in private}
        _perturb(agent.model, 0.5)  # "training"
        agent.send_shared_memory()
        trained = checksums(agent.model)
        go.set()
        first = results.get(timeout=TIMEOUT)
        _perturb(agent.shared_model, 1.0)  # a change without a send: never received
        go.set()
        unsent = results.get(timeout=TIMEOUT)
        _perturb(agent.model, 0.25)
        agent.send_shared_memory()
        go.set()
        second = results.get(timeout=TIMEOUT)
    finally:
        go.set()
        child.join(TIMEOUT)
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0
    assert start[1] == 0 and start[2] != pytest.approx(trained)
    assert first[1] == 1 and first[2] == pytest.approx(trained)
    assert unsent[1] == 1 and unsent[2] == pytest.approx(trained)
    assert second[1] == 2 and second[2] == pytest.approx(checksums(agent.model))
    # Only the sampler's model is shared: targets and Q models stay the optimizer's own.
    assert {n: checksums(getattr(agent, n)) for n in private} == before


def test_separate_optim_model_is_a_noop_without_sharing_or_when_already_apart():
    agent, spaces = _dqn()
    agent.initialize(spaces)
    model = agent.model
    agent.separate_optim_model()
    assert agent.model is model and agent.shared_model is None
    shared_agent, _ = _dqn()
    shared_agent.initialize(spaces, share_memory=True)
    shared_agent.separate_optim_model()
    apart = shared_agent.model
    shared_agent.separate_optim_model()
    assert shared_agent.model is apart and apart is not shared_agent.shared_model
    assert checksums(apart) == checksums(shared_agent.shared_model)
    assert not any(p.is_shared() for p in apart.parameters())
