"""TrajInfo statistics against a hand computation, and the discount as an instance argument."""

import pickle

import pytest

from rlpyt.envs.traj_info import TrajInfo, TrajInfoFactory
from rlpyt.samplers.collections import BatchSpec


def run_episode(traj_info, rewards):
    for r in rewards:
        traj_info.step(None, None, r, False, None, None)
    return traj_info.terminate(None)


def test_statistics_match_a_naive_loop():
    rewards = [1.0, 0.0, -2.0, 3.5]
    info = run_episode(TrajInfo(discount=0.9), rewards)
    assert info.Length == 4 and info.Return == pytest.approx(2.5)
    assert info.NonzeroRewards == 3
    assert info.DiscountedReturn == pytest.approx(sum(r * 0.9**t for t, r in enumerate(rewards)))


def test_discount_is_per_instance_and_defaults_to_the_class_attribute():
    undiscounted = run_episode(TrajInfo(), [1.0, 1.0, 1.0])
    discounted = run_episode(TrajInfo(discount=0.5), [1.0, 1.0, 1.0])
    assert undiscounted.DiscountedReturn == 3.0
    assert discounted.DiscountedReturn == pytest.approx(1.75)
    assert TrajInfo._discount == 1.0  # the class is never mutated


def test_factory_passes_keywords_and_pickles():
    factory = pickle.loads(pickle.dumps(TrajInfoFactory(TrajInfo, discount=0.5)))
    assert run_episode(factory(), [2.0, 2.0]).DiscountedReturn == pytest.approx(3.0)


def test_factory_falls_back_for_user_classes_without_keywords():
    class Legacy(TrajInfo):
        def __init__(self):
            super().__init__()

    info = run_episode(TrajInfoFactory(Legacy, discount=0.5)(), [2.0, 2.0])
    assert info.DiscountedReturn == pytest.approx(3.0)


def test_logged_fields_are_the_public_keys():
    assert [k for k in TrajInfo() if not k.startswith("_")] == [
        "Length",
        "Return",
        "NonzeroRewards",
        "DiscountedReturn",
    ]


def test_batch_spec_size():
    assert BatchSpec(5, 3).size == 15
