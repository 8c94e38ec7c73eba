"""Deep-Q agents: epsilon schedule, per-env epsilons, target model, state dicts, samplers."""

import copy
import math

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.atari.atari_catdqn_agent import AtariCatDqnAgent
from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.agents.dqn.catdqn_agent import CatDqnAgent
from rlpyt.agents.dqn.classic import ClassicCatDqnAgent, ClassicDqnAgent
from rlpyt.agents.dqn.dqn_agent import DqnAgent
from rlpyt.distributions.epsilon_greedy import CategoricalEpsilonGreedy, EpsilonGreedy
from rlpyt.envs.atari.atari_env import AtariEnv
from rlpyt.envs.gym import make as gym_make
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from tests.unit.agents.agent_helpers import (
    N_ACTIONS,
    atari_spaces,
    classic_spaces,
    discrete_inputs,
    mujoco_spaces,
)

TWO_WORKERS = dict(workers_cpus=[0, 1], set_affinity=False)
AGENTS = [
    (ClassicDqnAgent, classic_spaces, "q", ()),
    (ClassicCatDqnAgent, classic_spaces, "p", (5,)),
    (AtariDqnAgent, atari_spaces, "q", ()),
    (AtariCatDqnAgent, atari_spaces, "p", (5,)),
]


def make_agent(AgentCls, spaces, **kwargs):
    model_kwargs = dict(fc_sizes=8) if spaces is atari_spaces else dict(hidden_sizes=[8])
    if issubclass(AgentCls, CatDqnAgent):
        kwargs.setdefault("n_atoms", 5)
    agent = AgentCls(model_kwargs=model_kwargs, **kwargs)
    agent.initialize(spaces())
    return agent


# -- forward passes ---------------------------------------------------------------------------


class _RecordingQModel(torch.nn.Module):
    """Q-values of zeros; records the ``prev_action`` it is given."""

    def __init__(self, observation_shape, output_size):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(output_size))
        self.seen = []

    def forward(self, observation, prev_action, prev_reward):
        self.seen.append(prev_action)
        return self.bias.expand(*observation.shape[:-1], -1)


class _IgnoringRecordingQModel(_RecordingQModel):
    uses_prev_action = False


@pytest.mark.parametrize("ModelCls", [_RecordingQModel, _IgnoringRecordingQModel])
def test_dqn_agent_one_hots_prev_action_unless_the_model_ignores_it(ModelCls):
    agent = ClassicDqnAgent(ModelCls=ModelCls)
    agent.initialize(classic_spaces())
    agent.sample_mode(0)
    prev_action = torch.tensor([2, 0, 1])
    inputs = (torch.zeros(3, 5), prev_action, torch.zeros(3))
    agent.step(*inputs)
    agent(*inputs)
    agent.target(*inputs)
    seen = agent.model.seen + agent.target_model.seen
    assert len(seen) == 3
    one_hot = torch.eye(N_ACTIONS)[prev_action]
    expected = prev_action if ModelCls is _IgnoringRecordingQModel else one_hot
    for value in seen:
        assert torch.equal(value, expected)


def test_builtin_dqn_models_ignore_prev_action():
    for AgentCls, spaces, _field, _atoms in AGENTS:
        assert make_agent(AgentCls, spaces).model.uses_prev_action is False


@pytest.mark.parametrize("lead", [(), (4,), (3, 2)], ids=str)
@pytest.mark.parametrize(("AgentCls", "spaces", "field", "atoms"), AGENTS)
def test_step_call_and_target_shapes(AgentCls, spaces, field, atoms, lead):
    agent = make_agent(AgentCls, spaces)
    agent.sample_mode(0)
    inputs = discrete_inputs(spaces(), lead)
    step = agent.step(*inputs)
    assert step.action.shape == lead and step.action.dtype == torch.long
    assert step.agent_info._fields == (field,)
    assert getattr(step.agent_info, field).shape == lead + (N_ACTIONS, *atoms)
    out = agent(*inputs)
    assert out.requires_grad and out.shape == lead + (N_ACTIONS, *atoms)
    target = agent.target(*inputs)
    assert not target.requires_grad
    torch.testing.assert_close(target, out.detach())  # the target starts as a copy


