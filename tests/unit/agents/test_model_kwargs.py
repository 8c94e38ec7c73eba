"""rlpyt's ``model_kwargs`` keep working: what rlpyt let a user set in them, a user may still set.

Every agent is built with the model keywords that rlpyt's examples and configs pass (the shipped
config modules under ``rlpyt.experiments.configs`` carry rlpyt's, plus the classic-control
ones), then with keywords that the agent also derives from the env: equal ones are accepted, a
derived choice the user overrides (DDPG's ``output_max``) is used with one warning, and a shape
that contradicts the env is refused with a message naming both values.
"""

import importlib
import pkgutil
import warnings

import pytest
import torch

import rlpyt.experiments.configs
from rlpyt.agents.dqn.atari.atari_catdqn_agent import AtariCatDqnAgent
from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.agents.dqn.atari.atari_r2d1_agent import AtariR2d1Agent, AtariR2d1AlternatingAgent
from rlpyt.agents.dqn.classic import ClassicCatDqnAgent, ClassicDqnAgent, ClassicR2d1Agent
from rlpyt.agents.model_keywords import model_keywords, required_keywords, same_value
from rlpyt.agents.pg.atari import AtariFfAgent, AtariLstmAgent
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.agents.pg.mujoco import MujocoFfAgent
from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.agents.qpg.sac_v_agent import SacAgent as SacVAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.models.qpg.mlp import MuMlpModel, QofMuMlpModel
from tests.unit.agents.agent_helpers import (
    IMAGE_SHAPE,
    OBS_SHAPE,
    atari_spaces,
    classic_spaces,
    mujoco_spaces,
)


def agent_of(module, key):
    """The agent class rlpyt's (or our) train script builds for config ``key`` of ``module``."""
    family = module.rsplit(".", 1)[-1]
    if family in ("atari_dqn", "atari_dqn_debug"):
        return AtariCatDqnAgent if key in ("catdqn", "ernbw") else AtariDqnAgent
    if family == "atari_r2d1":
        return AtariR2d1AlternatingAgent if key.startswith("async_alt") else AtariR2d1Agent
    table = {
        "atari_ff_a2c": AtariFfAgent,
        "atari_ff_ppo": AtariFfAgent,
        "atari_ff_ppo_envpool": AtariFfAgent,
        "atari_lstm_a2c": AtariLstmAgent,
        "atari_lstm_ppo": AtariLstmAgent,
        "cartpole_dqn": ClassicCatDqnAgent if key == "catdqn" else ClassicDqnAgent,
        "cartpole_dqn_async": ClassicDqnAgent,
        "cartpole_r2d1": ClassicR2d1Agent,
        "cartpole_a2c": ClassicFfAgent,
        "cartpole_ppo": ClassicFfAgent,
        "cartpole_ppo_vec": ClassicFfAgent,
        "pendulum_ppo": MujocoFfAgent,
        "mujoco_a2c": MujocoFfAgent,
        "mujoco_ppo": MujocoFfAgent,
        "pendulum_ddpg": DdpgAgent,
        "mujoco_ddpg": DdpgAgent,
        "pendulum_td3": Td3Agent,
        "mujoco_td3": Td3Agent,
        "pendulum_sac": SacAgent,
        "mujoco_sac": SacAgent,
        "mujoco_sac_v": SacVAgent,
        "pendulum_sac_v": SacVAgent,
    }
    return table[family]


def shipped_agent_configs():
    """``(id, AgentCls, keywords)`` per distinct agent build of every shipped config."""
    seen, cases = set(), []
    root = rlpyt.experiments.configs
    for info in pkgutil.walk_packages(root.__path__, root.__name__ + "."):
        configs = getattr(importlib.import_module(info.name), "configs", None)
        for key, config in (configs or {}).items():
            AgentCls = agent_of(info.name, key)  # noqa: N806
            kwargs = dict(config.get("agent", {}))
            if config.get("model") is not None:  # scripts pass model_kwargs=config["model"]
                kwargs["model_kwargs"] = config["model"]
            signature = (AgentCls, repr(sorted(kwargs.items())))
            if signature not in seen:
                seen.add(signature)
                cases.append((f"{info.name.rsplit('.', 1)[-1]}:{key}", AgentCls, kwargs))
    return cases


def spaces_for(AgentCls):  # noqa: N803
    if AgentCls.__module__.startswith("rlpyt.agents.qpg") or AgentCls is MujocoFfAgent:
        return mujoco_spaces()
    return atari_spaces() if "Atari" in AgentCls.__name__ else classic_spaces()


CASES = shipped_agent_configs()
# rlpyt's examples and the keywords its configs and tests pass (inventory sections 1.2, 2.8).
RLPYT_CALLS = [
    (AtariDqnAgent, {}),
    (AtariDqnAgent, dict(model_kwargs=dict(dueling=True), eps_final_min=0.0005)),
    (AtariCatDqnAgent, dict(n_atoms=51, model_kwargs=dict(dueling=False))),
    (AtariR2d1Agent, dict(model_kwargs=dict(dueling=True))),
    (AtariFfAgent, {}),
    (AtariLstmAgent, dict(model_kwargs={})),
    (MujocoFfAgent, dict(model_kwargs={})),
    (DdpgAgent, dict(model_kwargs=None, q_model_kwargs=None)),
    (Td3Agent, dict(model_kwargs=None, q_model_kwargs=None)),
    (SacAgent, dict(model_kwargs=None, q_model_kwargs=None, v_model_kwargs=None)),
    (SacAgent, dict(pretrain_std=0.0)),
    (SacVAgent, dict(model_kwargs=None, q_model_kwargs=None, v_model_kwargs=None)),
    (DdpgAgent, dict(model_kwargs=dict(output_max=2.0))),  # h = 2 here: no warning
    (Td3Agent, dict(model_kwargs=dict(output_max=2.0))),
]


