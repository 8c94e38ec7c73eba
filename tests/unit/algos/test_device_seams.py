"""Every algorithm trains with its agent on a (fake) CUDA device: no host tensor reaches the loss.

The runners train on ``affinity["cuda_idx"]``; CI has no GPU, so these runs go through
``tests.fake_cuda.FakeCuda``, which makes the CPU behave as a second device and fails any op
that mixes host and device tensors, as CUDA does. Each family trains for a few iterations from
the serial sampler (and the families that have one, from the GPU sampler, whose master runs the
batched forward on the device), takes real gradient steps, and must log finite losses with its
trained models on the device and its sampler-side outputs on the host.
"""

from __future__ import annotations

import math

import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicCatDqnAgent, ClassicDqnAgent, ClassicR2d1Agent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.agents.qpg.sac_v_agent import SacAgent as SacVAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.algos.dqn.cat_dqn import CategoricalDQN
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from rlpyt.algos.qpg.ddpg import DDPG
from rlpyt.algos.qpg.sac import SAC
from rlpyt.algos.qpg.sac_v import SAC_V
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger
from tests.fake_cuda import FakeCuda, on_fake_cuda

T, B, N_ITR = 8, 2, 6
SMALL = dict(hidden_sizes=[16])
REPLAY = dict(batch_size=16, min_steps_learn=2 * T * B, replay_size=500, replay_ratio=8)
DQN_ALGO = dict(REPLAY, target_update_interval=3, eps_steps=50)
QPG_AGENT = dict(model_kwargs=SMALL, q_model_kwargs=SMALL)
R2D1_ALGO = dict(
    min_steps_learn=2 * T * B,
    replay_size=500,
    replay_ratio=8,
    target_update_interval=3,
    eps_steps=50,
    batch_T=8,
    batch_B=4,
    warmup_T=2,
    store_rnn_state_interval=4,
    n_step_return=2,
    prioritized_replay=True,
)
R2D1_MODEL = dict(hidden_sizes=[16], lstm_size=8, head_size=16)

# family -> (env id, algorithm, agent, the OptInfo field that holds its loss)
FAMILIES = {
    "a2c": ("CartPole-v1", A2C, ClassicFfAgent, "loss"),
    "ppo": ("CartPole-v1", lambda: PPO(minibatches=2), ClassicFfAgent, "loss"),
    "ppo_lstm": ("CartPole-v1", lambda: PPO(minibatches=1), ClassicLstmAgent, "loss"),
    "dqn": (
        "CartPole-v1",
        lambda: DQN(**DQN_ALGO),
        lambda: ClassicDqnAgent(model_kwargs=SMALL),
        "loss",
    ),
    "dqn_prioritized_double": (
        "CartPole-v1",
        lambda: DQN(**DQN_ALGO, prioritized_replay=True, double_dqn=True),
        lambda: ClassicDqnAgent(model_kwargs=SMALL),
        "loss",
    ),
    "catdqn": (
        "CartPole-v1",
        lambda: CategoricalDQN(**DQN_ALGO, double_dqn=True),
        lambda: ClassicCatDqnAgent(model_kwargs=SMALL),
        "loss",
    ),
    "r2d1": (
        "CartPole-v1",
        lambda: R2D1(**R2D1_ALGO),
        lambda: ClassicR2d1Agent(model_kwargs=R2D1_MODEL),
        "loss",
    ),
    "ddpg": ("Pendulum-v1", lambda: DDPG(**REPLAY), lambda: DdpgAgent(**QPG_AGENT), "qLoss"),
    "td3": ("Pendulum-v1", lambda: TD3(**REPLAY), lambda: Td3Agent(**QPG_AGENT), "qLoss"),
    "sac": ("Pendulum-v1", lambda: SAC(**REPLAY), lambda: SacAgent(**QPG_AGENT), "q1Loss"),
    "sac_v": (
        "Pendulum-v1",
        lambda: SAC_V(**REPLAY),
        lambda: SacVAgent(**QPG_AGENT, v_model_kwargs=SMALL),
        "vLoss",
    ),
}


@pytest.fixture(autouse=True)
def quiet_logger():
    logger.disable()
    yield
    logger.enable()


