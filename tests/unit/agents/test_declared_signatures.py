"""Every agent's constructor is the one rlpyt scripts call, whatever builds it.

``RECORDED`` holds, for each public agent class and agent mixin (at the path that defines it),
its constructor signature without annotations: names, kinds, defaults and positional order.
The derived signatures must match it exactly, so a declaration that moves, renames,
re-defaults or changes the kind of a keyword fails here. ``ALIASES``: rlpyt's other import
paths of the same classes.

``VARIADIC``: the two mixins whose constructor took ``*args`` / ``**kwargs`` and passed them on
(``EpsilonGreedyAgentMixin``: the ``eps_*`` keywords, keyword-only, then the next class's;
``MinItrLearnMixin``: everything for the next class). Their signatures may change; every call
that bound before must still bind the same way (tested below).
"""

import importlib
import inspect
import pkgutil

import pytest

import rlpyt.agents
from rlpyt.agents.base import BaseAgent

BASE = "ModelCls=None, model_kwargs=None, initial_model_state_dict=None"
EPS = (
    "eps_init=1, eps_final=0.01, eps_final_min=None, eps_itr_min=50, eps_itr_max=1000, "
    "eps_eval=0.001"
)
DQN = f"({BASE}, {EPS})"
CAT_DQN = f"({BASE}, n_atoms=51, {EPS})"
MLP = "<class 'rlpyt.models.qpg.mlp."  # a default model class of the QPG agents
RECORDED = {
    "rlpyt.agents.base:BaseAgent": f"({BASE})",
    "rlpyt.agents.dqn.atari.atari_catdqn_agent:AtariCatDqnAgent": CAT_DQN,
    "rlpyt.agents.dqn.atari.atari_dqn_agent:AtariDqnAgent": DQN,
    "rlpyt.agents.dqn.atari.atari_r2d1_agent:AtariR2d1Agent": DQN,
    "rlpyt.agents.dqn.atari.atari_r2d1_agent:AtariR2d1AlternatingAgent": DQN,
    "rlpyt.agents.dqn.catdqn_agent:CatDqnAgent": CAT_DQN,
    "rlpyt.agents.dqn.classic:ClassicCatDqnAgent": CAT_DQN,
    "rlpyt.agents.dqn.classic:ClassicDqnAgent": DQN,
    "rlpyt.agents.dqn.classic:ClassicDqnMixin": "()",
    "rlpyt.agents.dqn.classic:ClassicR2d1Agent": DQN,
    "rlpyt.agents.dqn.classic:ClassicR2d1AlternatingAgent": DQN,
    "rlpyt.agents.dqn.dqn_agent:DqnAgent": DQN,
    "rlpyt.agents.dqn.epsilon_greedy:EpsilonGreedyAgentMixin": f"(*, {EPS}, **kwargs)",
    "rlpyt.agents.dqn.r2d1_agent:R2d1Agent": DQN,
    "rlpyt.agents.dqn.r2d1_agent:R2d1AgentBase": DQN,
    "rlpyt.agents.dqn.r2d1_agent:R2d1AlternatingAgent": DQN,
    "rlpyt.agents.model_keywords:AtariMixin": "()",
    "rlpyt.agents.model_keywords:ClassicMixin": "()",
    "rlpyt.agents.pg.atari:AlternatingAtariLstmAgent": f"({BASE})",
    "rlpyt.agents.pg.atari:AtariFfAgent": f"({BASE})",
    "rlpyt.agents.pg.atari:AtariLstmAgent": f"({BASE})",
    "rlpyt.agents.pg.base:PgAgent": f"({BASE})",
    "rlpyt.agents.pg.base:RecurrentPgAgent": f"({BASE})",
    "rlpyt.agents.pg.categorical:AlternatingRecurrentCategoricalPgAgent": f"({BASE})",
    "rlpyt.agents.pg.categorical:CategoricalPgAgent": f"({BASE})",
    "rlpyt.agents.pg.categorical:CategoricalPgMixin": "()",
    "rlpyt.agents.pg.categorical:RecurrentCategoricalPgAgent": f"({BASE})",
    "rlpyt.agents.pg.categorical:RecurrentCategoricalPgAgentBase": f"({BASE})",
    "rlpyt.agents.pg.classic:ClassicFfAgent": f"({BASE})",
    "rlpyt.agents.pg.classic:ClassicLstmAgent": f"({BASE})",
    "rlpyt.agents.pg.gaussian:AlternatingRecurrentGaussianPgAgent": f"({BASE})",
    "rlpyt.agents.pg.gaussian:GaussianPgAgent": f"({BASE})",
    "rlpyt.agents.pg.gaussian:GaussianPgMixin": "()",
    "rlpyt.agents.pg.gaussian:RecurrentGaussianPgAgent": f"({BASE})",
    "rlpyt.agents.pg.gaussian:RecurrentGaussianPgAgentBase": f"({BASE})",
    "rlpyt.agents.pg.mujoco:AlternatingMujocoLstmAgent": f"({BASE})",
    "rlpyt.agents.pg.mujoco:MujocoFfAgent": f"({BASE})",
    "rlpyt.agents.pg.mujoco:MujocoLstmAgent": f"({BASE})",
    "rlpyt.agents.pg.mujoco:MujocoMixin": "()",
    "rlpyt.agents.qpg.base:MinItrLearnMixin": "(*args, **kwargs)",
    "rlpyt.agents.qpg.base:QpgAgent": f"({BASE})",
    "rlpyt.agents.qpg.base:TwinQMixin": f"({BASE})",
    "rlpyt.agents.qpg.ddpg_agent:DdpgAgent": (
        "("
        f"ModelCls={MLP}MuMlpModel'>, "
        f"QModelCls={MLP}QofMuMlpModel'>, "
        "model_kwargs=None, "
        "q_model_kwargs=None, "
        "initial_model_state_dict=None, "
        "initial_q_model_state_dict=None, "
        "action_std=0.1, "
        "action_noise_clip=None"
        ")"
    ),
    "rlpyt.agents.qpg.sac_agent:SacAgent": (
        "("
        f"ModelCls={MLP}PiMlpModel'>, "
        f"QModelCls={MLP}QofMuMlpModel'>, "
        "model_kwargs=None, "
        "q_model_kwargs=None, "
        "v_model_kwargs=None, "
        "initial_model_state_dict=None, "
        "action_squash=1.0, "
        "pretrain_std=0.75"
        ")"
    ),
    "rlpyt.agents.qpg.sac_v_agent:SacAgent": (
        "("
        f"ModelCls={MLP}PiMlpModel'>, "
        f"QModelCls={MLP}QofMuMlpModel'>, "
        f"VModelCls={MLP}VMlpModel'>, "
        "model_kwargs=None, "
        "q_model_kwargs=None, "
        "v_model_kwargs=None, "
        "initial_model_state_dict=None, "
        "action_squash=1.0, "
        "pretrain_std=0.75"
        ")"
    ),
    "rlpyt.agents.qpg.td3_agent:Td3Agent": (
        "("
        "pretrain_std=0.5, "
        "target_noise_std=0.2, "
        "target_noise_clip=0.5, "
        "initial_q2_model_state_dict=None, "
        f"ModelCls={MLP}MuMlpModel'>, "
        f"QModelCls={MLP}QofMuMlpModel'>, "
        "model_kwargs=None, "
        "q_model_kwargs=None, "
        "initial_model_state_dict=None, "
        "initial_q_model_state_dict=None, "
        "action_std=0.1, "
        "action_noise_clip=None"
        ")"
    ),
    "rlpyt.agents.recurrent:AlternatingRecurrentAgentMixin": "()",
    "rlpyt.agents.recurrent:RecurrentAgentMixin": "()",
}
ALIASES = {  # rlpyt's path -> the recorded path of the same class
    "rlpyt.agents.base:RecurrentAgentMixin": "rlpyt.agents.recurrent:RecurrentAgentMixin",
    "rlpyt.agents.base:AlternatingRecurrentAgentMixin": (
        "rlpyt.agents.recurrent:AlternatingRecurrentAgentMixin"
    ),
    "rlpyt.agents.pg.atari:AtariMixin": "rlpyt.agents.model_keywords:AtariMixin",
    "rlpyt.agents.dqn.atari.mixin:AtariMixin": "rlpyt.agents.model_keywords:AtariMixin",
    "rlpyt.agents.pg.classic:ClassicMixin": "rlpyt.agents.model_keywords:ClassicMixin",
}
VARIADIC = {
    "rlpyt.agents.dqn.epsilon_greedy:EpsilonGreedyAgentMixin",
    "rlpyt.agents.qpg.base:MinItrLearnMixin",
}


