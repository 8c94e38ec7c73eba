"""Q-function policy-gradient agents: DdpgAgent, Td3Agent, SacAgent and SAC_V's SacAgent."""

import math

import numpy as np
import pytest
import torch
from gymnasium import spaces as gym_spaces

from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.agents.qpg.sac_v_agent import SacAgent as SacVAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.envs.base import EnvSpaces
from rlpyt.envs.gym import make as gym_make
from rlpyt.samplers.noise import SamplingNoise
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.gym_wrapper import GymSpaceWrapper
from rlpyt.spaces.int_box import IntBox
from tests.unit.agents.agent_helpers import (
    ACTION_SIZE,
    OBS_SHAPE,
    continuous_inputs,
    mujoco_spaces,
)

H = 2.0  # action bound of mujoco_spaces(): [-2, 2]
SMALL = dict(model_kwargs=dict(hidden_sizes=[16]), q_model_kwargs=dict(hidden_sizes=[16]))
AGENTS = [DdpgAgent, Td3Agent, SacAgent, SacVAgent]
AGENT_IDS = ["ddpg", "td3", "sac", "sac_v"]
NAMES = {
    DdpgAgent: ("model", "q_model", "target_model", "target_q_model"),
    Td3Agent: (
        "model",
        "q_model",
        "q2_model",
        "target_model",
        "target_q_model",
        "target_q2_model",
    ),
    SacAgent: ("model", "q1_model", "q2_model", "target_q1_model", "target_q2_model"),
    SacVAgent: ("model", "q1_model", "q2_model", "v_model", "target_v_model"),
}
TARGETS = {
    DdpgAgent: {"target_model": "model", "target_q_model": "q_model"},
    Td3Agent: {"target_model": "model", "target_q_model": "q_model", "target_q2_model": "q2_model"},
    SacAgent: {"target_q1_model": "q1_model", "target_q2_model": "q2_model"},
    SacVAgent: {"target_v_model": "v_model"},
}


def make_agent(AgentCls, spaces=None, **kwargs):
    kwargs = {**SMALL, **kwargs}
    if AgentCls is SacVAgent:
        kwargs.setdefault("v_model_kwargs", dict(hidden_sizes=[16]))
    agent = AgentCls(**kwargs)
    agent.initialize(spaces or mujoco_spaces())
    return agent


def perturb(module, seed):
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(torch.randn(p.shape, generator=generator).to(p.device))


def assert_same_params(a, b):
    a_state, b_state = a.state_dict(), b.state_dict()
    assert list(a_state) == list(b_state)
    assert all(torch.equal(a_state[key], b_state[key]) for key in a_state)


# -- forward passes ---------------------------------------------------------------------------


@pytest.mark.parametrize("lead", [(), (4,), (3, 2)], ids=str)
@pytest.mark.parametrize("AgentCls", AGENTS, ids=AGENT_IDS)
def test_step_and_training_outputs_have_the_documented_shapes(AgentCls, lead):
    agent = make_agent(AgentCls)
    agent.sample_mode(0)
    inputs = continuous_inputs(mujoco_spaces(), lead)
    step = agent.step(*inputs)
    assert step.action.shape == lead + (ACTION_SIZE,) and step.action.dtype == torch.float32
    assert step.action.abs().max() <= H
    if AgentCls in (DdpgAgent, Td3Agent):
        assert step.agent_info._fields == ("mu",) and step.agent_info.mu.shape == lead + (2,)
        assert agent.q_at_mu(*inputs).shape == lead
        q = agent.q(*inputs, step.action)
        target = agent.target_q_at_mu(*inputs)
    else:
        info = step.agent_info.dist_info
        assert info.mean.shape == lead + (2,) and info.log_std.shape == lead + (2,)
        action, log_pi, dist_info = agent.pi(*inputs)
        assert action.shape == lead + (2,) and log_pi.shape == lead and action.requires_grad
        assert dist_info._fields == ("mean", "log_std")
        q = agent.q(*inputs, step.action)
        target = (
            agent.target_v(*inputs) if AgentCls is SacVAgent else agent.target_q(*inputs, action)
        )
    twin = AgentCls is not DdpgAgent
    for out in q if twin else (q,):
        assert out.shape == lead and out.requires_grad
    for out in target if isinstance(target, tuple) else (target,):
        assert out.shape == lead and not out.requires_grad
    if AgentCls is SacVAgent:
        assert agent.v(*inputs).shape == lead and agent.v(*inputs).requires_grad


