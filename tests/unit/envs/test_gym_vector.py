"""GymVecEnvWrapper/make_vec against per-env GymEnvWrapper envs on the same seeds."""

import pickle

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from rlpyt.envs.gym import make
from rlpyt.envs.gym_vector import GymVecEnvWrapper, make_vec, registered_vec_env_creator
from rlpyt.envs.vector import is_vector_env_maker

SEED = 11
B = 3


def _per_env(max_episode_steps, seed=SEED, n=B):
    envs = [make("CartPole-v1", max_episode_steps=max_episode_steps) for _ in range(n)]
    for b, env in enumerate(envs):
        env.seed(seed + b)
    return envs


def _actions(rng, n=B):
    return (rng.random(n) < 0.8).astype(np.int64)  # biased: terminations and time limits


@pytest.mark.parametrize("into_buffers", [False, True])
def test_sync_autoreset_equals_per_env(into_buffers):
    vec = make_vec("CartPole-v1", num_envs=B, vectorization_mode="sync", max_episode_steps=10)
    envs = _per_env(10)
    vec.seed(SEED)
    observation = vec.reset()
    np.testing.assert_array_equal(observation, np.stack([env.reset() for env in envs]))
    rng = np.random.default_rng(0)
    buffers = dict(observation=np.zeros((B, 4), np.float32), reward=np.zeros(B, np.float32))
    buffers["done"] = np.zeros(B, bool)
    n_done = n_timeout = 0
    for _ in range(60):
        action = _actions(rng)
        out = vec.step(action, **buffers) if into_buffers else vec.step(action)
        for b, env in enumerate(envs):
            o, r, d, info = env.step(action[b])
            assert out.reward[b] == r and out.done[b] == d
            assert out.env_info.timeout[b] == info.timeout
            if d:
                np.testing.assert_array_equal(out.final_observation[b], o)
                o = env.reset()
            np.testing.assert_array_equal(out.observation[b], o)
        assert (out.final_observation is None) == (not out.done.any())
        assert out.stepped is None
        n_done += int(out.done.sum())
        n_timeout += int(out.env_info.timeout.sum())
        if into_buffers:
            assert out.observation is buffers["observation"] and out.done is buffers["done"]
    assert n_timeout > 0 and n_done > n_timeout  # both kinds of episode end were compared
    vec.close()


def test_sync_wait_reset_equals_per_env():
    vec = make_vec("CartPole-v1", num_envs=B, vectorization_mode="sync", max_episode_steps=9)
    vec.autoreset = False
    envs = _per_env(9)
    vec.seed(SEED)
    vec.reset()
    last = np.stack([env.reset() for env in envs])
    rng = np.random.default_rng(1)
    for _batch in range(4):
        waiting = np.zeros(B, bool)
        for _ in range(12):
            action = _actions(rng)
            out = vec.step(action)
            for b, env in enumerate(envs):
                if waiting[b]:  # per-env wait-reset: the env is not stepped
                    assert out.done[b] and out.reward[b] == 0
                    np.testing.assert_array_equal(out.observation[b], last[b])
                    continue
                o, r, d, info = env.step(action[b])
                assert out.reward[b] == r and out.done[b] == d
                assert out.env_info.timeout[b] == info.timeout
                np.testing.assert_array_equal(out.observation[b], o)
                last[b] = o
                waiting[b] = d
        assert waiting.any()
        observation = vec.reset_envs(waiting)
        for b in np.flatnonzero(waiting):
            last[b] = envs[b].reset()
        np.testing.assert_array_equal(observation, last)
    vec.close()


def test_async_equals_sync():
    kwargs = dict(num_envs=2, max_episode_steps=5)
    sync = make_vec("CartPole-v1", vectorization_mode="sync", **kwargs)
    async_ = make_vec("CartPole-v1", vectorization_mode="async", **kwargs)
    try:
        for vec in (sync, async_):
            vec.seed(SEED)
        np.testing.assert_array_equal(sync.reset(), async_.reset())
        rng = np.random.default_rng(2)
        for _ in range(12):
            action = _actions(rng, 2)
            a, b = sync.step(action), async_.step(action)
            np.testing.assert_array_equal(a.observation, b.observation)
            np.testing.assert_array_equal(a.reward, b.reward)
            np.testing.assert_array_equal(a.done, b.done)
            np.testing.assert_array_equal(a.env_info.timeout, b.env_info.timeout)
            if a.done.any():
                rows = a.done
                np.testing.assert_array_equal(a.final_observation[rows], b.final_observation[rows])
        assert async_.can_reset_subset
    finally:
        sync.close()
        async_.close()