def test_greedy_step_takes_the_argmax_and_parameters_are_the_model_only():
    agent = make_agent(ClassicDqnAgent, classic_spaces, eps_init=0, eps_final=0)
    agent.sample_mode(0)
    step = agent.step(*discrete_inputs(classic_spaces(), (64,)))
    assert torch.equal(step.action, step.agent_info.q.argmax(-1))
    assert {id(p) for p in agent.parameters()} == {id(p) for p in agent.model.parameters()}


def test_categorical_agent_acts_on_expected_values_of_its_support():
    agent = make_agent(ClassicCatDqnAgent, classic_spaces, eps_init=0, eps_final=0)
    agent.give_V_min_max(-3.0, 7.0)
    assert (agent.V_min, agent.V_max) == (-3.0, 7.0)
    torch.testing.assert_close(agent.distribution.z, torch.linspace(-3, 7, 5))
    agent.sample_mode(0)
    step = agent.step(*discrete_inputs(classic_spaces(), (32,)))
    q = (step.agent_info.p * torch.linspace(-3, 7, 5)).sum(-1)
    assert torch.equal(step.action, q.argmax(-1))
    with pytest.raises(ValueError, match="greater than V_min"):
        agent.give_V_min_max(1.0, 1.0)


def test_n_atoms_goes_to_the_model_and_a_clash_warns_and_keeps_the_agents():
    agent = CatDqnAgent(n_atoms=11)
    assert agent.model_kwargs == {"n_atoms": 11}
    assert CatDqnAgent(model_kwargs=dict(n_atoms=11), n_atoms=11).model_kwargs["n_atoms"] == 11
    with pytest.warns(UserWarning, match="n_atoms=7 differs"):  # rlpyt replaced it silently
        clashing = CatDqnAgent(model_kwargs=dict(n_atoms=7), n_atoms=11)
    assert clashing.model_kwargs["n_atoms"] == 11 and clashing.n_atoms == 11


def test_distributions():
    assert type(make_agent(ClassicDqnAgent, classic_spaces).distribution) is EpsilonGreedy
    cat = make_agent(ClassicCatDqnAgent, classic_spaces).distribution
    assert isinstance(cat, CategoricalEpsilonGreedy) and cat.dim == N_ACTIONS


def test_continuous_actions_are_rejected_with_a_clear_error():
    with pytest.raises(ValueError, match="ClassicDqnAgent: this agent needs a Discrete"):
        ClassicDqnAgent().initialize(mujoco_spaces())


def test_constructor_checks_epsilons():
    with pytest.raises(ValueError, match="eps_final=1.5"):
        DqnAgent(eps_final=1.5)
    with pytest.raises(ValueError, match="eps_final_min=0.1"):
        DqnAgent(eps_final=0.01, eps_final_min=0.1)
    with pytest.raises(ValueError, match="eps_itr_max=3"):
        DqnAgent(eps_itr_min=5, eps_itr_max=3)


# -- epsilon schedule -------------------------------------------------------------------------


def test_sample_epsilon_ramps_linearly_between_itr_min_and_max():
    agent = make_agent(ClassicDqnAgent, classic_spaces, eps_init=1.0, eps_final=0.1)
    agent.set_epsilon_itr_min_max(10, 20)
    assert (agent.eps_itr_min, agent.eps_itr_max) == (10, 20)
    for itr in [0, 5, 10, 12, 15, 19, 20, 100]:
        agent.sample_mode(itr)
        frac = min(max((itr - 10) / 10, 0.0), 1.0)
        want = 1.0 + frac * (0.1 - 1.0)
        assert agent.epsilon == pytest.approx(want)
        assert agent.distribution.epsilon == pytest.approx(want)
        assert agent.mode == "sample"


def test_eval_epsilon_is_random_at_itr_zero_then_eps_eval():
    agent = make_agent(ClassicDqnAgent, classic_spaces, eps_eval=0.05)
    agent.eval_mode(0)
    assert agent.epsilon == 1.0 and agent.mode == "eval"
    agent.eval_mode(3)
    assert agent.distribution.epsilon == 0.05
    agent.sample_mode(3)  # back to the schedule
    assert agent.epsilon == 1.0


