"""The shared constructor checks: numbers in range, keywords a callable accepts."""

import math

import numpy as np
import pytest

from rlpyt.utils.checks import check_kwargs, check_number, space_description


def test_check_number_ranges_and_messages():
    assert check_number("X", "k", np.int64(3), low=1, integer=True) == 3
    assert check_number("X", "k", 0.5, low=0, high=1) == 0.5
    assert check_number("X", "k", math.inf, low=0, low_open=True, allow_inf=True) == math.inf
    with pytest.raises(ValueError, match=r"^X: k=1 is invalid; it must be a number in \[0, 1\)\.$"):
        check_number("X", "k", 1, low=0, high=1, high_open=True)
    with pytest.raises(ValueError, match=r"X: k=inf is invalid; it must be a number > 0\."):
        check_number("X", "k", math.inf, low=0, low_open=True)
    with pytest.raises(TypeError, match=r"X: k=True is not a number; it must be an integer >= 1"):
        check_number("X", "k", True, low=1, integer=True)
    with pytest.raises(TypeError, match=r"X: k=None is not a number"):
        check_number("X", "k", None, low=0)


def test_check_kwargs_names_unknown_and_missing_keywords():
    def env(size, *, noise=0.0):
        return size, noise

    check_kwargs("S", "env_kwargs", env, dict(size=3, noise=0.1))
    with pytest.raises(
        TypeError,
        match=r"S: env_kwargs has 'nosie', which .*env does not accept; "
        r"it accepts 'size', 'noise'\.",
    ):
        check_kwargs("S", "env_kwargs", env, dict(size=3, nosie=0.1))
    with pytest.raises(
        TypeError,
        match=r"S: env_kwargs does not fit .*env: missing a required "
        r"argument: 'size'",
    ):
        check_kwargs("S", "env_kwargs", env, dict(noise=0.1))


def test_check_kwargs_through_bases_follows_kwargs_to_the_base_init():
    class Base:
        def __init__(self, model_path, frame_skip=1, render_mode=None):
            pass

    class Env(Base):
        def __init__(self, forward_weight=1.0, **kwargs):
            super().__init__("env.xml", **kwargs)

    check_kwargs("S", "env_kwargs", Env, dict(forward_weight=2.0, render_mode="rgb_array"))
    check_kwargs("S", "env_kwargs", Env, dict(learning_rte=1))  # **kwargs: unchecked by default
    with pytest.raises(
        TypeError,
        match=r"S: env_kwargs has 'learning_rte', which .*Env does not accept; "
        r"it accepts 'forward_weight', 'model_path', 'frame_skip', 'render_mode'\.",
    ):
        check_kwargs("S", "env_kwargs", Env, dict(learning_rte=1), through_bases=True)

    class Anything:  # **kwargs all the way up: unchecked
        def __init__(self, **kwargs):
            pass

    class Deeper(Anything):
        def __init__(self, size=1, **kwargs):
            super().__init__(**kwargs)

    check_kwargs("S", "env_kwargs", Deeper, dict(whatever=1), through_bases=True)


def test_space_description_shows_the_gymnasium_space_where_wrapped():
    import gymnasium.spaces as gym_spaces

    from rlpyt.spaces.gym_wrapper import GymSpaceWrapper

    wrapped = GymSpaceWrapper(gym_spaces.MultiDiscrete([3, 4]))
    assert space_description(wrapped) == "MultiDiscrete([3 4])"
