"""Allocation of the samples buffer from one example step of the env and the agent.

Box: Sampler. Every sampler calls :func:`build_samples_buffer` once in ``initialize`` (GPU
samplers also :func:`build_step_buffer`); collectors then write into the arrays in place.
Invariant: one allocation per run; the torch views share memory with the numpy arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rlpyt.agents.base import AgentInputs
from rlpyt.samplers.collections import (
    AgentSamples,
    AgentSamplesBsv,
    AgentSamplesBsvTv,
    BatchSpec,
    EnvSamples,
    Samples,
    StepBuffer,
)
from rlpyt.utils.buffer import buffer_from_example, torchify_buffer
from rlpyt.utils.collections import AttrDict

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent


def get_example_outputs(agent: Agent, env: Env, examples: dict | None = None) -> AttrDict:
    """One reset, one random env step and one agent step, to learn every field's shape/dtype.

    Runs in the calling process, with no Manager subprocess (one hangs with some simulators).
    The env is left mid-episode: pass a throwaway env, or reset it after.

    Returns:
        AttrDict with observation, reward (float32), done, env_info, action, agent_info.
    """
    examples = AttrDict() if examples is None else AttrDict(examples)
    observation = env.reset()
    action = env.action_space.sample()
    observation, reward, done, env_info = env.step(action)
    reward = np.asarray(reward, dtype="float32")
    agent.reset()
    agent_inputs = torchify_buffer(AgentInputs(observation, action, reward))
    agent_action, agent_info = agent.step(*agent_inputs)
    if "prev_rnn_state" in agent_info:
        # The state is recorded transposed, [B, N, H]; one example drops the B dim.
        agent_info = agent_info._replace(prev_rnn_state=agent_info.prev_rnn_state[0])
    agent.reset()
    examples.observation = observation
    examples.reward = reward
    examples.done = np.asarray(done, dtype=bool)
    examples.env_info = env_info
    examples.action = agent_action.numpy() if hasattr(agent_action, "numpy") else agent_action
    examples.agent_info = agent_info
    return examples


def build_samples_buffer(
    agent: Agent,
    env: Env,
    batch_spec: BatchSpec,
    bootstrap_value: bool = False,
    agent_shared: bool = True,
    env_shared: bool = True,
    subprocess: bool = False,
    examples: dict | None = None,
) -> tuple[Samples, Samples, AttrDict]:
    """Allocate the ``[T, B]`` samples buffer (numpy, optionally shared) and its torch view.

    Args:
        agent: Initialized agent (used for one example step).
        env: A throwaway env instance (stepped once).
        batch_spec: ``BatchSpec(T, B)``.
        bootstrap_value: Add ``agent.bootstrap_value [1, B]`` (policy gradients).
        agent_shared: Put the agent fields in shared memory.
        env_shared: Put the env fields in shared memory.
        subprocess: Accepted for rlpyt compatibility; examples are always taken in-process.
        examples: Precomputed examples (skip the example step).

    Returns:
        ``(samples_pyt, samples_np, examples)``; ``samples_pyt`` shares memory with
        ``samples_np``. ``action``/``reward`` are ``[T + 1, B]`` arrays whose ``[1:]`` and
        ``[:-1]`` views are ``action``/``prev_action`` (likewise reward/prev_reward).
    """
    del subprocess
    examples = get_example_outputs(agent, env) if examples is None else AttrDict(examples)
    T, B = batch_spec
    all_action = buffer_from_example(examples.action, (T + 1, B), agent_shared)
    action = all_action[1:]
    prev_action = all_action[:-1]
    agent_info = buffer_from_example(examples.agent_info, (T, B), agent_shared)
    if bootstrap_value and "timeout" in getattr(examples.env_info, "_fields", ()):
        value = buffer_from_example(examples.agent_info.value, (1, B), agent_shared)
        timeout_value = buffer_from_example(examples.agent_info.value, (T, B), agent_shared)
        timeout_value[:] = np.nan  # unknown until a collector writes it
        agent_buffer = AgentSamplesBsvTv(action, prev_action, agent_info, value, timeout_value)
    elif bootstrap_value:
        value = buffer_from_example(examples.agent_info.value, (1, B), agent_shared)
        agent_buffer = AgentSamplesBsv(action, prev_action, agent_info, value)
    else:
        agent_buffer = AgentSamples(action, prev_action, agent_info)
    observation = buffer_from_example(examples.observation, (T, B), env_shared)
    all_reward = buffer_from_example(examples.reward, (T + 1, B), env_shared)
    done = buffer_from_example(examples.done, (T, B), env_shared)
    env_info = buffer_from_example(examples.env_info, (T, B), env_shared)
    env_buffer = EnvSamples(observation, all_reward[1:], all_reward[:-1], done, env_info)
    samples_np = Samples(agent=agent_buffer, env=env_buffer)
    return torchify_buffer(samples_np), samples_np, examples


def build_step_buffer(
    examples: AttrDict,
    B: int,  # noqa: N803
    shared: bool = True,
) -> tuple[StepBuffer, StepBuffer]:
    """Allocate the ``[B]`` step buffer through which env workers and an action server talk."""
    fields = ("observation", "action", "reward", "done", "agent_info")
    step_np = StepBuffer(*(buffer_from_example(examples[f], B, shared) for f in fields))
    return step_np, torchify_buffer(step_np)
