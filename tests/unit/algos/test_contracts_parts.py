"""The parts read each other through declared members, not ``getattr``/``hasattr`` probes.

- A replay algorithm tells a prioritized replay class by ``PrioritizedReplay``, finds the
  shared-memory twin its class declares (``twin_of``), and groups updates per draw by the
  replay's declared ``sampleable_transitions``.
- The samplers read the agent's declared ``distribution`` (``Agent``) and save a recurrent
  agent's ``sampling_rnn_state`` when it is a ``RecurrentAgent``.
- No module below holds a probe of these members by name.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from rlpyt.agents.base import AgentInputs
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.distributions.categorical import Categorical
from rlpyt.replays.base import BaseReplayBuffer
from rlpyt.replays.non_sequence.prioritized import (
    AsyncPrioritizedReplayBuffer,
    PrioritizedReplayBuffer,
)
from rlpyt.replays.non_sequence.uniform import AsyncUniformReplayBuffer, UniformReplayBuffer
from rlpyt.samplers.noise import SamplingNoise, install_sampling_noise
from rlpyt.samplers.state import collector_state, load_collector_state

ROOT = Path(__file__).resolve().parents[3]

# ---- replay algorithms and replays ---------------------------------------------------------


def test_a_uniform_class_with_prioritized_replay_fails_at_construction():
    with pytest.raises(ValueError, match="keeps no priorities"):
        DQN(prioritized_replay=True, ReplayBufferCls=UniformReplayBuffer)
    with pytest.raises(ValueError, match="is prioritized"):
        DQN(ReplayBufferCls=AsyncPrioritizedReplayBuffer)
    assert DQN(prioritized_replay=True, ReplayBufferCls=AsyncPrioritizedReplayBuffer)


def test_a_replay_with_a_method_of_that_name_is_not_taken_for_a_prioritized_one():
    class Looks(UniformReplayBuffer):
        def update_batch_priorities(self, priorities: object) -> None:
            raise AssertionError("not a PrioritizedReplay")

    with pytest.raises(ValueError, match="keeps no priorities"):
        DQN(prioritized_replay=True, ReplayBufferCls=Looks)


def test_the_async_twin_is_the_declared_one():
    algo = DQN()
    assert algo.async_replay_class(UniformReplayBuffer) is AsyncUniformReplayBuffer
    assert algo.async_replay_class(PrioritizedReplayBuffer) is AsyncPrioritizedReplayBuffer
    assert algo.async_replay_class(AsyncUniformReplayBuffer) is AsyncUniformReplayBuffer


def test_a_replay_without_a_declared_twin_is_a_clear_error():
    class MyReplay(UniformReplayBuffer):
        pass

    with pytest.raises(ValueError, match="async_ = True"):
        DQN().async_replay_class(MyReplay)


class _Replay(BaseReplayBuffer):
    """A replay of the base only: its size is not known (``sampleable_transitions`` 0)."""

    def append_samples(self, samples: object, valid: object = None) -> tuple[int, np.ndarray]:
        raise AssertionError("not called")

    def sample_batch(self, batch_B: int) -> None:
        raise AssertionError("not called")


@pytest.mark.parametrize(
    ("transitions", "expected"),
    [(None, 1), (320, 5), (10_000, 8)],
    ids=["not_known", "capacity", "remaining"],
)
def test_updates_per_draw_follow_the_replays_declared_size(transitions, expected):
    algo = DQN(batch_size=64, target_update_interval=100)
    algo.update_counter = 0
    if transitions is None:
        algo.replay_buffer = _Replay()
    else:
        algo.replay_buffer = SimpleNamespace(sampleable_transitions=transitions)
    assert algo.updates_per_draw(8, until_target_update=True) == expected


# ---- samplers and agents ---------------------------------------------------------------------


class _Collector:
    def __init__(self) -> None:
        self.envs: list = []
        self.need_reset = np.array([False, True])


def _inputs() -> AgentInputs:
    return AgentInputs(
        observation=np.arange(4.0).reshape(2, 2),
        prev_action=np.zeros(2),
        prev_reward=np.zeros(2),
    )


def test_a_recurrent_agents_state_is_saved_and_restored():
    agent = SimpleNamespace(distribution=None, sampling_rnn_state=("h", "c"))
    state = collector_state(_Collector(), _inputs(), [], agent=agent)
    assert state["rnn_state"] == ("h", "c") and "sampling_noise" not in state
    agent.sampling_rnn_state = None
    load_collector_state(_Collector(), _inputs(), state, agent=agent)
    assert agent.sampling_rnn_state == ("h", "c")


def test_a_feedforward_agent_saves_no_recurrent_state():
    agent = SimpleNamespace(distribution=None)
    state = collector_state(_Collector(), _inputs(), [], agent=agent)
    assert "rnn_state" not in state
    load_collector_state(_Collector(), _inputs(), {**state, "rnn_state": "x"}, agent=agent)
    assert not hasattr(agent, "sampling_rnn_state")


def test_the_sampling_noise_of_the_declared_distribution_is_saved():
    agent = SimpleNamespace(distribution=Categorical(dim=3), mode="sample")
    noise = install_sampling_noise(agent, seed=1, global_B=2, env_ranks=[0, 1])
    assert isinstance(noise, SamplingNoise) and agent.distribution is noise
    state = collector_state(_Collector(), _inputs(), [], agent=agent)
    assert state["sampling_noise"] == noise.state_dict()
    assert install_sampling_noise(SimpleNamespace(distribution=None), 1, 2, [0]) is None


# ---- no probes left -------------------------------------------------------------------------

FILES = [
    "rlpyt/algos/replay_mixin.py",
    "rlpyt/algos/dqn/dqn.py",
    "rlpyt/algos/dqn/r2d1.py",
    "rlpyt/samplers/parallel/base.py",
    "rlpyt/samplers/state.py",
    "rlpyt/samplers/noise.py",
    "rlpyt/cli/play.py",
    *(str(path.relative_to(ROOT)) for path in sorted((ROOT / "rlpyt/replays").rglob("*.py"))),
]
MEMBERS = {
    "async_",
    "distribution",
    "eval_env_kwargs",
    "sampleable_rows",
    "sampling_rnn_state",
    "set_epsilon",
    "set_std",
    "update_batch_priorities",
}


def _probes(path: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse((ROOT / path).read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in MEMBERS
        ):
            found.append(f"{path}:{node.lineno} {node.func.id}(..., {node.args[1].value!r})")
    return found


@pytest.mark.parametrize("path", FILES)
def test_no_probe_of_a_declared_member(path):
    assert _probes(path) == []


def test_the_probe_finder_finds_probes(tmp_path, monkeypatch):
    module = tmp_path / "m.py"
    module.write_text("x = getattr(agent, 'distribution', None)\ny = hasattr(r, 'other')\n")
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert _probes("m.py") == ["m.py:1 getattr(..., 'distribution')"]
