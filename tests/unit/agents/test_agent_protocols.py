"""The agent seams of the replay families at run time: each agent is what its algorithm uses.

``tests/typing_seams.py`` checks the same pairs statically (mypy compares signatures too);
here ``isinstance`` checks that the members exist on initialized agents, and that an agent of
another family is not taken for one.
"""

import pytest

from rlpyt.agents.dqn.classic import ClassicCatDqnAgent, ClassicDqnAgent, ClassicR2d1Agent
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.agents.qpg.sac_v_agent import SacAgent as SacVAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.protocols import (
    ActorCriticAgent,
    CategoricalQAgent,
    MinItrLearnAgent,
    MuQAgent,
    PiQAgent,
    QAgent,
    ReplayAgent,
    SharedMemoryAgent,
    SoftQAgent,
    SoftVAgent,
)
from tests.unit.agents.agent_helpers import classic_spaces, mujoco_spaces

SMALL = dict(model_kwargs=dict(hidden_sizes=[8]))
QPG_SMALL = dict(SMALL, q_model_kwargs=dict(hidden_sizes=[8]))
CASES = [
    (ClassicDqnAgent, SMALL, {QAgent}),
    (ClassicCatDqnAgent, SMALL, {QAgent, CategoricalQAgent}),
    (ClassicR2d1Agent, SMALL, {QAgent}),
    (DdpgAgent, QPG_SMALL, {ActorCriticAgent, MuQAgent}),
    (Td3Agent, QPG_SMALL, {ActorCriticAgent, MuQAgent, MinItrLearnAgent}),
    (SacAgent, QPG_SMALL, {ActorCriticAgent, PiQAgent, SoftQAgent, MinItrLearnAgent}),
    (
        SacVAgent,
        dict(QPG_SMALL, v_model_kwargs=dict(hidden_sizes=[8])),
        # SAC_V's agent keeps SAC's target_q (it raises), so it also looks like a SoftQAgent.
        {ActorCriticAgent, PiQAgent, SoftQAgent, SoftVAgent, MinItrLearnAgent},
    ),
    (ClassicFfAgent, SMALL, set()),
]
FAMILY = [
    QAgent,
    CategoricalQAgent,
    ActorCriticAgent,
    MuQAgent,
    PiQAgent,
    SoftQAgent,
    SoftVAgent,
    MinItrLearnAgent,
]


IDS = ["dqn", "catdqn", "r2d1", "ddpg", "td3", "sac", "sac_v", "pg"]


@pytest.mark.parametrize(("AgentCls", "kwargs", "protocols"), CASES, ids=IDS)
def test_each_agent_is_exactly_what_its_algorithms_use(AgentCls, kwargs, protocols):  # noqa: N803
    agent = AgentCls(**kwargs)
    qpg = AgentCls.__module__.startswith("rlpyt.agents.qpg")
    agent.initialize(mujoco_spaces() if qpg else classic_spaces())
    assert isinstance(agent, SharedMemoryAgent) and isinstance(agent, ReplayAgent)
    assert {protocol for protocol in FAMILY if isinstance(agent, protocol)} == protocols
