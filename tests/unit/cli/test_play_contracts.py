"""What ``rlpyt play`` reads of the parts it rebuilds: declared members, not probes.

``--deterministic`` tells the distribution by its class (Gaussian: std 0, epsilon-greedy:
epsilon 0, categorical: the most probable action); the env keywords come from the sampler's
declared ``eval_env_kwargs`` (resolved to ``env_kwargs`` when not given).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from rlpyt.cli import play
from rlpyt.distributions.categorical import Categorical, DistInfo
from rlpyt.distributions.epsilon_greedy import CategoricalEpsilonGreedy, EpsilonGreedy
from rlpyt.distributions.gaussian import Gaussian
from rlpyt.envs.gym import make as gym_make
from rlpyt.samplers.serial.sampler import SerialSampler


def test_gaussian_policies_act_on_their_mean():
    agent = SimpleNamespace(distribution=Gaussian(dim=2))
    play.make_deterministic(agent)
    assert torch.equal(agent.distribution.std, torch.zeros(2))


@pytest.mark.parametrize(
    "distribution",
    [EpsilonGreedy(0.5, dim=3), CategoricalEpsilonGreedy(torch.arange(3.0), 0.5, dim=3)],
    ids=["epsilon_greedy", "categorical_epsilon_greedy"],
)
def test_epsilon_greedy_agents_act_greedily(distribution):
    agent = SimpleNamespace(distribution=distribution)
    play.make_deterministic(agent)
    assert agent.distribution is distribution and distribution.epsilon == 0


def test_categorical_policies_take_the_most_probable_action():
    agent = SimpleNamespace(distribution=Categorical(dim=3))
    play.make_deterministic(agent)
    prob = torch.tensor([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    assert agent.distribution.sample(DistInfo(prob=prob)).tolist() == [1, 0]


def test_another_distribution_is_a_clear_error():
    class Other:  # has the methods' names, not the classes: not taken for one of them
        def set_std(self, std: float) -> None:
            raise AssertionError("not called")

    with pytest.raises(play.PlayError, match="Other deterministic"):
        play.make_deterministic(SimpleNamespace(distribution=Other()))


@pytest.mark.parametrize(
    ("eval_env_kwargs", "expected"),
    [(None, {"id": "CartPole-v1"}), ({"id": "CartPole-v0"}, {"id": "CartPole-v0"})],
    ids=["resolved_from_env_kwargs", "given"],
)
def test_env_keywords_come_from_the_samplers_declaration(monkeypatch, eval_env_kwargs, expected):
    env_kwargs = {"id": "CartPole-v1"}
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=env_kwargs,
        eval_env_kwargs=eval_env_kwargs,
        batch_T=2,
        batch_B=1,
    )
    components = SimpleNamespace(
        agent="agent", sampler=sampler, EnvCls=gym_make, env_kwargs=env_kwargs, TrajInfoCls=dict
    )
    monkeypatch.setattr(play, "build_components", lambda spec: components)
    monkeypatch.setattr(play.RunSpec, "from_dict", staticmethod(lambda cli: cli))
    agent, _, kwargs, traj_info_cls = play._from_cli_section({})
    assert (agent, kwargs, traj_info_cls) == ("agent", expected, dict)