def train_on_cuda(
    family: str, sampler: str = "serial", fake: bool = True
) -> tuple[MinibatchRl, list[dict]]:
    env_id, make_algo, make_agent, _ = FAMILIES[family]
    env_kwargs = dict(id=env_id, max_episode_steps=20)
    if sampler == "serial":
        sampler_obj = SerialSampler(EnvCls=gym_make, env_kwargs=env_kwargs, batch_T=T, batch_B=B)
        affinity = dict(cuda_idx=0)
    else:
        sampler_obj = GpuSampler(
            EnvCls=gym_make,
            env_kwargs=env_kwargs,
            batch_T=T,
            batch_B=B,
            CollectorCls=GpuResetCollector,
        )
        affinity = dict(cuda_idx=0, workers_cpus=[0, 1], set_affinity=False)
    runner = MinibatchRl(
        algo=make_algo(),
        agent=make_agent(),
        sampler=sampler_obj,
        n_steps=N_ITR * T * B,
        log_interval_steps=2 * T * B,
        affinity=affinity,
        seed=1,
    )
    if not fake:  # a real GPU (the gpu-marked test below)
        return runner, list(runner.iter_train())
    with FakeCuda():
        rows = list(runner.iter_train())
    return runner, rows


def trained_modules(agent) -> dict[str, torch.nn.Module]:
    return {
        name: module
        for name, module in vars(agent).items()
        if isinstance(module, torch.nn.Module) and name != "shared_model"
    }


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_trains_with_its_agent_on_the_device(family):
    runner, rows = train_on_cuda(family)
    assert runner.agent.device == torch.device("cuda", 0)
    for name, module in trained_modules(runner.agent).items():
        assert all(on_fake_cuda(p) for p in module.parameters()), name
    loss_key = f"{FAMILIES[family][3]}Average"
    losses = [row[loss_key] for row in rows if not math.isnan(row[loss_key])]
    assert losses and all(math.isfinite(x) for x in losses), (loss_key, rows[-1])
    assert runner.algo.update_counter > 0


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_trains_on_a_real_gpu(family):
    runner, rows = train_on_cuda(family, fake=False)
    for name, module in trained_modules(runner.agent).items():
        assert all(p.is_cuda for p in module.parameters()), name
    loss_key = f"{FAMILIES[family][3]}Average"
    losses = [row[loss_key] for row in rows if not math.isnan(row[loss_key])]
    assert losses and all(math.isfinite(x) for x in losses), (loss_key, rows[-1])


@pytest.mark.parametrize("family", ["ppo", "dqn", "sac"])
def test_gpu_sampler_serves_actions_from_the_device(family):
    runner, rows = train_on_cuda(family, sampler="gpu")
    loss_key = f"{FAMILIES[family][3]}Average"
    assert any(math.isfinite(row[loss_key]) for row in rows)


def test_fake_cuda_fails_an_op_that_mixes_host_and_device_tensors():
    with FakeCuda():
        on_device = torch.ones(3).to("cuda:0")
        assert on_device.device == torch.device("cuda", 0) and on_device.is_cuda
        assert on_fake_cuda(on_device + 1) and not on_fake_cuda(on_device.cpu())
        with pytest.raises(RuntimeError, match="same device"):
            on_device + torch.ones(3)
        with pytest.raises(RuntimeError, match="same device"):
            on_device.gather(0, torch.zeros(2, dtype=torch.long))
        with pytest.raises(TypeError, match="numpy"):
            on_device.numpy()
        # What CUDA allows: host scalars, host indexes into device tensors, copies across.
        assert on_fake_cuda(on_device * torch.tensor(2.0))
        assert on_fake_cuda(on_device[torch.tensor([0, 2])])
        host = torch.zeros(3)
        host.copy_(on_device)
        assert host.sum().item() == 3.0 and not on_fake_cuda(host)
        zeros = torch.zeros(2, device=on_device.device)
        assert on_fake_cuda(zeros)


def test_fake_cuda_moves_a_module_and_marks_its_gradients():
    model = torch.nn.Linear(3, 2)
    with FakeCuda():
        model.to(torch.device("cuda", 0))
        assert all(on_fake_cuda(p) for p in model.parameters())
        with pytest.raises(RuntimeError, match="same device"):
            model(torch.ones(4, 3))
        model(torch.ones(4, 3).cuda()).sum().backward()
        assert all(on_fake_cuda(p.grad) for p in model.parameters())
        torch.optim.Adam(model.parameters()).step()
