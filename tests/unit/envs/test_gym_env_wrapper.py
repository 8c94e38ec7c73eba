"""GymEnvWrapper and make(): done/timeout, seeding, Dict spaces, info dicts, retired ids."""

import warnings

import gymnasium
import gymnasium.spaces as gs
import numpy as np
import pytest
from gymnasium.wrappers import TimeLimit

from rlpyt.envs.gym import GymEnvWrapper, make, resolve_env_id
from rlpyt.utils.buffer import buffer_from_example


class DictEnv(gymnasium.Env):
    """Dict observation (nested) and Dict action; ends after `length` steps (terminated)."""

    def __init__(self, length=3):
        self.length = length
        self.observation_space = gs.Dict(
            {"pos": gs.Box(-10.0, 10.0, (2,), np.float64), "meta": gs.Dict({"t": gs.Discrete(9)})}
        )
        self.action_space = gs.Dict({"move": gs.Discrete(3), "force": gs.Box(-1, 1, (2,))})
        self.received = []

    def _obs(self):
        return {"pos": np.full(2, float(self.t)), "meta": {"t": self.t}}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.received.append(action)
        self.t += 1
        return self._obs(), 1.0, self.t >= self.length, False, {}


class InfoEnv(gymnasium.Env):
    """Info dicts with numeric and non-numeric entries, some keys only sometimes."""

    observation_space = gs.Box(-1, 1, (1,))
    action_space = gs.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(1, np.float32), {"reset_only": 1}

    def step(self, action):
        self.t += 1
        info = {
            "score": 1.5 * self.t,
            "name": "player one",
            "handle": object(),
            "flags": np.array([self.t, 2 * self.t]),
            "nested": {"a": self.t, "label": "x"},
            "TimeLimit.truncated": False,
        }
        if self.t == 1:
            info["first_only"] = True
        else:
            info["later_only"] = 5.0
        if self.t == 3:
            info["flags"] = "broken"
        return np.zeros(1, np.float32), 0.5, False, False, info


def run_episode(env, actions):
    """Steps until done or out of actions."""
    env.reset()
    steps = []
    for action in actions:
        steps.append(env.step(action))
        if steps[-1].done:
            break
    return steps


def test_cartpole_types_and_spaces():
    env = make("CartPole-v1")
    obs = env.reset()
    assert obs.dtype == np.float32 and obs.shape == (4,)
    assert env.action_space.n == 2 and env.spaces.observation.shape == (4,)
    step = env.step(env.action_space.sample())
    assert type(step.reward) is np.float32 and type(step.done) is bool
    assert step.env_info._fields == ("timeout",) and step.env_info.timeout is False
    assert env.horizon == 500


def test_seed_makes_streams_reproducible_and_later_resets_unseeded():
    def stream(seed):
        env = make("CartPole-v1")
        env.seed(seed)
        first_reset = env.reset()
        steps = [env.step(env.action_space.sample()).observation for _ in range(5)]
        return first_reset, env.reset(), steps

    a, b, c = stream(1), stream(1), stream(2)
    for x, y in zip(a[2], b[2], strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])  # the second reset continues the seeded RNG
    assert not np.array_equal(a[0], a[1])  # ... and is not seeded again
    assert not np.array_equal(a[0], c[0])


def test_pendulum_time_limit_sets_timeout_and_done():
    env = make("Pendulum-v1")
    assert env.action_space.dtype == np.float32 and env.action_space.shape == (1,)
    assert env.horizon == 200
    steps = run_episode(env, [env.action_space.sample() for _ in range(200)])
    assert len(steps) == 200
    assert not any(s.done or s.env_info.timeout for s in steps[:-1])
    assert steps[-1].done and steps[-1].env_info.timeout
    assert steps[-1].observation.dtype == np.float32


def test_termination_is_not_a_timeout():
    env = make("CartPole-v1")
    env.seed(0)
    steps = run_episode(env, [0] * 100)  # always push left: the pole falls well before 500
    assert steps[-1].done and len(steps) < 100
    assert steps[-1].env_info.timeout is False