def test_native_cartpole_next_step_reset_rows():
    n, steps = 4, 6
    vec = make_vec(
        "CartPole-v1", num_envs=n, vectorization_mode="vector_entry_point", max_episode_steps=steps
    )
    raw = gymnasium.make_vec(
        "CartPole-v1", num_envs=n, vectorization_mode="vector_entry_point", max_episode_steps=steps
    )
    assert vec.next_step_reset and not vec.can_reset_subset and vec.horizon == steps
    vec.seed(SEED)
    np.testing.assert_array_equal(vec.reset(), raw.reset(seed=SEED)[0])
    rng = np.random.default_rng(3)
    ended = np.zeros(n, bool)
    n_timeouts = n_waits = 0
    for _ in range(30):
        action = _actions(rng, n)
        out = vec.step(action)
        o, r, term, trunc, _ = raw.step(action)
        np.testing.assert_array_equal(out.observation, o)  # same dynamics, same RNG
        stepped = np.ones(n, bool) if out.stepped is None else out.stepped
        np.testing.assert_array_equal(stepped, ~ended)
        assert np.all(out.reward[~stepped] == 0) and not out.done[~stepped].any()
        assert np.all(np.abs(out.observation[~stepped]) <= 0.05)  # reset observations
        np.testing.assert_array_equal(out.done, (term | trunc) & stepped)
        np.testing.assert_array_equal(out.env_info.timeout, trunc & ~term & stepped)
        if out.done.any():
            np.testing.assert_array_equal(out.final_observation[out.done], o[out.done])
        ended = out.done.copy()
        n_timeouts += int(out.env_info.timeout.sum())
        n_waits += int((~stepped).sum())
    assert n_timeouts > 0 and n_waits > 0
    with pytest.raises(NotImplementedError, match="cannot reset a subset"):
        vec.reset_envs(np.ones(n, bool))
    vec.close()


class _InfoEnv(gymnasium.Env):
    """Counts steps; info has a numeric entry, a sometimes-present one and a string."""

    observation_space = gymnasium.spaces.Box(-1.0, 1.0, (2,), np.float64)
    action_space = gymnasium.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(2), {}

    def step(self, action):
        self.t += 1
        info = {"steps": self.t, "name": "x"}
        if self.t % 2:
            info["odd"] = 1.5
        return np.full(2, self.t / 10), 1.0, self.t >= 3, False, info


def test_env_info_fields_and_masks():
    env = SyncVectorEnv([_InfoEnv, _InfoEnv], autoreset_mode=AutoresetMode.DISABLED, copy=False)
    with pytest.warns(UserWarning, match="name"):
        vec = GymVecEnvWrapper(env)
    assert vec.info_converter.schema._fields == ("steps", "odd", "timeout")
    vec.reset()
    assert vec.observation_space.dtype == np.float32  # force_float32
    out = vec.step(np.array([0, 1]))
    assert out.observation.dtype == np.float32
    np.testing.assert_array_equal(out.env_info.steps, [1, 1])
    np.testing.assert_array_equal(out.env_info.odd, [1.5, 1.5])
    vec.reset_envs(np.array([True, False]))
    out = vec.step(np.array([0, 1]))
    np.testing.assert_array_equal(out.env_info.steps, [1, 2])
    np.testing.assert_array_equal(out.env_info.odd, [1.5, 0])  # masked out for env 1
    out = vec.step(np.array([0, 1]))
    np.testing.assert_array_equal(out.env_info.steps, [2, 3])
    np.testing.assert_array_equal(out.env_info.odd, [0, 1.5])
    np.testing.assert_array_equal(out.done, [False, True])
    np.testing.assert_array_equal(out.observation[1], [0, 0])  # reset in the same call
    np.testing.assert_allclose(out.final_observation[1], [0.3, 0.3])
    out = vec.step(np.array([0, 1]))
    np.testing.assert_array_equal(out.env_info.steps, [3, 1])
    assert vec.info_converter.record is out.env_info  # one record, rewritten in place
    vec.close()


def test_make_vec_is_picklable_maker():
    assert is_vector_env_maker(make_vec)
    assert pickle.loads(pickle.dumps(make_vec)) is make_vec


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(id="CartPole-v1", num_envs=0), ValueError, "num_envs >= 1"),
        (dict(id="CartPole-v1", vectorization_mode="syncc"), ValueError, "vectorization_mode"),
        (dict(id="NoSuchEnv-v0"), gymnasium.error.Error, "NoSuchEnv-v0"),
        (dict(id="CartPole-v1", wrappers=[list]), ValueError, "neither vector_kwargs nor wrappers"),
    ],
)
def test_make_vec_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_vec(**kwargs)


@pytest.mark.parametrize("mode", ["sync", "vector_entry_point"])
def test_pickled_env_continues_identically(mode):
    vec = make_vec("CartPole-v1", num_envs=2, vectorization_mode=mode, max_episode_steps=6)
    vec.seed(SEED)
    vec.reset()
    rng = np.random.default_rng(4)
    for _ in range(4):
        vec.step(_actions(rng, 2))
    copy = pickle.loads(pickle.dumps(vec))  # mid-episode: what a resume restores
    for _ in range(10):  # across episode ends (and their resets' RNG draws)
        action = _actions(rng, 2)
        a, b = vec.step(action), copy.step(action)
        np.testing.assert_array_equal(a.observation, b.observation)
        np.testing.assert_array_equal(a.done, b.done)
        np.testing.assert_array_equal(a.reward, b.reward)


def test_registered_vec_env_creator_names_the_constructor():
    native, keywords, _ = registered_vec_env_creator(dict(id="CartPole-v1"))
    assert native is gymnasium.envs.classic_control.cartpole.CartPoleVectorEnv
    assert "max_episode_steps" not in keywords  # the native env's own keyword: checked there
    per_env, keywords, _ = registered_vec_env_creator(
        dict(id="CartPole-v1", vectorization_mode="sync")
    )
    assert per_env is gymnasium.envs.classic_control.cartpole.CartPoleEnv
    assert {"max_episode_steps", "num_envs", "vector_kwargs"} <= keywords
    assert registered_vec_env_creator(dict(id="NoSuchEnv-v0")) is None


def test_step_before_reset_is_an_error():
    vec = make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.zeros(2, np.int64))
    vec.close()
