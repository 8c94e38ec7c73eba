"""Policy-gradient agents for continuous control: Gaussian policies over MLP models."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from rlpyt.agents.pg.gaussian import (
    AlternatingRecurrentGaussianPgAgent,
    GaussianPgAgent,
    RecurrentGaussianPgAgent,
)
from rlpyt.models.pg.mujoco_ff_model import MujocoFfModel
from rlpyt.models.pg.mujoco_lstm_model import MujocoLstmModel


class MujocoMixin:
    """Model keywords from continuous-control env spaces: ``observation_shape``, ``action_size``."""

    def make_env_to_model_kwargs(self, env_spaces: Any) -> dict[str, Any]:
        """``observation_shape=observation.shape``, ``action_size=action.shape[0]``."""
        if len(env_spaces.action.shape) != 1:
            raise ValueError(
                f"Mujoco agents need a 1-D action space, got shape {env_spaces.action.shape}."
            )
        return dict(
            observation_shape=tuple(env_spaces.observation.shape),
            action_size=int(env_spaces.action.shape[0]),
        )


class MujocoFfAgent(MujocoMixin, GaussianPgAgent):
    """Feed-forward A2C/PPO agent for continuous control (see :class:`GaussianPgAgent`)."""

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] = MujocoFfModel,
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        super().__init__(ModelCls, model_kwargs, initial_model_state_dict)


class MujocoLstmAgent(MujocoMixin, RecurrentGaussianPgAgent):
    """Recurrent A2C/PPO agent for continuous control."""

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] = MujocoLstmModel,
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        super().__init__(ModelCls, model_kwargs, initial_model_state_dict)


class AlternatingMujocoLstmAgent(MujocoMixin, AlternatingRecurrentGaussianPgAgent):
    """Recurrent continuous-control agent for the alternating samplers."""

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] = MujocoLstmModel,
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        super().__init__(ModelCls, model_kwargs, initial_model_state_dict)
