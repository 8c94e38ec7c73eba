"""EnvpoolVecEnv: rlpyt's vector-env semantics over envpool (skipped without envpool).

The reference for every env is a one-env envpool pool built with that env's seed, stepped by
hand: envpool resets an ended env on its next call, so the reference makes that call itself.
"""

import pickle

import numpy as np
import pytest

pytest.importorskip("envpool")

import envpool  # noqa: E402

from rlpyt.envs.envpool import EnvpoolVecEnv, check_env_kwargs, make  # noqa: E402
from rlpyt.envs.vector import is_vector_env_maker  # noqa: E402


class Reference:
    """One envpool env seeded ``seed``, with same-step resets done by hand."""

    def __init__(self, task_id, seed, **kwargs):
        self.pool = envpool.make(task_id, env_type="gymnasium", num_envs=1, seed=seed, **kwargs)

    def reset(self):
        return self.pool.reset()[0][0]

    def step(self, action):
        """Returns (observation after any reset, reward, done, truncated, final observation)."""
        obs, reward, terminated, truncated, _ = self.pool.step(np.asarray([action]))
        done = bool(terminated[0] or truncated[0])
        final = obs[0]
        if done:
            obs, *_ = self.pool.step(np.asarray([action]))  # envpool's reset call
        return obs[0], reward[0], done, bool(truncated[0]), final


def alternating(t, num_envs):
    """CartPole actions that keep the pole up for a while (left/right by turns)."""
    return np.full(num_envs, t % 2, dtype=np.int64)


def test_make_is_a_vector_env_maker_and_refuses_async_mode():
    assert is_vector_env_maker(make)
    with pytest.raises(ValueError, match="async mode"):
        make("CartPole-v1", num_envs=4, batch_size=2)
    with pytest.raises(ValueError, match="Unknown envpool task"):
        make("NoSuchTask-v0", num_envs=1)
    with pytest.raises(TypeError, match="learning_rte"):
        make("Pong-v5", num_envs=1, learning_rte=1e-3)
    with pytest.raises(TypeError, match="learning_rte"):
        check_env_kwargs(dict(task_id="Pong-v5", learning_rte=1e-3))
    check_env_kwargs(dict(task_id="Pong-v5", episodic_life=False, force_float32=True))


def test_same_step_reset_and_final_observation_match_per_env_references():
    B, seed, steps = 3, 5, 120
    vec_env = make("CartPole-v1", num_envs=B, seed=seed)
    refs = [Reference("CartPole-v1", seed + b) for b in range(B)]
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(vec_env.reset(), [r.reset() for r in refs])
    ends = 0
    for _ in range(steps):
        action = rng.integers(0, 2, B)
        out = vec_env.step(action)
        assert out.stepped is None
        expected = [r.step(a) for r, a in zip(refs, action.tolist(), strict=True)]
        np.testing.assert_array_equal(out.observation, [e[0] for e in expected])
        np.testing.assert_array_equal(out.reward, [e[1] for e in expected])
        np.testing.assert_array_equal(out.done, [e[2] for e in expected])
        assert out.observation.dtype == np.float32 and out.reward.dtype == np.float32
        if out.done.any():
            ends += int(out.done.sum())
            for b in np.flatnonzero(out.done):
                np.testing.assert_array_equal(out.final_observation[b], expected[b][4])
                assert not np.array_equal(out.final_observation[b], out.observation[b])
        else:
            assert out.final_observation is None
    assert ends >= 3  # random CartPole episodes last ~20 steps


def test_timeout_at_max_episode_steps_keeps_the_final_observation():
    vec_env = make("CartPole-v1", num_envs=2, seed=0, max_episode_steps=5)
    assert vec_env.horizon == 5
    vec_env.reset()
    for t in range(4):
        out = vec_env.step(alternating(t, 2))
        assert not out.done.any() and not out.env_info.timeout.any()
    before = out.observation.copy()
    out = vec_env.step(alternating(4, 2))
    assert out.done.all() and out.env_info.timeout.all()
    assert out.final_observation is not None
    # final observation: one step on from `before`; the row itself: a fresh episode
    assert not np.array_equal(out.final_observation, before)
    assert not np.array_equal(out.final_observation, out.observation)
    assert np.abs(out.observation).max() <= 0.05  # CartPole's reset range


def test_reset_envs_resets_only_the_masked_envs():
    vec_env = make("CartPole-v1", num_envs=2, seed=3)
    ref = Reference("CartPole-v1", 3)
    vec_env.reset()
    ref.reset()
    for t in range(3):
        out = vec_env.step(alternating(t, 2))
        ref.step(t % 2)
    row1 = out.observation[1].copy()
    observation = vec_env.reset_envs(np.array([True, False]))
    np.testing.assert_array_equal(observation[0], ref.pool.reset()[0][0])
    np.testing.assert_array_equal(observation[1], row1)


def test_autoreset_false_freezes_ended_envs_until_reset_envs():
    seed = 11
    vec_env = make("CartPole-v1", num_envs=2, seed=seed)
    vec_env.autoreset = False
    pools = [Reference("CartPole-v1", seed + b).pool for b in range(2)]  # stepped by hand
    vec_env.reset()
    for pool in pools:
        pool.reset()
    ended = np.zeros(2, dtype=bool)
    frozen = None
    for t in range(40):
        action = np.array([0, t % 2])  # env 0 always left: ends first; env 1 balances
        out = vec_env.step(action)
        for b in np.flatnonzero(~ended):  # the references step the envs that did not wait
            obs, reward, terminated, truncated, _ = pools[b].step(action[b : b + 1])
            np.testing.assert_array_equal(out.observation[b], obs[0])
            assert out.reward[b] == reward[0]
            assert out.done[b] == (terminated[0] or truncated[0])
        if ended[0]:  # env 0 waits: last observation, zero reward, done
            assert out.done[0] and out.reward[0] == 0
            np.testing.assert_array_equal(out.observation[0], frozen)
        elif out.done[0]:
            ended[0], frozen = True, out.observation[0].copy()
        assert not out.done[1], "env 1 was to outlive env 0 (balancing actions)"
    assert ended[0]
    # Had env 0 been stepped while it waited, envpool would have reset it then, and this
    # reset would start a third episode instead of the reference's second.
    observation = vec_env.reset_envs(np.array([True, False]))
    np.testing.assert_array_equal(observation[0], pools[0].reset()[0][0])
    assert not vec_env.step(np.zeros(2, dtype=np.int64)).done[0]