def test_q_at_mu_gradient_reaches_mu_and_parameter_groups_split_the_models():
    agent = make_agent(Td3Agent)
    agent.q_at_mu(*continuous_inputs(mujoco_spaces(), (8,))).sum().backward()
    assert all(p.grad is not None for p in agent.mu_parameters())
    assert all(p.grad is None for p in agent.q2_model.parameters())  # q_at_mu uses Q1 only
    mu, q = {id(p) for p in agent.mu_parameters()}, {id(p) for p in agent.q_parameters()}
    trained = {
        id(p)
        for name in ("model", "q_model", "q2_model")
        for p in getattr(agent, name).parameters()
    }
    assert not mu & q and mu | q == trained == {id(p) for p in agent.parameters()}


def test_sac_parameter_groups():
    agent = make_agent(SacVAgent)
    groups = [
        agent.pi_parameters(),
        agent.q1_parameters(),
        agent.q2_parameters(),
        agent.v_parameters(),
    ]
    ids = [{id(p) for p in g} for g in groups]
    assert sum(len(s) for s in ids) == len(set().union(*ids)) == len(list(agent.parameters()))
    targets = {id(p) for p in agent.target_v_model.parameters()}
    assert not targets & set().union(*ids)


# -- targets ----------------------------------------------------------------------------------


@pytest.mark.parametrize("AgentCls", AGENTS, ids=AGENT_IDS)
def test_targets_start_as_copies_and_polyak_update_matches_a_naive_loop(AgentCls):
    agent = make_agent(AgentCls)
    for target, source in TARGETS[AgentCls].items():
        assert getattr(agent, target) is not getattr(agent, source)
        assert_same_params(getattr(agent, target), getattr(agent, source))
    for i, source in enumerate(set(TARGETS[AgentCls].values())):
        perturb(getattr(agent, source), i)
    before = {
        t: {k: v.clone() for k, v in getattr(agent, t).state_dict().items()}
        for t in TARGETS[AgentCls]
    }
    tau = 0.3
    agent.update_target(tau)
    for target, source in TARGETS[AgentCls].items():
        src = getattr(agent, source).state_dict()
        for key, value in getattr(agent, target).state_dict().items():
            expected = torch.empty_like(value)
            for j in range(value.numel()):  # element by element
                expected.view(-1)[j] = (
                    tau * src[key].view(-1)[j] + (1 - tau) * before[target][key].view(-1)[j]
                )
            torch.testing.assert_close(value, expected)
    agent.update_target()  # tau = 1: hard copy
    for target, source in TARGETS[AgentCls].items():
        assert_same_params(getattr(agent, target), getattr(agent, source))
    with pytest.raises(ValueError, match="tau"):
        agent.update_target(0)


# -- state dicts ------------------------------------------------------------------------------


@pytest.mark.parametrize("AgentCls", AGENTS, ids=AGENT_IDS)
def test_state_dict_round_trips_every_model(AgentCls):
    source = make_agent(AgentCls)
    for i, name in enumerate(NAMES[AgentCls]):
        perturb(getattr(source, name), 10 + i)  # every model different, targets included
    state = source.state_dict()
    assert tuple(state) == NAMES[AgentCls]
    agent = make_agent(AgentCls)
    agent.load_state_dict(state)
    for name in NAMES[AgentCls]:
        assert_same_params(getattr(agent, name), getattr(source, name))
    fresh = make_agent(AgentCls, initial_model_state_dict=state)  # a whole agent state dict
    for name in NAMES[AgentCls]:
        assert_same_params(getattr(fresh, name), getattr(source, name))
    with pytest.raises(ValueError, match=r"unknown entries \['critic'\]"):
        agent.load_state_dict({**state, "critic": {}})


