"""AtariDqnAgent: ``DqnAgent`` with Atari model keywords and ``AtariDqnModel`` by default."""

from __future__ import annotations

from rlpyt.agents.dqn.dqn_agent import DqnAgent
from rlpyt.agents.model_keywords import atari_model_kwargs
from rlpyt.models.dqn.atari_dqn_model import AtariDqnModel


class AtariDqnAgent(DqnAgent):
    """DQN agent for Atari; the model gets ``image_shape`` and ``output_size`` from the env."""

    default_model_cls = AtariDqnModel
    env_model_kwargs_fn = staticmethod(atari_model_kwargs)