def load(path):
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def plain_signature(cls):
    """``str(inspect.signature(cls))`` without annotations (they are types, not records)."""
    signature = inspect.signature(cls)
    parameters = [p.replace(annotation=p.empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=parameters, return_annotation=signature.empty))


def public_agent_classes():
    """``module:name`` of every agent class and agent mixin defined in ``rlpyt.agents``."""
    for info in pkgutil.walk_packages(rlpyt.agents.__path__, "rlpyt.agents."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or not inspect.isclass(obj) or obj.__module__ != info.name:
                continue
            if issubclass(obj, BaseAgent) or name.endswith("Mixin"):
                yield f"{info.name}:{name}"


@pytest.mark.parametrize("path", sorted(set(RECORDED) - VARIADIC))
def test_signature_is_the_recorded_one(path):
    assert plain_signature(load(path)) == RECORDED[path]


def test_every_agent_class_is_recorded():
    assert set(public_agent_classes()) == set(RECORDED)


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_rlpyt_paths_name_the_recorded_classes(alias):
    assert load(alias) is load(ALIASES[alias])


def test_epsilon_mixin_binds_its_keywords_as_before():
    mixin = load("rlpyt.agents.dqn.epsilon_greedy:EpsilonGreedyAgentMixin")
    keywords = dict(eps_init=0.5, eps_final=0.1, eps_itr_min=3, eps_itr_max=9, eps_eval=0.0)
    agent = mixin(**keywords)
    assert {name: getattr(agent, name) for name in keywords} == keywords
    assert agent.eps_final_min is None


def test_min_itr_learn_mixin_binds_its_call_as_before():
    mixin = load("rlpyt.agents.qpg.base:MinItrLearnMixin")
    agent = mixin()  # the one call that bound before (everything else went to object)
    assert agent.min_itr_learn == 0
