"""AtariCatDqnAgent: ``CatDqnAgent`` with Atari model keywords and ``AtariCatDqnModel``."""

from __future__ import annotations

from rlpyt.agents.dqn.atari.mixin import AtariMixin
from rlpyt.agents.dqn.catdqn_agent import CatDqnAgent
from rlpyt.models.dqn.atari_catdqn_model import AtariCatDqnModel


class AtariCatDqnAgent(AtariMixin, CatDqnAgent):
    """Categorical DQN agent for Atari; the model gets ``image_shape``, ``output_size``.

    Constructor keywords: those of :class:`~rlpyt.agents.dqn.catdqn_agent.CatDqnAgent`
    (``n_atoms`` included); default model
    :class:`~rlpyt.models.dqn.atari_catdqn_model.AtariCatDqnModel`.
    """

    default_model_cls = AtariCatDqnModel
