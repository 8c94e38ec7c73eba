"""AtariEnv on ale-py: observation pipeline, seeding, lives, rewards, horizon, names."""

import numpy as np
import pytest

from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo, EnvInfo


def naive_frame(raw_a, raw_b):
    """Max of two frames, rows 1..208, 2x2 means rounded half up, one pixel at a time."""
    out = np.zeros((104, 80), np.uint8)
    for i in range(104):
        for j in range(80):
            total = 0
            for di in range(2):
                for dj in range(2):
                    r, c = 1 + 2 * i + di, 2 * j + dj
                    total += max(int(raw_a[r, c]), int(raw_b[r, c]))
            out[i, j] = (total + 2) // 4
    return out


def play(env, actions):
    """Steps until done or out of actions; returns the EnvSteps."""
    steps = []
    for action in actions:
        steps.append(env.step(action))
        if steps[-1].done:
            break
    return steps


def test_spaces_shapes_and_dtypes():
    env = AtariEnv("pong")
    obs = env.reset()
    assert obs.shape == (4, 104, 80) and obs.dtype == np.uint8
    assert env.observation_space.contains(obs)
    assert env.action_space.n == 6 and env.action_space.dtype == np.int32
    assert env.get_action_meanings() == ["NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE"]
    step = env.step(1)
    assert step.observation.shape == (4, 104, 80) and step.observation.dtype == np.uint8
    assert type(step.reward) is np.float32 and isinstance(step.env_info, EnvInfo)
    assert type(step.env_info.game_score) is np.float32
    assert env.ale.getFloat("repeat_action_probability") == 0.0
    assert AtariEnv("pong", num_img_obs=2).reset().shape == (2, 104, 80)


def test_observation_pipeline_matches_naive_loop():
    env = AtariEnv("pong")
    env.reset()
    rng = np.random.default_rng(0)
    env._raw[:] = rng.integers(0, 256, env._raw.shape, dtype=np.uint8)
    env._push_frame()
    newest = env._observation()[-1]
    np.testing.assert_array_equal(newest, naive_frame(env._raw[0], env._raw[1]))


@pytest.mark.parametrize("frame_skip", [1, 4])
def test_step_observation_is_processed_current_screen(frame_skip):
    env = AtariEnv("breakout", frame_skip=frame_skip)
    env.reset()
    for _ in range(5):
        obs = env.step(1).observation
    screen = env.ale.getScreenGrayscale()
    previous = env._raw[0]  # the frame before the last one of the skip (itself if skip 1)
    np.testing.assert_array_equal(obs[-1], naive_frame(screen, previous))
    if frame_skip == 1:
        np.testing.assert_array_equal(previous, screen)


def test_frame_stack_shifts_oldest_to_newest():
    env = AtariEnv("pong", max_start_noops=0)
    obs = env.reset()
    assert not obs[:-1].any() and obs[-1].any()  # older frames zero after reset
    previous = obs
    for _ in range(6):
        obs = env.step(0).observation
        np.testing.assert_array_equal(obs[:-1], previous[1:])
        previous = obs


def test_equal_seeds_identical_streams_different_seeds_differ():
    actions = np.random.default_rng(1).integers(0, 6, 60)

    def stream(seed):
        env = AtariEnv("pong")
        if seed is not None:
            env.seed(seed)
        frames = []
        for _ in range(2):  # two episodes' starts: the no-op counts come from the seed
            frames.append(env.reset())
            frames += [s.observation for s in play(env, actions[:30])]
        return np.stack(frames)

    np.testing.assert_array_equal(stream(5), stream(5))
    np.testing.assert_array_equal(stream(None), stream(None))  # default seed: deterministic
    assert not np.array_equal(stream(5), stream(6))


