"""AtariCatDqnAgent: ``CatDqnAgent`` with Atari model keywords and ``AtariCatDqnModel``."""

from __future__ import annotations

from rlpyt.agents.dqn.catdqn_agent import CatDqnAgent
from rlpyt.agents.model_keywords import atari_model_kwargs
from rlpyt.models.dqn.atari_catdqn_model import AtariCatDqnModel


class AtariCatDqnAgent(CatDqnAgent):
    """Categorical DQN agent for Atari; the model gets ``image_shape``, ``output_size``."""

    default_model_cls = AtariCatDqnModel
    env_model_kwargs_fn = staticmethod(atari_model_kwargs)