def test_ddpg_initial_state_dicts_are_flat_and_targets_copy_them():
    source = make_agent(Td3Agent)
    for i, name in enumerate(("model", "q_model", "q2_model")):
        perturb(getattr(source, name), 20 + i)
    agent = make_agent(
        Td3Agent,
        initial_model_state_dict=source.model.state_dict(),
        initial_q_model_state_dict=source.q_model.state_dict(),
        initial_q2_model_state_dict=source.q2_model.state_dict(),
    )
    for name in ("model", "q_model", "q2_model"):
        assert_same_params(getattr(agent, name), getattr(source, name))
        assert_same_params(getattr(agent, "target_" + name), getattr(source, name))


def test_a_flat_policy_state_dict_loads_the_policy_only():
    agent = make_agent(DdpgAgent)
    q_before = {k: v.clone() for k, v in agent.q_model.state_dict().items()}
    other = make_agent(DdpgAgent)
    perturb(other.model, 30)
    agent.load_state_dict(other.model.state_dict())
    assert_same_params(agent.model, other.model)
    assert_same_params(agent.target_model, other.model)  # its target follows
    assert all(torch.equal(v, q_before[k]) for k, v in agent.q_model.state_dict().items())


def test_sync_shared_memory_copies_the_policy_into_the_shared_model():
    agent = DdpgAgent(**SMALL)
    agent.initialize(mujoco_spaces(), share_memory=True)
    assert agent.shared_model is agent.model
    assert not agent.q_model.parameters().__next__().is_shared()  # private to training
    agent.model = type(agent.model)(OBS_SHAPE, [16], ACTION_SIZE, output_max=H)  # a training copy
    perturb(agent.model, 7)
    agent.sync_shared_memory()
    assert_same_params(agent.shared_model, agent.model)


# -- modes and noise --------------------------------------------------------------------------


def test_ddpg_samples_around_mu_and_evaluates_deterministically():
    agent = make_agent(DdpgAgent, action_std=0.5, action_noise_clip=0.25)
    inputs = continuous_inputs(mujoco_spaces(), (4000,))
    agent.sample_mode(0)
    step = agent.step(*inputs)
    noise = step.action - step.agent_info.mu
    inside = step.action.abs() < H  # not clipped at the bounds
    assert noise.abs().max() <= 0.25 * H + 1e-6  # noise clip in units of h
    assert noise[inside].abs().max() > 0.24 * H
    assert torch.allclose(agent.distribution.std, torch.full((2,), 0.5 * H))
    agent.eval_mode(1)
    step = agent.step(*inputs)
    assert torch.equal(step.action, step.agent_info.mu)
    agent.sample_mode(2)
    assert torch.allclose(agent.distribution.std, torch.full((2,), 0.5 * H))


def test_ddpg_exploration_std_is_action_std_times_h():
    agent = make_agent(DdpgAgent, action_std=0.1)
    agent.sample_mode(0)
    agent.model = ZeroMu()  # mu = 0, so the action is the noise (far from the clip)
    action = agent.step(*continuous_inputs(mujoco_spaces(), (20000,))).action
    assert action.std().item() == pytest.approx(0.1 * H, rel=0.03)


class ZeroMu(torch.nn.Module):
    def forward(self, observation, prev_action, prev_reward):
        return torch.zeros(observation.shape[:-1] + (ACTION_SIZE,))


def test_td3_sample_std_switches_at_min_itr_learn():
    agent = make_agent(Td3Agent, pretrain_std=0.5, action_std=0.1)
    agent.give_min_itr_learn(3)
    expected = {0: 0.5 * H, 2: 0.5 * H, 3: 0.1 * H, 9: 0.1 * H}
    for itr, std in expected.items():
        agent.sample_mode(itr)
        assert torch.allclose(agent.distribution.std, torch.full((2,), std))
    agent.eval_mode(10)
    assert torch.equal(agent.distribution.std, torch.zeros(2))
    with pytest.raises(ValueError, match="min_itr_learn"):
        agent.give_min_itr_learn(-1)


