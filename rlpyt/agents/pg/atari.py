"""Policy-gradient agents for Atari: categorical policies over conv models of stacked frames.

Each agent is a categorical PG agent with the Atari model keywords (``atari_model_kwargs``) and
its default model class. ``AtariMixin`` (rlpyt's name, exported here) gives the same keywords
to an agent family combined with it.
"""

from __future__ import annotations

from rlpyt.agents.model_keywords import AtariMixin, atari_model_kwargs
from rlpyt.agents.pg.categorical import (
    AlternatingRecurrentCategoricalPgAgent,
    CategoricalPgAgent,
    RecurrentCategoricalPgAgent,
)
from rlpyt.models.pg.atari_ff_model import AtariFfModel
from rlpyt.models.pg.atari_lstm_model import AtariLstmModel

__all__ = ["AlternatingAtariLstmAgent", "AtariFfAgent", "AtariLstmAgent", "AtariMixin"]


class AtariFfAgent(CategoricalPgAgent):
    """Feed-forward A2C/PPO agent for Atari; default model :class:`AtariFfModel`."""

    default_model_cls = AtariFfModel
    env_model_kwargs_fn = staticmethod(atari_model_kwargs)


class AtariLstmAgent(RecurrentCategoricalPgAgent):
    """Recurrent A2C/PPO agent for Atari; default model :class:`AtariLstmModel`."""

    default_model_cls = AtariLstmModel
    env_model_kwargs_fn = staticmethod(atari_model_kwargs)


class AlternatingAtariLstmAgent(AlternatingRecurrentCategoricalPgAgent):
    """Recurrent Atari agent for the alternating samplers; default model :class:`AtariLstmModel`."""

    default_model_cls = AtariLstmModel
    env_model_kwargs_fn = staticmethod(atari_model_kwargs)
