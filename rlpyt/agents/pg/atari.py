"""Policy-gradient agents for Atari: categorical policies over conv models of stacked frames.

Each agent is a categorical PG agent with :class:`AtariMixin` and its default model class.
"""

from __future__ import annotations

from rlpyt.agents.model_keywords import AtariMixin
from rlpyt.agents.pg.categorical import (
    AlternatingRecurrentCategoricalPgAgent,
    CategoricalPgAgent,
    RecurrentCategoricalPgAgent,
)
from rlpyt.models.pg.atari_ff_model import AtariFfModel
from rlpyt.models.pg.atari_lstm_model import AtariLstmModel


class AtariFfAgent(AtariMixin, CategoricalPgAgent):
    """Feed-forward A2C/PPO agent for Atari; default model :class:`AtariFfModel`."""

    default_model_cls = AtariFfModel


class AtariLstmAgent(AtariMixin, RecurrentCategoricalPgAgent):
    """Recurrent A2C/PPO agent for Atari; default model :class:`AtariLstmModel`."""

    default_model_cls = AtariLstmModel


class AlternatingAtariLstmAgent(AtariMixin, AlternatingRecurrentCategoricalPgAgent):
    """Recurrent Atari agent for the alternating samplers; default model :class:`AtariLstmModel`."""

    default_model_cls = AtariLstmModel