class RecordingQ(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.actions = []

    def forward(self, observation, prev_action, prev_reward, action):
        self.actions.append(action)
        return torch.zeros(action.shape[:-1])


def test_td3_target_smoothing_noise_is_clipped_and_shared_by_both_target_qs():
    agent = make_agent(Td3Agent, target_noise_std=0.4, target_noise_clip=0.3)
    agent.target_q_model, agent.target_q2_model = RecordingQ(), RecordingQ()
    inputs = continuous_inputs(mujoco_spaces(), (5000,))
    tq1, tq2 = agent.target_q_at_mu(*inputs)
    assert tq1.shape == tq2.shape == (5000,)
    (action1,), (action2,) = agent.target_q_model.actions, agent.target_q2_model.actions
    assert torch.equal(action1, action2)
    target_mu = agent.target_model(*inputs)
    noise = action1 - target_mu
    inside = action1.abs() < H
    assert action1.abs().max() <= H
    assert noise.abs().max() <= 0.3 * H + 1e-6  # noise clip in units of h
    assert noise[inside].abs().max() > 0.29 * H  # std 0.8 reaches the clip 0.6 often


def test_sac_sample_std_switches_and_eval_is_squashed_mean():
    agent = make_agent(SacAgent, pretrain_std=0.75, action_squash=1.0)
    agent.give_min_itr_learn(2)
    agent.sample_mode(0)
    assert torch.allclose(agent.distribution.std, torch.full((2,), 0.75))
    agent.sample_mode(2)
    assert agent.distribution.std is None  # the model's log std
    inputs = continuous_inputs(mujoco_spaces(), (16,))
    agent.eval_mode(3)
    step = agent.step(*inputs)
    mean = step.agent_info.dist_info.mean
    torch.testing.assert_close(step.action, H * torch.tanh(mean))
    action, _, _ = agent.pi(*inputs)  # pi uses the model's std in any mode
    assert not torch.allclose(action, step.action)
    assert torch.equal(agent.distribution.std, torch.zeros(2))  # eval setting untouched


def test_sac_pretrain_std_zero_samples_the_squashed_mean():
    agent = make_agent(SacAgent, pretrain_std=0.0)
    agent.give_min_itr_learn(10000)
    agent.sample_mode(0)
    step = agent.step(*continuous_inputs(mujoco_spaces(), (8,)))
    torch.testing.assert_close(step.action, H * torch.tanh(step.agent_info.dist_info.mean))


def test_sac_pi_log_likelihood_includes_the_tanh_correction():
    agent = make_agent(SacAgent, action_squash=0.5)
    with torch.no_grad():  # large log stds to exercise the clamp at 2
        agent.model.mlp.model[-1].bias[ACTION_SIZE:] = torch.tensor([3.0, -0.5])
    inputs = continuous_inputs(mujoco_spaces(), (64,))
    torch.manual_seed(5)
    action, log_pi, dist_info = agent.pi(*inputs)
    torch.manual_seed(5)
    std = dist_info.log_std.clamp(-20, 2).exp()
    raw = dist_info.mean + std * torch.randn_like(dist_info.mean)
    scale = 0.5 * H
    torch.testing.assert_close(action, scale * torch.tanh(raw))
    gaussian = torch.distributions.Normal(dist_info.mean, std).log_prob(raw).sum(-1)
    # log(scale * (1 - tanh(x)^2)) = log(scale) - 2 log(cosh(x)), in float64 (no saturation):
    correction = (math.log(scale) - 2 * torch.log(torch.cosh(raw.double()))).sum(-1).float()
    torch.testing.assert_close(log_pi, gaussian - correction, rtol=1e-4, atol=1e-4)
    (action.sum() + log_pi.sum()).backward()
    assert all(p.grad is not None for p in agent.pi_parameters())


# -- action spaces and units ------------------------------------------------------------------


def test_pendulum_action_units():
    spaces = gym_make("Pendulum-v1").spaces  # actions in [-2, 2]
    ddpg = make_agent(DdpgAgent, spaces, action_std=0.1, action_noise_clip=0.5)
    assert ddpg.action_max == 2.0 and ddpg.model._output_max == 2.0
    assert ddpg.distribution.clip == 2.0 and ddpg.distribution.noise_clip == 1.0
    assert torch.allclose(ddpg.distribution.std, torch.tensor([0.2]))
    td3 = make_agent(Td3Agent, spaces)
    target = td3.target_distribution
    assert torch.allclose(target.std, torch.tensor([0.4]))
    assert target.noise_clip == 1.0 and target.clip == 2.0
    sac = make_agent(SacAgent, spaces)
    assert sac.distribution.squash == 2.0 and sac.pi_distribution.squash == 2.0


def gym_box(low, high, shape):
    return GymSpaceWrapper(gym_spaces.Box(low, high, shape, dtype=np.float32))


BAD_SPACES = [
    (IntBox(0, 3), r"needs a continuous \(Box\) action space"),
    (GymSpaceWrapper(gym_spaces.Discrete(3)), r"the env has Discrete\(3\)"),
    (FloatBox(-1, 1, shape=(2, 2)), r"needs a 1-D action space"),
    (gym_box(np.array([-1, -2]), np.array([1, 3]), (2,)), "RescaleAction"),
    (gym_box(np.array([-1, -2]), np.array([1, 2]), (2,)), "same finite h > 0 in every dim"),
    (gym_box(0, 1, (2,)), "RescaleAction"),
    (gym_box(-np.inf, np.inf, (2,)), "RescaleAction"),
]


@pytest.mark.parametrize("AgentCls", AGENTS, ids=AGENT_IDS)
@pytest.mark.parametrize(("space", "match"), BAD_SPACES, ids=range(len(BAD_SPACES)))
def test_bad_action_spaces_raise_naming_agent_space_and_fix(AgentCls, space, match):
    spaces = EnvSpaces(observation=FloatBox(-1, 1, shape=OBS_SHAPE), action=space)
    with pytest.raises(ValueError, match=match) as info:
        AgentCls(**SMALL).initialize(spaces)
    assert AgentCls.__name__ in str(info.value)


@pytest.mark.parametrize(
    ("AgentCls", "kwargs", "match"),
    [
        (DdpgAgent, dict(action_std=-0.1), "action_std"),
        (DdpgAgent, dict(action_noise_clip=0), "action_noise_clip"),
        (Td3Agent, dict(target_noise_clip=-1), "target_noise_clip"),
        (Td3Agent, dict(pretrain_std="big"), "pretrain_std"),
        (SacAgent, dict(action_squash=0), "action_squash"),
        (SacVAgent, dict(pretrain_std=float("nan")), "pretrain_std"),
    ],
)
def test_constructor_numbers_are_checked(AgentCls, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=f"{AgentCls.__name__}: {match}="):
        AgentCls(**kwargs)


def test_defaults_and_a_users_output_max():
    assert DdpgAgent().model_kwargs == dict(hidden_sizes=[400, 300])
    assert DdpgAgent().q_model_kwargs == dict(hidden_sizes=[400, 300])
    sac = SacAgent(v_model_kwargs=None)
    assert sac.model_kwargs == sac.q_model_kwargs == dict(hidden_sizes=[256, 256])
    with pytest.warns(UserWarning, match="output_max=3"):  # rlpyt's to set; h = 2 here
        agent = make_agent(DdpgAgent, model_kwargs=dict(hidden_sizes=[4], output_max=3))
    assert agent.model(100 * torch.randn(50, *OBS_SHAPE), None, None).abs().max() > 2.5


# -- with samplers ----------------------------------------------------------------------------


def pendulum_actions(AgentCls, SamplerCls=SerialSampler, seed=11, n_itr=2):
    torch.manual_seed(0)  # the same initial parameters every time
    agent = AgentCls(**SMALL)
    kwargs = {} if SamplerCls is SerialSampler else dict(start_method="fork")
    sampler = SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="Pendulum-v1"),
        batch_T=5,
        batch_B=4,
        max_decorrelation_steps=0,
        **kwargs,
    )
    affinity = (
        None if SamplerCls is SerialSampler else dict(workers_cpus=[0, 1], set_affinity=False)
    )
    sampler.initialize(agent, affinity=affinity, seed=seed)
    if hasattr(agent, "give_min_itr_learn"):
        agent.give_min_itr_learn(1)  # after the workers started, as the algorithms do
    actions = []
    try:
        for itr in range(n_itr):
            agent.sample_mode(itr)
            samples, _ = sampler.obtain_samples(itr)
            actions.append(samples.agent.action.clone())
    finally:
        sampler.shutdown()
    if SamplerCls is SerialSampler:  # (CPU workers wrap their own copies)
        assert isinstance(agent.distribution, SamplingNoise)
    return torch.stack(actions), samples


