"""MuJoCo envs through ``rlpyt.envs.gym.make``: rlpyt's retired ids, stepping with no display.

rlpyt's configs and examples name mujoco-py-era ids (``Hopper-v3``, ``HalfCheetah-v3``, ...);
``resolve_env_id`` maps each to the newest version gymnasium registers, with a warning. The
stepping tests need the mujoco extra (installed by ``make test``) and skip without it.
"""

import importlib.util
import os
import warnings

import numpy as np
import pytest

from rlpyt.envs.gym import make, resolve_env_id
from rlpyt.samplers.serial.sampler import SerialSampler

HAVE_MUJOCO = importlib.util.find_spec("mujoco") is not None
needs_mujoco = pytest.mark.skipif(not HAVE_MUJOCO, reason='needs pip install "rlpyt[mujoco]"')


@pytest.mark.parametrize("name", ["Hopper", "HalfCheetah", "Walker2d", "Ant", "Humanoid"])
def test_rlpyts_v3_ids_map_to_v5_with_a_warning(name):
    with pytest.warns(UserWarning, match=rf"'{name}-v3' is retired.*'{name}-v5'"):
        assert resolve_env_id(f"{name}-v3") == f"{name}-v5"
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert resolve_env_id(f"{name}-v5") == f"{name}-v5"


@needs_mujoco
@pytest.mark.parametrize(
    ("env_id", "obs_size", "action_size"), [("HalfCheetah-v5", 17, 6), ("Hopper-v3", 11, 3)]
)
def test_mujoco_env_steps_without_a_display(env_id, obs_size, action_size, monkeypatch):
    monkeypatch.delenv("MUJOCO_GL", raising=False)  # Stepping renders nothing: no GL needed.
    monkeypatch.delenv("DISPLAY", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Hopper-v3's retirement notice
        env = make(env_id)
    try:
        assert "MUJOCO_GL" not in os.environ
        assert env.spaces.observation.shape == (obs_size,)
        action_space = env.spaces.action
        assert action_space.shape == (action_size,)
        # The QPG agents need symmetric bounds equal in every dimension: MuJoCo's are [-1, 1].
        np.testing.assert_array_equal(action_space.high, np.ones(action_size))
        np.testing.assert_array_equal(action_space.low, -np.ones(action_size))
        observation = env.reset()
        assert observation.shape == (obs_size,) and np.all(np.isfinite(observation))
        for _ in range(5):
            step = env.step(action_space.sample())
            assert step.observation.shape == (obs_size,)
            assert np.isfinite(step.reward)
            assert step.env_info.timeout in (False, True)
    finally:
        env.close()


@needs_mujoco
def test_mujoco_time_limit_is_a_timeout_not_a_terminal():
    env = make("HalfCheetah-v5", max_episode_steps=3)  # HalfCheetah never terminates.
    try:
        env.reset()
        steps = [env.step(np.zeros(6, dtype=np.float32)) for _ in range(3)]
    finally:
        env.close()
    assert [step.done for step in steps] == [False, False, True]
    assert [bool(step.env_info.timeout) for step in steps] == [False, False, True]


@needs_mujoco
def test_sampler_checks_mujoco_env_kwargs_through_mujoco_env():
    # HopperEnv takes **kwargs and hands them to MujocoEnv: a keyword of either is accepted,
    # a misspelt one fails when the sampler is built, naming it.
    kwargs = dict(id="Hopper-v5", forward_reward_weight=2.0, width=64)
    SerialSampler(EnvCls=make, env_kwargs=kwargs, batch_T=1, batch_B=1)
    with pytest.raises(TypeError, match="'learning_rte', which HopperEnv does not accept"):
        SerialSampler(
            EnvCls=make, env_kwargs=dict(id="Hopper-v5", learning_rte=1), batch_T=1, batch_B=1
        )
