import copy
import multiprocessing as mp

import pytest
import torch

from rlpyt.agents.base import BaseAgent, model_state_dict_of
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.agents.pg.mujoco import MujocoFfAgent
from tests.unit.agents.agent_helpers import (
    classic_spaces,
    continuous_inputs,
    discrete_inputs,
    mujoco_spaces,
    sampler_process,
)


def _agent(share_memory=False, **kwargs):
    agent = ClassicFfAgent(**kwargs)
    agent.initialize(classic_spaces(), share_memory=share_memory)
    return agent


def _perturb(model, value=0.5):
    with torch.no_grad():
        for p in model.parameters():
            p.add_(value)


def _params_equal(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_construct_without_positional_args_and_model_kwargs_from_config():
    config = {"model": {"hidden_sizes": [8]}}
    agent = ClassicFfAgent(model_kwargs=config["model"])
    agent.initialize(classic_spaces())
    assert agent.model.hidden_weights[0].shape[-1] == 8
    agent.model_kwargs["hidden_sizes"] = [99]
    assert config["model"] == {"hidden_sizes": [8]}  # the config is not shared or mutated
    assert agent.env_model_kwargs == dict(observation_shape=(5,), action_size=3)


def test_misspelt_keyword_fails_at_construction():
    with pytest.raises(TypeError):
        ClassicFfAgent(model_kwarg={})


def test_missing_model_class_and_clashing_model_kwargs_are_explained():
    with pytest.raises(ValueError, match="ModelCls"):
        BaseAgent().initialize(classic_spaces())
    agent = ClassicFfAgent(model_kwargs=dict(action_size=4))
    with pytest.raises(TypeError, match="action_size"):
        agent.initialize(classic_spaces())


def test_state_dict_round_trip_gives_identical_outputs():
    agent = _agent()
    torch.manual_seed(123)
    fresh = _agent()
    inputs = discrete_inputs(classic_spaces(), (4,))
    assert not torch.allclose(agent(*inputs)[1], fresh(*inputs)[1])
    fresh.load_state_dict(agent.state_dict())
    assert torch.equal(agent(*inputs)[0].prob, fresh(*inputs)[0].prob)
    assert torch.equal(agent(*inputs)[1], fresh(*inputs)[1])


def test_initial_model_state_dict_accepts_model_and_agent_formats():
    agent = _agent()
    for given in (agent.state_dict(), {"model": agent.state_dict(), "target": {}}):
        torch.manual_seed(7)
        loaded = _agent(initial_model_state_dict=given)
        assert _params_equal(loaded.model, agent.model)


def test_load_state_dict_accepts_ddp_prefixed_keys():
    agent = _agent()
    prefixed = {"module." + k: v + 1 for k, v in agent.state_dict().items()}
    other = _agent()
    other.load_state_dict(prefixed)
    assert all(torch.equal(v, prefixed["module." + k]) for k, v in other.state_dict().items())
    assert model_state_dict_of({"model": prefixed}).keys() == agent.state_dict().keys()


def test_modes_switch_torch_train_eval():
    agent = _agent()
    agent.train_mode(0)
    assert agent.model.training and agent._mode == "train"
    agent.sample_mode(0)
    assert not agent.model.training and agent._mode == "sample"
    agent.eval_mode(0)
    assert not agent.model.training and agent._mode == "eval"


def test_share_memory_model_and_to_device_cpu_keeps_it():
    agent = _agent(share_memory=True)
    assert agent.shared_model is agent.model
    assert all(p.is_shared() for p in agent.model.parameters())
    agent.to_device(None)
    assert agent.model is agent.shared_model and agent.device.type == "cpu"


def test_sync_shared_memory_copies_trained_weights_into_shared_model():
    agent = _agent(share_memory=True)
    shared = agent.shared_model
    shared_weight = shared.hidden_weights[0]
    agent.async_cpu(share_memory=False)  # a separate trained copy, as to_device(cuda) makes
    assert agent.model is not shared and _params_equal(agent.model, shared)
    _perturb(agent.model)
    assert not _params_equal(agent.model, shared)
    agent.sync_shared_memory()
    assert _params_equal(agent.model, shared)
    assert shared.hidden_weights[0] is shared_weight and shared_weight.is_shared()


def test_sync_shared_memory_is_a_noop_when_trained_model_is_the_shared_one(monkeypatch):
    agent = _agent(share_memory=True)

    def fail(*args, **kwargs):
        raise AssertionError("should not copy a model onto itself")

    monkeypatch.setattr(agent.shared_model, "load_state_dict", fail)
    agent.sync_shared_memory()
    agent.send_shared_memory()
    agent.recv_shared_memory()
    _agent().sync_shared_memory()  # no shared model at all: nothing to do


def _optimizer_and_sampler_sides():
    optimizer_side = _agent(share_memory=True)
    sampler_side = copy.copy(optimizer_side)  # shares shared_model, lock and counter
    optimizer_side.async_cpu(share_memory=False)
    sampler_side.async_cpu(share_memory=False)
    return optimizer_side, sampler_side


def test_send_and_recv_copy_only_when_the_counter_advanced():
    optimizer_side, sampler_side = _optimizer_and_sampler_sides()
    _perturb(optimizer_side.model)
    sampler_side.recv_shared_memory()  # nothing sent yet
    assert not _params_equal(sampler_side.model, optimizer_side.model)
    optimizer_side.send_shared_memory()
    assert optimizer_side._send_count.value == 1
    assert _params_equal(optimizer_side.shared_model, optimizer_side.model)
    sampler_side.recv_shared_memory()
    assert sampler_side._recv_count == 1
    assert _params_equal(sampler_side.model, optimizer_side.model)
    _perturb(sampler_side.shared_model, 1.0)  # changed without a send: not received
    sampler_side.recv_shared_memory()
    assert _params_equal(sampler_side.model, optimizer_side.model)
    _perturb(optimizer_side.model)
    optimizer_side.send_shared_memory()
    sampler_side.recv_shared_memory()
    assert sampler_side._recv_count == 2
    assert _params_equal(sampler_side.model, optimizer_side.model)


def test_send_reaches_a_sampler_in_another_process():
    ctx = mp.get_context("spawn")  # fork could deadlock on torch's thread pool
    agent = _agent(share_memory=True)
    go, results = ctx.Event(), ctx.Queue()
    child = ctx.Process(target=sampler_process, args=(agent, go, results), daemon=True)
    child.start()
    try:
        ready = results.get(timeout=60)
        agent.async_cpu(share_memory=False)
        _perturb(agent.model)
        agent.send_shared_memory()
        go.set()
        received = results.get(timeout=60)
    finally:
        child.join(timeout=30)
        if child.is_alive():
            child.kill()
    expected = agent.model.hidden_weights[0].sum().item()
    assert ready[:2] == ("ready", 0) and ready[2] != pytest.approx(expected, rel=1e-6)
    assert received[:2] == ("received", 1) and received[2] == pytest.approx(expected, rel=1e-6)
    assert child.exitcode == 0


def test_async_cpu_requires_shared_memory():
    with pytest.raises(RuntimeError, match="share_memory"):
        _agent().async_cpu()


def test_data_parallel_on_cpu(gloo_world_of_one):
    agent = MujocoFfAgent(model_kwargs=dict(normalize_observation=True, hidden_sizes=[8]))
    agent.initialize(mujoco_spaces())
    plain_keys = set(agent.state_dict())
    assert agent.data_parallel() is None
    assert isinstance(agent.model, torch.nn.parallel.DistributedDataParallel)
    assert set(agent.state_dict()) == plain_keys  # no "module." prefix
    agent.load_state_dict(agent.state_dict())
    observation = torch.randn(6, 2, 5)
    agent.update_obs_rms(observation)
    assert agent.bare_model.obs_rms.count.item() == 12
    dist_info, value = agent(*continuous_inputs(mujoco_spaces(), (3,)))
    assert value.shape == (3,) and dist_info.mean.shape == (3, 2)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_gpu_agent_trains_a_copy_and_syncs_the_shared_cpu_model():
    agent = _agent(share_memory=True)
    shared = agent.shared_model
    agent.to_device(0)
    assert agent.model is not shared and next(agent.model.parameters()).is_cuda
    assert not next(shared.parameters()).is_cuda
    inputs = discrete_inputs(classic_spaces(), (4,))
    step = agent.step(*inputs)
    assert step.action.device.type == "cpu" and step.agent_info.value.device.type == "cpu"
    dist_info, value = agent(*inputs)
    assert dist_info.prob.is_cuda and value.is_cuda
    _perturb(agent.model)
    agent.sync_shared_memory()
    assert all(torch.equal(v.cpu(), shared.state_dict()[k]) for k, v in agent.state_dict().items())
