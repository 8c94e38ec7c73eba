"""Policy-gradient agents for continuous control: Gaussian policies over MLP models.

Each agent is a Gaussian PG agent with :class:`MujocoMixin` and its default model class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlpyt.agents.pg.gaussian import (
    AlternatingRecurrentGaussianPgAgent,
    GaussianPgAgent,
    RecurrentGaussianPgAgent,
)
from rlpyt.models.pg.mujoco_ff_model import MujocoFfModel
from rlpyt.models.pg.mujoco_lstm_model import MujocoLstmModel

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces


class MujocoMixin:
    """Model keywords from continuous-control env spaces: ``observation_shape``, ``action_size``."""

    def make_env_to_model_kwargs(self, env_spaces: EnvSpaces) -> dict[str, Any]:
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
    """Feed-forward A2C/PPO agent for continuous control; default model :class:`MujocoFfModel`."""

    default_model_cls = MujocoFfModel


class MujocoLstmAgent(MujocoMixin, RecurrentGaussianPgAgent):
    """Recurrent A2C/PPO agent for continuous control; default model :class:`MujocoLstmModel`."""

    default_model_cls = MujocoLstmModel


class AlternatingMujocoLstmAgent(MujocoMixin, AlternatingRecurrentGaussianPgAgent):
    """Recurrent continuous-control agent for the alternating samplers (model MujocoLstmModel)."""

    default_model_cls = MujocoLstmModel