def test_life_loss_is_done_without_traj_done_and_zeroes_stack():
    env = AtariEnv("breakout", fire_on_reset=True)
    env.seed(0)
    env.reset()
    lives = env.lives
    steps = play(env, np.random.default_rng(0).integers(0, 4, 3000))
    last = steps[-1]
    assert last.done and not last.env_info.traj_done and not last.env_info.timeout
    assert env.lives == lives - 1
    assert not last.observation[:-1].any() and last.observation[-1].any()


def test_without_episodic_lives_only_game_over_ends_episode():
    env = AtariEnv("breakout", episodic_lives=False)
    env.seed(0)
    env.reset()
    steps = play(env, np.random.default_rng(0).integers(0, 4, 20000))
    assert steps[-1].done and steps[-1].env_info.traj_done and not steps[-1].env_info.timeout
    assert env.lives == 0
    assert not any(s.done for s in steps[:-1])


def test_clipped_reward_is_sign_of_raw_game_score():
    actions = np.random.default_rng(0).integers(0, 6, 600)
    clipped_env, raw_env = AtariEnv("space_invaders"), AtariEnv("space_invaders", clip_reward=False)
    clipped_env.reset()
    raw_env.reset()
    clipped, raw = play(clipped_env, actions), play(raw_env, actions)
    scores = np.array([s.env_info.game_score for s in clipped])
    assert scores.max() > 1  # invaders are worth 5..30 points
    np.testing.assert_array_equal([s.reward for s in clipped], np.sign(scores))
    np.testing.assert_array_equal([s.reward for s in raw], [s.env_info.game_score for s in raw])
    np.testing.assert_array_equal([s.env_info.game_score for s in raw], scores)


def test_horizon_ends_episode_after_exactly_horizon_steps():
    env = AtariEnv("pong", horizon=10)
    for _ in range(2):  # and again after a reset
        env.reset()
        steps = play(env, [0] * 20)
        assert len(steps) == 10
        assert not any(s.done for s in steps[:-1])
        info = steps[-1].env_info
        assert steps[-1].done and info.traj_done and info.timeout


def test_traj_info_sums_game_score_and_clipped_return():
    env = AtariEnv("space_invaders")
    env.reset()
    traj_info = AtariTrajInfo()
    steps = play(env, np.random.default_rng(0).integers(0, 6, 300))
    for step in steps:
        traj_info.step(step.observation, 0, step.reward, step.done, None, step.env_info)
    assert traj_info.GameScore == sum(float(s.env_info.game_score) for s in steps)
    assert traj_info.GameScore > traj_info.Return > 0
    assert traj_info.Length == len(steps)


@pytest.mark.parametrize("name, suggestion", [("pongg", "'pong'"), ("spaceinvaders", "space_")])
def test_unknown_game_lists_closest_names(name, suggestion):
    with pytest.raises(ValueError, match=suggestion):
        AtariEnv(name)


def test_render_returns_rgb_screen_and_close_is_idempotent():
    env = AtariEnv("pong")
    env.reset()
    frame = env.render()
    assert frame.shape == (210, 160, 3) and frame.dtype == np.uint8
    env.close()
    assert not hasattr(env, "ale")  # the emulator is released
    env.close()


@pytest.mark.parametrize("sticky", [0.0, 0.25])
def test_pickled_env_continues_exactly_where_the_original_is(sticky):
    import pickle

    env = AtariEnv("breakout", repeat_action_probability=sticky, fire_on_reset=True)
    env.seed(5)
    env.reset()
    rng = np.random.default_rng(0)
    play(env, rng.integers(4, size=60))
    copy = pickle.loads(pickle.dumps(env))
    # Sticky actions draw from ALE's RNG and resets from the no-op RNG: both are restored.
    for action in rng.integers(4, size=400):
        a, b = env.step(action), copy.step(action)
        assert np.array_equal(a.observation, b.observation)
        assert (a.reward, a.done, a.env_info) == (b.reward, b.done, b.env_info)
        if a.env_info.traj_done:
            assert np.array_equal(env.reset(), copy.reset())
    assert copy.lives == env.lives and copy.get_action_meanings() == env.get_action_meanings()
