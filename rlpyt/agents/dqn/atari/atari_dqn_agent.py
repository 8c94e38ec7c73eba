"""AtariDqnAgent: ``DqnAgent`` with Atari model keywords and ``AtariDqnModel`` by default."""

from __future__ import annotations

from rlpyt.agents.dqn.atari.mixin import AtariMixin
from rlpyt.agents.dqn.dqn_agent import DqnAgent
from rlpyt.models.dqn.atari_dqn_model import AtariDqnModel


class AtariDqnAgent(AtariMixin, DqnAgent):
    """DQN agent for Atari; the model gets ``image_shape`` and ``output_size`` from the env.

    Constructor keywords: those of :class:`~rlpyt.agents.dqn.dqn_agent.DqnAgent`; default model
    :class:`~rlpyt.models.dqn.atari_dqn_model.AtariDqnModel`.
    """

    default_model_cls = AtariDqnModel