@pytest.mark.parametrize("AgentCls", AGENTS, ids=AGENT_IDS)
def test_agents_sample_pendulum_reproducibly_with_sampling_noise(AgentCls):
    actions, samples = pendulum_actions(AgentCls)
    assert actions.shape == (2, 5, 4, 1) and actions.abs().max() <= 2.0
    assert actions.std() > 0.05  # exploring
    info = samples.agent.agent_info
    recorded = info.mu if AgentCls in (DdpgAgent, Td3Agent) else info.dist_info.mean
    assert recorded.shape == (5, 4, 1) and not torch.isnan(recorded).any()
    again, _ = pendulum_actions(AgentCls)
    assert torch.equal(actions, again)
    other, _ = pendulum_actions(AgentCls, seed=12)
    assert not torch.equal(actions, other)


@pytest.mark.parametrize("AgentCls", [Td3Agent, SacAgent])
def test_cpu_workers_match_serial_and_see_min_itr_learn_given_after_start(AgentCls):
    serial, _ = pendulum_actions(AgentCls)
    parallel, _ = pendulum_actions(AgentCls, CpuSampler)
    # The same noise; the MLP forward over 2 envs per worker instead of 4 may round the last
    # bit differently. Workers that missed min_itr_learn = 1 would explore with action_std at
    # itr 0 instead of pretrain_std (5 times larger for TD3), far outside this tolerance.
    torch.testing.assert_close(serial, parallel, rtol=0, atol=1e-5)


