"""Samplers reject invalid numbers and env_kwargs at construction.

Without the checks, a negative ``max_decorrelation_steps`` or ``eval_max_steps=0`` is accepted,
and a misspelt ``env_kwargs`` keyword surfaces as the env constructor's own TypeError once envs
are built (in the parallel samplers, after the shared buffers are allocated).
"""

import pytest

from rlpyt.envs.gym import make as gym_make
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from tests.unit.samplers.sampler_helpers import ProbeEnv

SAMPLERS = [SerialSampler, CpuSampler, GpuSampler]
CARTPOLE = dict(id="CartPole-v1")

INVALID = [
    ("batch_T", 0, "an integer >= 1"),
    ("batch_B", -2, "an integer >= 1"),
    ("batch_T", 2.5, "an integer >= 1"),
    ("max_decorrelation_steps", -1, "an integer >= 0"),
    ("eval_n_envs", -1, "an integer >= 0"),
    ("eval_max_steps", 0, "an integer >= 1"),
    ("eval_max_trajectories", -5, "an integer >= 1"),
]


def make_sampler(SamplerCls, **kwargs):
    keywords = dict(EnvCls=gym_make, env_kwargs=CARTPOLE, batch_T=4, batch_B=2)
    keywords.update(kwargs)
    return SamplerCls(**keywords)


@pytest.mark.parametrize("SamplerCls", SAMPLERS)
@pytest.mark.parametrize(("keyword", "value", "valid"), INVALID)
def test_invalid_number_fails_at_construction_naming_keyword_value_and_range(
    SamplerCls, keyword, value, valid
):
    with pytest.raises(ValueError) as info:
        make_sampler(SamplerCls, **{keyword: value})
    assert str(info.value) == (
        f"{SamplerCls.__name__}: {keyword}={value!r} is invalid; it must be {valid}."
    )


def test_non_number_and_worker_timeout_are_checked():
    with pytest.raises(TypeError, match=r"SerialSampler: batch_B='2' is not a number"):
        make_sampler(SerialSampler, batch_B="2")
    with pytest.raises(ValueError, match=r"CpuSampler: worker_timeout=0 is invalid; it must be"):
        make_sampler(CpuSampler, worker_timeout=0)


def test_evaluation_without_a_step_budget_says_what_to_pass():
    with pytest.raises(ValueError, match=r"eval_n_envs=2 needs eval_max_steps .* eval_n_envs=0"):
        make_sampler(SerialSampler, eval_n_envs=2)


def test_valid_numbers_are_stored_as_ints():
    sampler = make_sampler(
        SerialSampler, batch_T=8.0, max_decorrelation_steps=0, eval_n_envs=1, eval_max_steps=1e3
    )
    assert sampler.batch_spec == (8, 2)
    assert sampler.eval_max_steps == 1000 and isinstance(sampler.eval_max_steps, int)


@pytest.mark.parametrize("SamplerCls", SAMPLERS)
def test_gym_env_kwargs_are_checked_against_the_registered_env(SamplerCls):
    with pytest.raises(TypeError) as info:
        make_sampler(SamplerCls, env_kwargs=dict(id="CartPole-v1", sutton_barto=True))
    assert str(info.value) == (
        f"{SamplerCls.__name__}: env_kwargs has 'sutton_barto', which CartPoleEnv does not "
        "accept; it accepts 'sutton_barto_reward', 'render_mode'."
    )
    # gymnasium.make's own keywords and the env's keywords pass.
    make_sampler(
        SamplerCls,
        env_kwargs=dict(id="CartPole-v1", max_episode_steps=50, sutton_barto_reward=True),
    )


def test_env_class_kwargs_are_checked_and_eval_env_kwargs_too():
    with pytest.raises(TypeError, match=r"env_kwargs has 'fail_sed', which ProbeEnv"):
        SerialSampler(ProbeEnv, dict(fail_sed=3), batch_T=4, batch_B=2)
    with pytest.raises(TypeError, match=r"SerialSampler: eval_env_kwargs has 'step_second'"):
        SerialSampler(
            ProbeEnv,
            {},
            batch_T=4,
            batch_B=2,
            eval_n_envs=1,
            eval_max_steps=10,
            eval_env_kwargs=dict(step_second=1),
        )


def test_unknown_gym_ids_and_kwargs_envs_are_left_to_the_env():
    # make reports an unregistered id itself when the env is built; nothing to check here.
    make_sampler(SerialSampler, env_kwargs=dict(id="NoSuchEnv-v0", foo=1))

    def any_env(**kwargs):
        return ProbeEnv()

    SerialSampler(any_env, dict(foo=1), batch_T=4, batch_B=2)