def test_defaults_are_rlpyts():
    agent = DqnAgent()
    assert (agent.eps_init, agent.eps_final, agent.eps_final_min, agent.eps_eval) == (
        1,
        0.01,
        None,
        0.001,
    )
    assert (agent.eps_itr_min, agent.eps_itr_max) == (50, 1000)
    assert CatDqnAgent().n_atoms == 51


def test_vector_epsilon_is_log_spaced_over_global_envs_and_sliced_by_env_ranks():
    kwargs = dict(eps_init=1.0, eps_final=0.1, eps_final_min=0.001)
    global_B = 6
    finals = 10 ** np.linspace(math.log10(0.001), math.log10(0.1), global_B)
    parts = []
    for ranks in ([0, 1, 2], [3, 4, 5]):
        agent = make_agent(ClassicDqnAgent, classic_spaces, **kwargs)
        agent.set_epsilon_itr_min_max(0, 4)
        agent.collector_initialize(global_B=global_B, env_ranks=ranks)
        agent.sample_mode(0)
        torch.testing.assert_close(agent.epsilon, torch.ones(3))
        agent.sample_mode(2)  # halfway
        torch.testing.assert_close(
            agent.epsilon, torch.tensor(0.5 + 0.5 * finals[ranks], dtype=torch.float32)
        )
        agent.sample_mode(4)
        parts.append(agent.epsilon)
        agent.eval_mode(4)
        assert agent.epsilon == agent.eps_eval  # evaluation: one scalar
    torch.testing.assert_close(torch.cat(parts), torch.tensor(finals, dtype=torch.float32))
    step = agent.step(*discrete_inputs(classic_spaces(), (3,)))  # [3] epsilon fits B=3
    assert step.action.shape == (3,)


def test_initialize_with_env_ranks_makes_the_vector_too():
    agent = ClassicDqnAgent(eps_final_min=0.001, model_kwargs=dict(hidden_sizes=[4]))
    agent.initialize(classic_spaces(), global_B=4, env_ranks=[2, 3])
    agent.sample_mode(10_000)
    finals = np.logspace(-3, -2, 4)[[2, 3]]
    torch.testing.assert_close(agent.epsilon, torch.tensor(finals, dtype=torch.float32))


def test_alternating_agents_share_epsilons_between_the_two_groups():
    agent = ClassicDqnAgent(eps_final_min=0.001, model_kwargs=dict(hidden_sizes=[4]))
    agent.alternating = True  # as the alternating samplers set it
    agent.initialize(classic_spaces(), global_B=8, env_ranks=list(range(8)))
    agent.sample_mode(10_000)
    # Envs j and 4 + j (one per group, stepped in turns) share finals[j] of 4 values.
    torch.testing.assert_close(
        agent.epsilon, torch.tensor(np.logspace(-3, -2, 4), dtype=torch.float32)
    )
    with pytest.raises(ValueError, match="even number of envs"):
        agent.collector_initialize(global_B=5, env_ranks=list(range(5)))


# -- target model and state dicts -------------------------------------------------------------


def perturb(model, seed):
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for param in model.parameters():
            param.add_(torch.randn(param.shape, generator=generator).to(param.device))


def test_update_target_hard_and_polyak_against_naive_maths():
    agent = make_agent(ClassicDqnAgent, classic_spaces)
    perturb(agent.model, 1)
    online = {k: v.clone() for k, v in agent.model.state_dict().items()}
    before = {k: v.clone() for k, v in agent.target_model.state_dict().items()}
    agent.update_target(tau=0.25)
    for key, value in agent.target_model.state_dict().items():
        torch.testing.assert_close(value, 0.25 * online[key] + 0.75 * before[key])
    agent.update_target()
    for key, value in agent.target_model.state_dict().items():
        assert torch.equal(value, online[key])
    assert agent.target_model is not agent.model