# -- data parallel and devices ----------------------------------------------------------------


@pytest.mark.parametrize("AgentCls", [Td3Agent, SacVAgent])
def test_data_parallel_wraps_every_trained_model(AgentCls, gloo_world_of_one):
    agent = make_agent(AgentCls)
    plain = agent.state_dict()
    assert agent.data_parallel() is None
    ddp = torch.nn.parallel.DistributedDataParallel
    for name in NAMES[AgentCls]:
        assert isinstance(getattr(agent, name), ddp) is (name in agent.trained_names)
    state = agent.state_dict()
    assert all(set(state[n]) == set(plain[n]) for n in NAMES[AgentCls])  # no "module." prefix
    inputs = continuous_inputs(mujoco_spaces(), (4,))
    q1, _ = agent.q(*inputs, torch.zeros(4, ACTION_SIZE))
    q1.sum().backward()
    agent.update_target(0.5)
    agent.load_state_dict(state)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("AgentCls", AGENTS, ids=AGENT_IDS)
def test_gpu_agent_moves_every_model_and_keeps_the_shared_policy_on_cpu(AgentCls):
    agent = AgentCls(**SMALL)
    agent.initialize(mujoco_spaces(), share_memory=True)
    agent.to_device(0)
    for name in NAMES[AgentCls]:
        assert next(getattr(agent, name).parameters()).is_cuda
    assert not next(agent.shared_model.parameters()).is_cuda
    inputs = continuous_inputs(mujoco_spaces(), (4,))
    agent.sample_mode(0)
    step = agent.step(*inputs)
    assert step.action.device.type == "cpu"
    if AgentCls in (SacAgent, SacVAgent):
        action, log_pi, _ = agent.pi(*inputs)
        assert action.is_cuda and log_pi.is_cuda
    else:
        assert agent.target_q_at_mu(*inputs)[0].is_cuda
    perturb(agent.model, 3)
    agent.sync_shared_memory()
    for key, value in agent.shared_model.state_dict().items():
        assert torch.equal(value, agent.model.state_dict()[key].cpu())
    assert math.isfinite(float(agent.q(*inputs, step.action)[0].sum()))
