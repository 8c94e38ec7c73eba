"""A ``--set`` value not of its keyword's type fails while the config is built, naming the key
and the expected type (the constructor's annotation, else the type of the default or of the
config's value), before any component is constructed.
"""

import pytest

from rlpyt.cli.config import build_config
from rlpyt.cli.overrides import describe_type, type_matches
from rlpyt.cli.resolve import resolve
from rlpyt.cli.spec import RunSpec


def build(algo="ppo", env="CartPole-v1", **overrides):
    return build_config(resolve(RunSpec(algo=algo, env=env, overrides=overrides)))


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("algo.epochs", 2.5, "expected an int (e.g. 20), not the number 2.5"),
        ("algo.learning_rate", "abc", "expected a number (e.g. 0.001), not the text 'abc'"),
        ("algo.normalize_advantage", 1, "expected true or false, not the int 1"),
        (
            "model.hidden_sizes",
            "abc",
            "expected an int, a list of ints or none (e.g. [64,64]), not the text 'abc'",
        ),
        ("model.hidden_sizes", [64, 6.5], "not the list [64,6.5]"),
        ("runner.target_reward", "high", "expected a number or none"),
        ("sampler.batch_T", "abc", "expected an int (e.g. 32), not the text 'abc'"),  # config's
        ("optim.betas", 7, "expected a list of 2 values (e.g. [0.9,0.999]), not the int 7"),
        ("agent.model_kwargs.hidden_sizes", "abc", "expected an int, a list of ints or none"),
    ],
)
def test_a_value_of_the_wrong_type_names_the_key_and_the_type(key, value, expected):
    with pytest.raises(ValueError, match="^--set ") as caught:
        build(**{key: value})
    message = str(caught.value)
    assert message.startswith(f"--set {key}="), message
    assert expected in message, message


@pytest.mark.parametrize(
    "key, value",
    [
        ("algo.epochs", 4),
        ("algo.learning_rate", 1),  # an int is a number
        ("algo.normalize_advantage", False),
        ("model.hidden_sizes", [32, 32]),
        ("model.hidden_sizes", 16),
        ("model.hidden_sizes", None),
        ("runner.target_reward", None),
        ("runner.target_reward", 475),
        ("optim.betas", [0.8, 0.9]),
        ("env.max_episode_steps", "anything"),  # gymnasium's free keywords: not checked
    ],
)
def test_values_of_the_right_type_pass(key, value):
    assert build(**{key: value}).config[key.split(".")[0]][key.split(".")[1]] == value


def test_dqn_keys_are_checked_too():
    with pytest.raises(ValueError, match=r"--set algo\.batch_size=big: expected an int"):
        build(algo="dqn", **{"algo.batch_size": "big"})


@pytest.mark.parametrize(
    "annotation, value, matches",
    [
        (int | None, None, True),
        (int | None, True, False),  # a bool is no int here
        (float, 3, True),
        (tuple[float, ...], (1, 2.5), True),
        (tuple[int, int], [1], False),
        (dict[str, int], {"a": 1}, True),
        (type[object], "x", None),  # cannot tell: left to the class
    ],
)
def test_type_matches(annotation, value, matches):
    assert type_matches(value, annotation) is matches


def test_describe_type():
    assert describe_type(int | list[int] | None) == "an int, a list of ints or none"
    assert describe_type(list[float]) == "a list of numbers"