def test_terminated_and_truncated_together_is_not_a_timeout():
    env = GymEnvWrapper(TimeLimit(DictEnv(length=3), max_episode_steps=3))
    steps = run_episode(env, [env.action_space.sample() for _ in range(3)])
    assert steps[-1].done and not steps[-1].env_info.timeout
    env = GymEnvWrapper(TimeLimit(DictEnv(length=10), max_episode_steps=3))
    steps = run_episode(env, [env.action_space.sample() for _ in range(3)])
    assert steps[-1].done and steps[-1].env_info.timeout


def test_dict_observations_and_actions_become_records():
    inner = DictEnv(length=5)
    env = GymEnvWrapper(inner)
    obs = env.reset()
    assert obs._fields == ("meta", "pos") and obs.meta._fields == ("t",)
    assert obs.pos.dtype == np.float32
    action = env.action_space.sample()
    assert action._fields == ("force", "move")
    step = env.step(action)
    assert int(step.observation.meta.t) == 1
    received = inner.received[-1]
    assert isinstance(received, dict) and set(received) == {"force", "move"}
    assert received["move"] == action.move
    buffer = buffer_from_example(env.observation_space.null_value(), (4, 2))
    buffer[0, 1] = step.observation
    assert buffer.meta.t[0, 1] == 1 and buffer.pos[0, 1].tolist() == [1.0, 1.0]


def test_two_dict_envs_in_one_process_do_not_clash():
    class OtherDictEnv(DictEnv):
        def __init__(self):
            super().__init__()
            self.observation_space = gs.Dict({"image": gs.Box(0, 255, (2, 2), np.uint8)})

        def _obs(self):
            return {"image": np.zeros((2, 2), np.uint8)}

    first, second = GymEnvWrapper(DictEnv()), GymEnvWrapper(OtherDictEnv())
    assert first.reset()._fields == ("meta", "pos")
    assert second.reset()._fields == ("image",)
    assert first.step(first.action_space.sample()).observation._fields == ("meta", "pos")


def test_info_dicts_numeric_entries_kept_others_dropped_with_one_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = GymEnvWrapper(InfoEnv())
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    for key in ("name", "handle", "nested.label"):
        assert key in messages[0]
    info = env.info_converter.example
    assert info._fields == (
        "reset_only", "score", "flags", "nested", "TimeLimit_truncated", "first_only", "timeout"
    )  # fmt: skip
    assert info.nested._fields == ("a",)
    env.reset()
    first = env.step(0).env_info
    assert first.score == 1.5 and first.flags.tolist() == [1, 2] and first.first_only
    assert first.nested.a == 1 and first.reset_only == 0  # missing key -> zero default
    second = env.step(0).env_info
    assert second.first_only == False  # noqa: E712 (numpy bool)  # missing -> default
    assert "later_only" not in second._fields  # unseen key dropped
    with pytest.warns(UserWarning, match="flags"):
        third = env.step(0).env_info  # "flags" turned into a string: zeros, one warning
    assert third.flags.tolist() == [0, 0] and third.score == 4.5
    buffer = buffer_from_example(third, (2,))
    buffer[0] = third
    assert buffer.nested.a[0] == 3


def test_info_example_pads_keys_that_appear_only_sometimes():
    env = make("CartPole-v1", info_example={"episode": {"r": 0.0, "l": 0}})
    env.reset()
    info = env.step(0).env_info
    assert info._fields == ("episode", "timeout")
    assert info.episode.r == 0.0 and info.episode.l == 0


def test_retired_id_maps_to_newest_version_with_warning():
    with pytest.warns(UserWarning, match="'Hopper-v3'.*'Hopper-v5'"):
        assert resolve_env_id("Hopper-v3") == "Hopper-v5"
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert resolve_env_id("CartPole-v0") == "CartPole-v0"  # old but still registered
        assert resolve_env_id("CartPole-v1") == "CartPole-v1"


def test_mujoco_missing_says_which_extra_to_install():
    pytest.importorskip("gymnasium")
    try:
        import mujoco  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("mujoco is installed")
    with pytest.warns(UserWarning, match="Hopper-v5"):
        with pytest.raises(ImportError, match=r'pip install "rlpyt\[mujoco\]"'):
            make("Hopper-v3")


def test_unknown_id_error_names_it():
    with pytest.raises(gymnasium.error.Error, match="NoSuchEnv-v1"):
        make("NoSuchEnv-v1")
