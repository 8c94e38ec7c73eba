"""What a collector must hand over for a run to resume exactly, and how it takes it back.

Box: Collector (resume). Called from the samplers' ``state_dict`` / ``load_state_dict`` (the
serial sampler's, and each parallel worker's on the master's request).

Every sampler saves the same thing per collector (the serial sampler for its one collector, a
parallel sampler for each worker's): the envs (pickled), the carried agent inputs, the live
TrajInfos, the wait-reset flags, and, where the collector steps an agent of its own (CPU
workers), that agent's sampling-noise generator and recurrent state; in a worker process also
the process's global generators (Python's, numpy's, torch's). Evaluation collectors carry
nothing over: every evaluation seeds its envs and generators from the sampler seed and the
iteration (see :mod:`rlpyt.samplers.evaluation`). Envs that cannot be pickled (ALE) are left
out with the reason; resuming then restarts them and is no longer exact.
"""

from __future__ import annotations

import copy
import pickle
import random
from typing import TYPE_CHECKING

import numpy as np
import torch

from rlpyt.agents.base import AgentInputs
from rlpyt.envs.traj_info import TrajInfoRows
from rlpyt.protocols import RecurrentAgent
from rlpyt.samplers.collectors import WaitResetMixin
from rlpyt.samplers.noise import SamplingNoise

if TYPE_CHECKING:
    from rlpyt.protocols import Agent, Collector


def collector_state(
    collector: Collector,
    agent_inputs: AgentInputs,
    traj_infos: TrajInfoRows,
    agent: Agent | None = None,
    process_rng: bool = False,
) -> dict:
    """A picklable copy of everything the collector carries between batches.

    Args:
        collector: A training collector (its ``envs`` and wait-reset flags are saved).
        agent_inputs: The carried ``AgentInputs`` (numpy, ``[B_local, ...]``; for GPU
            collectors views of the step buffer).
        traj_infos: The live TrajInfo of each env.
        agent: The agent the collector steps itself (CPU workers), or None when its state is
            saved elsewhere (the serial sampler's and the action server's agent).
        process_rng: Also save this process's global generators (worker processes; the
            runner saves the training process's).

    Returns:
        A dict for :func:`load_collector_state`; ``envs`` is the pickled env list, or absent
        with ``envs_error`` saying why.
    """
    state: dict = {
        "agent_inputs": copy.deepcopy(agent_inputs),
        "traj_infos": copy.deepcopy(traj_infos),
        "flags": (
            {
                "need_reset": collector.need_reset.copy(),
                "need_env_reset": collector.need_env_reset.copy(),
            }
            if isinstance(collector, WaitResetMixin)
            else {}
        ),
    }
    _pickle_envs(state, "envs", collector.envs)
    if process_rng:
        state["process_rng"] = (random.getstate(), np.random.get_state(), torch.get_rng_state())
    if agent is not None:
        noise = agent.distribution
        if isinstance(noise, SamplingNoise):
            state["sampling_noise"] = copy.deepcopy(noise.state_dict())
        if isinstance(agent, RecurrentAgent):
            state["rnn_state"] = copy.deepcopy(agent.sampling_rnn_state)
    return state


def load_collector_state(
    collector: Collector,
    agent_inputs: AgentInputs,
    state: dict,
    agent: Agent | None = None,
) -> tuple[AgentInputs, TrajInfoRows]:
    """Restore what :func:`collector_state` saved; returns ``(agent_inputs, traj_infos)``.

    The agent inputs are copied into the carried arrays in place (for GPU collectors those are
    the shared step buffer the action server reads). Without pickled envs the collector keeps
    its own, freshly started ones.
    """
    _unpickle_envs(state, "envs", collector.envs)
    if "process_rng" in state:
        python_state, numpy_state, torch_state = state["process_rng"]
        random.setstate(python_state)
        np.random.set_state(numpy_state)
        torch.set_rng_state(torch_state)
    agent_inputs[:] = state["agent_inputs"]
    if isinstance(collector, WaitResetMixin) and state["flags"]:
        collector.need_reset[:] = state["flags"]["need_reset"]
        collector.need_env_reset[:] = state["flags"]["need_env_reset"]
    if agent is not None:
        noise = agent.distribution
        if isinstance(noise, SamplingNoise) and "sampling_noise" in state:
            noise.load_state_dict(state["sampling_noise"])
        if "rnn_state" in state and isinstance(agent, RecurrentAgent):  # saved from one
            agent.sampling_rnn_state = state["rnn_state"]
    return agent_inputs, state["traj_infos"]


def _pickle_envs(state: dict, key: str, envs: list) -> None:
    """``state[key]``: the pickled ``envs``, or ``state[key + "_error"]``: why they are not."""
    try:
        state[key] = pickle.dumps(envs)
    except Exception as exc:  # noqa: BLE001 (any pickling failure means the same)
        state[key + "_error"] = f"{type(exc).__name__}: {exc}"


def _unpickle_envs(state: dict, key: str, envs: list) -> None:
    """Replace ``envs``' items by the pickled ones of ``state[key]`` (if saved), in place.

    In place: the list's owner (sampler or worker) closes them at its shutdown.
    """
    if key not in state:
        return
    for env in envs:
        env.close()
    envs[:] = pickle.loads(state[key])