def test_state_dict_round_trip_includes_the_target():
    agent = make_agent(ClassicCatDqnAgent, classic_spaces)
    perturb(agent.model, 2)  # model and target now differ
    state = agent.state_dict()
    assert set(state) == {"model", "target"}
    fresh = make_agent(ClassicCatDqnAgent, classic_spaces)
    fresh.load_state_dict(copy.deepcopy(state))
    for name in ("model", "target"):
        for key, value in fresh.state_dict()[name].items():
            assert torch.equal(value, state[name][key]), (name, key)
    inputs = discrete_inputs(classic_spaces(), (4,))
    torch.testing.assert_close(fresh.target(*inputs), agent.target(*inputs))


def test_flat_model_state_dict_loads_with_target_as_copy():
    agent = make_agent(ClassicDqnAgent, classic_spaces)
    flat = make_agent(ClassicDqnAgent, classic_spaces).model.state_dict()
    agent.load_state_dict(flat)
    for key, value in flat.items():
        assert torch.equal(agent.model.state_dict()[key], value)
        assert torch.equal(agent.target_model.state_dict()[key], value)


@pytest.mark.parametrize("form", ["agent", "flat"])
def test_initial_model_state_dict_in_either_form(form):
    source = make_agent(ClassicDqnAgent, classic_spaces)
    perturb(source.model, 3)
    state = source.state_dict() if form == "agent" else source.model.state_dict()
    agent = ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[8]), initial_model_state_dict=state)
    agent.initialize(classic_spaces())
    want_target = source.target_model if form == "agent" else source.model
    for key, value in agent.target_model.state_dict().items():
        assert torch.equal(value, want_target.state_dict()[key])
    for key, value in agent.model.state_dict().items():
        assert torch.equal(value, source.model.state_dict()[key])


def test_sync_shared_memory_copies_the_model_not_the_target():
    agent = ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(classic_spaces(), share_memory=True)
    agent.model = copy.deepcopy(agent.shared_model)  # a separate training copy (as on a GPU)
    perturb(agent.model, 4)
    agent.sync_shared_memory()
    for key, value in agent.shared_model.state_dict().items():
        assert torch.equal(value, agent.model.state_dict()[key])


# -- with samplers ----------------------------------------------------------------------------


def cartpole_sampler(SamplerCls, batch_B=4, **kwargs):
    return SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=8,
        batch_B=batch_B,
        max_decorrelation_steps=0,
        **kwargs,
    )


@pytest.mark.parametrize(
    ("SamplerCls", "affinity"),
    [
        (SerialSampler, None),
        (CpuSampler, TWO_WORKERS),
        (GpuSampler, TWO_WORKERS),
        (AlternatingSampler, dict(TWO_WORKERS, alternating=True)),
    ],
    ids=["serial", "cpu", "gpu", "alternating"],
)
@pytest.mark.parametrize("AgentCls", [ClassicDqnAgent, ClassicCatDqnAgent])
def test_agents_sample_cartpole_with_every_sampler(AgentCls, SamplerCls, affinity):
    agent = AgentCls(model_kwargs=dict(hidden_sizes=[16]), eps_final_min=0.001)
    sampler = cartpole_sampler(SamplerCls)
    sampler.initialize(agent, affinity=affinity, seed=3)
    try:
        for itr in range(2):
            agent.sample_mode(itr)
            samples, _ = sampler.obtain_samples(itr)
    finally:
        sampler.shutdown()
    actions = samples.agent.action
    assert actions.shape == (8, 4) and ((actions == 0) | (actions == 1)).all()
    info = samples.agent.agent_info
    assert not torch.isnan(info.p if AgentCls is ClassicCatDqnAgent else info.q).any()
    if AgentCls is ClassicCatDqnAgent:
        torch.testing.assert_close(info.p.sum(-1), torch.ones(8, 4, 2))


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_cpu_workers_see_a_schedule_set_after_they_started(start_method):
    agent = ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[16]), eps_init=1.0, eps_final=0.0)
    sampler = cartpole_sampler(CpuSampler, batch_B=4, start_method=start_method)
    sampler.initialize(agent, affinity=TWO_WORKERS, seed=4)
    try:
        agent.sample_mode(1)
        random_samples, _ = sampler.obtain_samples(1)  # itr 1 <= eps_itr_min=50: epsilon 1
        random_greedy = random_samples.agent.action == random_samples.agent.agent_info.q.argmax(-1)
        random_share = random_greedy.float().mean().item()
        agent.set_epsilon_itr_min_max(0, 1)  # as the algorithm does, after the workers start
        agent.sample_mode(1)
        samples, _ = sampler.obtain_samples(1)  # now itr 1 >= eps_itr_max: epsilon 0
    finally:
        sampler.shutdown()
    assert random_share < 0.9  # random actions disagree with the greedy ones
    assert torch.equal(samples.agent.action, samples.agent.agent_info.q.argmax(-1))


