"""A2C and PPO reject invalid hyperparameters at construction.

Without the checks, ``PPO(discount=1.5)``, ``PPO(minibatches=0)`` and the like are accepted and
fail later (or never), and ``PPO(minibatches=1000)`` on a 128-sample batch is capped silently
(with them: with one warning).
"""

import warnings

import pytest

from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from tests.unit.algos.test_pg_algos import sampled_batch

SHARED_INVALID = [
    ("discount", 1.5, "a number in [0, 1]"),
    ("discount", -0.1, "a number in [0, 1]"),
    ("learning_rate", 0, "a number > 0"),
    ("learning_rate", -1e-3, "a number > 0"),
    ("learning_rate", float("nan"), "a number > 0"),
    ("clip_grad_norm", 0, "a number > 0"),
    ("gae_lambda", 1.01, "a number in [0, 1]"),
    ("value_loss_coeff", -0.5, "a number >= 0"),
    ("entropy_loss_coeff", float("inf"), "a finite number"),
]

PPO_INVALID = [
    ("minibatches", 0, "an integer >= 1"),
    ("minibatches", 2.5, "an integer >= 1"),
    ("epochs", 0, "an integer >= 1"),
    ("epochs", -3, "an integer >= 1"),
    ("ratio_clip", 0, "a number > 0"),
    ("ratio_clip", -0.1, "a number > 0"),
]


@pytest.mark.parametrize("AlgoCls", [A2C, PPO])
@pytest.mark.parametrize(("keyword", "value", "valid"), SHARED_INVALID)
def test_invalid_shared_hyperparameter_fails_at_construction_naming_it(
    AlgoCls, keyword, value, valid
):
    with pytest.raises(ValueError) as info:
        AlgoCls(**{keyword: value})
    message = str(info.value)
    assert f"{AlgoCls.__name__}: {keyword}={value!r} is invalid" in message
    assert f"it must be {valid}" in message


@pytest.mark.parametrize(("keyword", "value", "valid"), PPO_INVALID)
def test_invalid_ppo_hyperparameter_fails_at_construction_naming_it(keyword, value, valid):
    with pytest.raises(ValueError, match=rf"PPO: {keyword}={value!r} is invalid; it must be"):
        PPO(**{keyword: value})
    with pytest.raises(ValueError) as info:
        PPO(**{keyword: value})
    assert valid in str(info.value)


def test_a_non_number_fails_with_a_type_error_naming_the_keyword():
    with pytest.raises(TypeError, match=r"A2C: learning_rate='1e-3' is not a number"):
        A2C(learning_rate="1e-3")


def test_valid_edges_are_accepted_and_integral_floats_become_ints():
    algo = PPO(discount=1.0, gae_lambda=0.0, clip_grad_norm=float("inf"), minibatches=4.0)
    assert algo.minibatches == 4 and isinstance(algo.minibatches, int)
    assert algo.clip_grad_norm == float("inf")
    A2C(discount=0.0, entropy_loss_coeff=0.0, value_loss_coeff=0.0)


def test_ppo_more_minibatches_than_samples_warns_once_with_the_value_used():
    algo = PPO(minibatches=1000, epochs=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _agent, samples = sampled_batch(algo, batch_T=32)  # 32 x 4 = 128 samples
        algo.optimize_agent(0, samples)
        algo.optimize_agent(1, samples)
    messages = [str(w.message) for w in caught if "minibatches" in str(w.message)]
    assert messages == [
        "PPO: minibatches=1000 exceeds the 128 samples of a batch (batch_T=32, batch_B=4); "
        "using minibatches=128 of 1 sample each. Pass minibatches <= 128 to silence this."
    ]
    assert algo._batch_size == 1
    opt_info = algo.optimize_agent(2, samples)
    assert len(opt_info.loss) == 128  # one gradient step per used minibatch


def test_ppo_minibatches_within_the_batch_do_not_warn():
    algo = PPO(minibatches=128, epochs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sampled_batch(algo, batch_T=32)
    assert algo._batch_size == 1
