"""Policy-gradient agents for Atari: categorical policies over conv models of stacked frames.

Each agent is a categorical PG agent with :class:`AtariMixin` and its default model class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlpyt.agents.pg.categorical import (
    AlternatingRecurrentCategoricalPgAgent,
    CategoricalPgAgent,
    RecurrentCategoricalPgAgent,
)
from rlpyt.models.pg.atari_ff_model import AtariFfModel
from rlpyt.models.pg.atari_lstm_model import AtariLstmModel

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces


class AtariMixin:
    """Model keywords from Atari env spaces: ``image_shape`` (C, H, W) and ``output_size``."""

    def make_env_to_model_kwargs(self, env_spaces: EnvSpaces) -> dict[str, Any]:
        """``image_shape=observation.shape``, ``output_size=action.n``."""
        return dict(
            image_shape=tuple(env_spaces.observation.shape),
            output_size=int(env_spaces.action.n),
        )


class AtariFfAgent(AtariMixin, CategoricalPgAgent):
    """Feed-forward A2C/PPO agent for Atari; default model :class:`AtariFfModel`."""

    default_model_cls = AtariFfModel


class AtariLstmAgent(AtariMixin, RecurrentCategoricalPgAgent):
    """Recurrent A2C/PPO agent for Atari; default model :class:`AtariLstmModel`."""

    default_model_cls = AtariLstmModel


class AlternatingAtariLstmAgent(AtariMixin, AlternatingRecurrentCategoricalPgAgent):
    """Recurrent Atari agent for the alternating samplers; default model :class:`AtariLstmModel`."""

    default_model_cls = AtariLstmModel