def test_every_shipped_config_is_covered():
    families = {case_id.split(":")[0] for case_id, _, _ in CASES}
    assert {"atari_dqn", "atari_r2d1", "mujoco_td3", "mujoco_sac_v", "cartpole_r2d1"} <= families


@pytest.mark.parametrize(("AgentCls", "kwargs"), [case[1:] for case in CASES] + RLPYT_CALLS)
def test_agents_build_with_rlpyts_model_kwargs(AgentCls, kwargs):  # noqa: N803
    agent = AgentCls(**kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none of these keywords contradicts the env
        agent.initialize(spaces_for(AgentCls))
    for key, value in (kwargs.get("model_kwargs") or {}).items():
        assert agent.model_kwargs[key] == value  # the user's keywords are the agent's


@pytest.mark.parametrize("AgentCls", [DdpgAgent, Td3Agent])
def test_output_max_from_model_kwargs_wins_with_one_warning(AgentCls):  # noqa: N803
    agent = AgentCls(model_kwargs=dict(output_max=1.0, hidden_sizes=[8]))
    with pytest.warns(
        UserWarning, match=r"output_max=1\.0 is used in place of the output_max=2\.0"
    ):
        agent.initialize(mujoco_spaces())  # h = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.initialize(mujoco_spaces())  # rebuilt: no second warning
    observation = 100 * torch.randn(64, *OBS_SHAPE)
    for mu_model in (agent.model, agent.target_model):  # the target copies the user's choice
        mu = mu_model(observation, None, None)
        assert 0.9 < mu.abs().max() <= 1.0


def test_model_kwargs_without_hidden_sizes_get_the_agents_default_network():
    agent = DdpgAgent(model_kwargs=dict(output_max=2.0), q_model_kwargs={})
    agent.initialize(mujoco_spaces())
    sizes = [
        layer.out_features for layer in agent.model.modules() if hasattr(layer, "out_features")
    ]
    assert sizes == [400, 300, 2]
    assert "hidden_sizes" in required_keywords(QofMuMlpModel)
    assert "output_max" not in required_keywords(MuMlpModel)


@pytest.mark.parametrize(
    ("AgentCls", "spaces", "kwargs"),
    [
        (ClassicDqnAgent, classic_spaces, dict(observation_shape=OBS_SHAPE, output_size=3)),
        (AtariDqnAgent, atari_spaces, dict(image_shape=list(IMAGE_SHAPE), dueling=True)),
        (DdpgAgent, mujoco_spaces, dict(observation_shape=OBS_SHAPE, hidden_sizes=[8])),
    ],
)
def test_env_keywords_equal_to_the_envs_are_accepted(AgentCls, spaces, kwargs):  # noqa: N803
    agent = AgentCls(model_kwargs=kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.initialize(spaces())


@pytest.mark.parametrize(
    ("AgentCls", "spaces", "kwargs", "message"),
    [
        (ClassicDqnAgent, classic_spaces, dict(output_size=7), r"output_size=7 contradicts"),
        (AtariFfAgent, atari_spaces, dict(image_shape=(4, 84, 84)), r"image_shape=\(4, 84, 84\)"),
        (SacAgent, mujoco_spaces, dict(action_size=6), r"SacAgent: model_kwargs action_size=6"),
    ],
)
def test_a_shape_that_contradicts_the_env_is_refused_clearly(AgentCls, spaces, kwargs, message):  # noqa: N803
    agent = AgentCls(model_kwargs=kwargs)
    with pytest.raises(TypeError, match=message):
        agent.initialize(spaces())


def test_q_model_kwargs_are_checked_under_their_own_name():
    agent = Td3Agent(q_model_kwargs=dict(observation_shape=(9,), hidden_sizes=[8]))
    with pytest.raises(TypeError, match=r"Td3Agent: q_model_kwargs observation_shape=\(9,\)"):
        agent.initialize(mujoco_spaces())


def test_model_keywords_merges_in_order_of_authority():
    warned = set()
    with pytest.warns(UserWarning, match="output_max=3"):
        kwargs = model_keywords(
            "A", "model_kwargs", dict(output_max=3, size=[4]), dict(size=(4,)),
            dict(output_max=1), dict(hidden_sizes=[5], output_max=9), warned,
        )  # fmt: skip
    assert kwargs == dict(hidden_sizes=[5], output_max=3, size=(4,))
    assert warned == {"model_kwargs.output_max"}
    assert same_value([1, 2], (1, 2)) and not same_value((1, 2), (2, 1))
    assert not same_value(torch.zeros(2), torch.zeros(3))
