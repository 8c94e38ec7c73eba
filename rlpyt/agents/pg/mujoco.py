"""Policy-gradient agents for continuous control: Gaussian policies over MLP models.

Each agent is a Gaussian PG agent with the continuous-control model keywords
(``mujoco_model_kwargs``) and its default model class; :class:`MujocoMixin` gives the same
keywords to an agent family combined with it.
"""

from __future__ import annotations

from rlpyt.agents.model_keywords import EnvModelKwargsFn, mujoco_model_kwargs
from rlpyt.agents.pg.gaussian import (
    AlternatingRecurrentGaussianPgAgent,
    GaussianPgAgent,
    RecurrentGaussianPgAgent,
)
from rlpyt.models.pg.mujoco_ff_model import MujocoFfModel
from rlpyt.models.pg.mujoco_lstm_model import MujocoLstmModel


class MujocoMixin:
    """Names ``mujoco_model_kwargs`` as the agent's ``env_model_kwargs_fn``.

    Combined before an agent family (``class MyAgent(MujocoMixin, GaussianPgAgent)``).
    """

    env_model_kwargs_fn: EnvModelKwargsFn | None = staticmethod(mujoco_model_kwargs)


class MujocoFfAgent(GaussianPgAgent):
    """Feed-forward A2C/PPO agent for continuous control; default model :class:`MujocoFfModel`."""

    default_model_cls = MujocoFfModel
    env_model_kwargs_fn = staticmethod(mujoco_model_kwargs)


class MujocoLstmAgent(RecurrentGaussianPgAgent):
    """Recurrent A2C/PPO agent for continuous control; default model :class:`MujocoLstmModel`."""

    default_model_cls = MujocoLstmModel
    env_model_kwargs_fn = staticmethod(mujoco_model_kwargs)


class AlternatingMujocoLstmAgent(AlternatingRecurrentGaussianPgAgent):
    """Recurrent continuous-control agent for the alternating samplers (model MujocoLstmModel)."""

    default_model_cls = MujocoLstmModel
    env_model_kwargs_fn = staticmethod(mujoco_model_kwargs)