def dqn_actions(SamplerCls, n_itr=3):
    torch.manual_seed(0)  # the same initial parameters for both samplers
    agent = ClassicDqnAgent(
        model_kwargs=dict(hidden_sizes=[16]), eps_init=0.9, eps_final=0.3, eps_final_min=0.01
    )
    kwargs = {} if SamplerCls is SerialSampler else dict(start_method="fork")
    sampler = SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=16,
        batch_B=8,
        max_decorrelation_steps=10,
        **kwargs,
    )
    affinity = None if SamplerCls is SerialSampler else TWO_WORKERS
    sampler.initialize(agent, affinity=affinity, seed=7)
    agent.set_epsilon_itr_min_max(0, n_itr - 1)
    batches = []
    try:
        for itr in range(n_itr):
            agent.sample_mode(itr)
            samples, _ = sampler.obtain_samples(itr)
            batches.append((samples.agent.action.clone(), samples.env.observation.clone()))
    finally:
        sampler.shutdown()
    return batches


def test_serial_and_cpu_samplers_give_identical_dqn_actions():
    serial = dqn_actions(SerialSampler)
    parallel = dqn_actions(CpuSampler)
    for (serial_action, serial_obs), (action, obs) in zip(serial, parallel, strict=True):
        assert torch.equal(serial_action, action)
        assert torch.equal(serial_obs, obs)
    explored = torch.cat([a for a, _ in serial])
    assert 0 < (explored == 0).float().mean() < 1  # both actions occur


def test_atari_dqn_agent_steps_pong():
    env = AtariEnv(game="pong")
    try:
        agent = AtariDqnAgent()
        agent.initialize(env.spaces)
        agent.eval_mode(1)
        observation = torch.from_numpy(env.reset())
        step = agent.step(observation, torch.tensor(0), torch.tensor(0.0))
    finally:
        env.close()
    assert step.action.shape == () and 0 <= int(step.action) < env.action_space.n
    assert step.agent_info.q.shape == (env.action_space.n,)
    assert agent.model.conv.conv[0].in_channels == env.observation_space.shape[0]


# -- data parallel and devices ----------------------------------------------------------------


def test_data_parallel_wraps_only_the_online_model(gloo_world_of_one):
    agent = make_agent(ClassicDqnAgent, classic_spaces)
    plain = agent.state_dict()
    assert agent.data_parallel() is None
    assert isinstance(agent.model, torch.nn.parallel.DistributedDataParallel)
    assert not isinstance(agent.target_model, torch.nn.parallel.DistributedDataParallel)
    state = agent.state_dict()
    assert set(state["model"]) == set(plain["model"])  # no "module." prefix
    perturb(agent.bare_model, 5)
    agent.update_target()
    for key, value in agent.target_model.state_dict().items():
        assert torch.equal(value, agent.bare_model.state_dict()[key])
    agent.load_state_dict(state)
    assert agent(*discrete_inputs(classic_spaces(), (2,))).shape == (2, N_ACTIONS)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_gpu_agent_moves_model_and_target_and_syncs_the_shared_model():
    agent = ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(classic_spaces(), share_memory=True)
    agent.to_device(0)
    assert next(agent.model.parameters()).is_cuda and next(agent.target_model.parameters()).is_cuda
    assert not next(agent.shared_model.parameters()).is_cuda
    inputs = discrete_inputs(classic_spaces(), (4,))
    step = agent.step(*inputs)
    assert step.action.device.type == "cpu" and step.agent_info.q.device.type == "cpu"
    assert agent(*inputs).is_cuda and agent.target(*inputs).is_cuda
    perturb(agent.model, 6)
    agent.sync_shared_memory()
    for key, value in agent.state_dict()["model"].items():
        assert torch.equal(value.cpu(), agent.shared_model.state_dict()[key])
