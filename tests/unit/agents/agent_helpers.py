"""Tiny env spaces and inputs for agent tests (agents initialize from spaces alone)."""

import torch

from rlpyt.envs.base import EnvSpaces
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.int_box import IntBox

N_ACTIONS = 3
OBS_SHAPE = (5,)
IMAGE_SHAPE = (2, 36, 28)  # small enough for fast convs, big enough for the 8/4, 4/2 trunk
ACTION_SIZE = 2


def classic_spaces():
    return EnvSpaces(observation=FloatBox(-1, 1, shape=OBS_SHAPE), action=IntBox(0, N_ACTIONS))


def atari_spaces():
    return EnvSpaces(
        observation=IntBox(0, 256, shape=IMAGE_SHAPE, dtype="uint8"),
        action=IntBox(0, N_ACTIONS),
    )


def mujoco_spaces(low=-2.0, high=2.0, shape=(ACTION_SIZE,)):
    return EnvSpaces(
        observation=FloatBox(-10, 10, shape=OBS_SHAPE), action=FloatBox(low, high, shape=shape)
    )


def discrete_inputs(spaces, lead):
    """(observation, prev_action, prev_reward) CPU tensors with leading dims ``lead``."""
    obs_space = spaces.observation
    if obs_space.dtype.kind == "u":
        observation = torch.randint(0, 256, lead + obs_space.shape, dtype=torch.uint8)
    else:
        observation = torch.randn(lead + obs_space.shape)
    prev_action = torch.randint(0, N_ACTIONS, lead, dtype=torch.int32)
    return observation, prev_action, torch.randn(lead)


def continuous_inputs(spaces, lead):
    observation = torch.randn(lead + spaces.observation.shape)
    return observation, torch.randn(lead + spaces.action.shape), torch.randn(lead)


def sampler_process(agent, go, results):
    """Async sampler side in a child process: own model, then receive once sent weights."""
    torch.set_num_threads(1)
    agent.async_cpu(share_memory=False)
    results.put(("ready", agent._recv_count, agent.model.hidden_weights[0].sum().item()))
    if go.wait(timeout=60):
        agent.recv_shared_memory()
        results.put(("received", agent._recv_count, agent.model.hidden_weights[0].sum().item()))
