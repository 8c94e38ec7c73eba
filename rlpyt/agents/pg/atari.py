"""Policy-gradient agents for Atari: categorical policies over conv models of stacked frames."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from rlpyt.agents.pg.categorical import (
    AlternatingRecurrentCategoricalPgAgent,
    CategoricalPgAgent,
    RecurrentCategoricalPgAgent,
)
from rlpyt.models.pg.atari_ff_model import AtariFfModel
from rlpyt.models.pg.atari_lstm_model import AtariLstmModel


class AtariMixin:
    """Model keywords from Atari env spaces: ``image_shape`` (C, H, W) and ``output_size``."""

    def make_env_to_model_kwargs(self, env_spaces: Any) -> dict[str, Any]:
        """``image_shape=observation.shape``, ``output_size=action.n``."""
        return dict(
            image_shape=tuple(env_spaces.observation.shape),
            output_size=int(env_spaces.action.n),
        )


class AtariFfAgent(AtariMixin, CategoricalPgAgent):
    """Feed-forward A2C/PPO agent for Atari (see :class:`CategoricalPgAgent`)."""

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] = AtariFfModel,
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        super().__init__(ModelCls, model_kwargs, initial_model_state_dict)


class AtariLstmAgent(AtariMixin, RecurrentCategoricalPgAgent):
    """Recurrent A2C/PPO agent for Atari (see :class:`RecurrentCategoricalPgAgent`)."""

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] = AtariLstmModel,
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        super().__init__(ModelCls, model_kwargs, initial_model_state_dict)


class AlternatingAtariLstmAgent(AtariMixin, AlternatingRecurrentCategoricalPgAgent):
    """Recurrent Atari agent for the alternating samplers."""

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] = AtariLstmModel,
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        super().__init__(ModelCls, model_kwargs, initial_model_state_dict)