def test_halfcheetah_float32_observations_info_fields_and_timeout():
    vec_env = make("HalfCheetah-v5", num_envs=2, seed=0, max_episode_steps=3)
    assert vec_env.observation_space.shape == (17,) and vec_env.action_space.shape == (6,)
    assert vec_env.reset().dtype == np.float32
    action = np.zeros((2, 6), dtype=np.float32)
    for _ in range(2):
        out = vec_env.step(action)
        assert not out.done.any()
    assert {"x_position", "x_velocity", "timeout"} <= set(out.env_info._fields)
    assert out.env_info.x_position.shape == (2,)
    out = vec_env.step(action)
    assert out.done.all() and out.env_info.timeout.all()
    assert out.final_observation.dtype == np.float32
    assert not np.array_equal(out.final_observation, out.observation)


def test_seeding_env_b_runs_as_seed_plus_b():
    vec_env = make("CartPole-v1", num_envs=3, seed=0)
    vec_env.reset()
    vec_env.seed(20)
    first = vec_env.reset().copy()
    for b in range(3):
        single = make("CartPole-v1", num_envs=1)
        single.seed(20 + b)
        np.testing.assert_array_equal(single.reset()[0], first[b])
    again = make("CartPole-v1", num_envs=3)
    again.seed(20)
    np.testing.assert_array_equal(again.reset(), first)
    for t in range(30):
        np.testing.assert_array_equal(
            vec_env.step(alternating(t, 3)).observation, again.step(alternating(t, 3)).observation
        )


def test_step_async_then_step_wait_equals_step():
    a, b = make("CartPole-v1", num_envs=2, seed=1), make("CartPole-v1", num_envs=2, seed=1)
    a.reset()
    b.reset()
    for t in range(30):
        a.step_async(alternating(t, 2))
        out_a = a.step_wait()
        out_b = b.step(alternating(t, 2))
        np.testing.assert_array_equal(out_a.observation, out_b.observation)
        np.testing.assert_array_equal(out_a.done, out_b.done)
    with pytest.raises(RuntimeError, match="without a step_async"):
        a.step_wait()


def test_not_picklable_with_a_clear_error():
    vec_env = make("CartPole-v1", num_envs=1)
    with pytest.raises(TypeError, match="resume is not exact"):
        pickle.dumps(vec_env)


def test_pong_shapes_and_atari_env_info():
    vec_env = make("Pong-v5", num_envs=2, seed=0)
    assert isinstance(vec_env, EnvpoolVecEnv) and vec_env.is_atari
    observation = vec_env.reset()
    assert observation.shape == (2, 4, 84, 84) and observation.dtype == np.uint8
    assert vec_env.observation_space.shape == (4, 84, 84)
    out = vec_env.step(np.zeros(2, dtype=np.int64))
    assert out.env_info._fields == ("game_score", "traj_done", "timeout")
    assert out.env_info.game_score.dtype == np.float32


def test_breakout_lives_done_without_traj_done_and_unclipped_game_score():
    kwargs = dict(num_envs=2, seed=0, reward_clip=True)
    clipped, raw = (
        make("Breakout-v5", **kwargs),
        make("Breakout-v5", **{**kwargs, "reward_clip": False}),
    )
    clipped.reset()
    raw.reset()
    rng = np.random.default_rng(0)
    life_losses = np.zeros(2, dtype=int)
    for _ in range(1000):
        action = rng.integers(0, 4, 2)
        out, out_raw = clipped.step(action), raw.step(action)
        np.testing.assert_array_equal(out.env_info.game_score, out_raw.reward)
        np.testing.assert_array_equal(out.reward, np.sign(out.env_info.game_score))
        life_losses += out.done & ~out.env_info.traj_done
        if out.env_info.traj_done.any():
            b = int(np.flatnonzero(out.env_info.traj_done)[0])
            assert out.done[b] and not out.env_info.timeout[b]
            assert life_losses[b] == 4  # Breakout's 5 lives: 4 lost lives, then game over
            return
    pytest.fail("no Breakout game ended in 1000 random steps")


def test_lost_lives_restart_within_the_step_with_autoreset_off_too():
    on, off = make("Breakout-v5", num_envs=2, seed=1), make("Breakout-v5", num_envs=2, seed=1)
    off.autoreset = False
    on.reset()
    off.reset()
    rng = np.random.default_rng(1)
    life_losses = 0
    for _ in range(1000):
        action = rng.integers(0, 4, 2)
        out_on, out_off = on.step(action), off.step(action)
        np.testing.assert_array_equal(out_off.reward, out_on.reward)
        np.testing.assert_array_equal(out_off.done, out_on.done)
        if out_on.env_info.traj_done.any():  # game over: only autoreset resets the row
            break
        np.testing.assert_array_equal(out_off.observation, out_on.observation)
        life_losses += int(out_on.done.sum())
    assert life_losses >= 4
