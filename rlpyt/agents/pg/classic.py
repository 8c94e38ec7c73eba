"""Policy-gradient agents for classic control with discrete actions (CartPole, Acrobot, ...).

Each agent is a categorical PG agent with the classic model keywords
(``classic_model_kwargs``) and its default model class; ``ClassicMixin`` (exported here) gives
the same keywords to an agent family combined with it. Not in the original rlpyt, which had PG
agents for Atari and Mujoco only.
"""

from __future__ import annotations

from rlpyt.agents.model_keywords import ClassicMixin, classic_model_kwargs
from rlpyt.agents.pg.categorical import CategoricalPgAgent, RecurrentCategoricalPgAgent
from rlpyt.models.pg.classic_model import ClassicFfModel, ClassicLstmModel

__all__ = ["ClassicFfAgent", "ClassicLstmAgent", "ClassicMixin"]


class ClassicFfAgent(CategoricalPgAgent):
    """Feed-forward categorical A2C/PPO agent; default model :class:`ClassicFfModel`."""

    default_model_cls = ClassicFfModel
    env_model_kwargs_fn = staticmethod(classic_model_kwargs)


class ClassicLstmAgent(RecurrentCategoricalPgAgent):
    """Recurrent categorical A2C/PPO agent; default model :class:`ClassicLstmModel`."""

    default_model_cls = ClassicLstmModel
    env_model_kwargs_fn = staticmethod(classic_model_kwargs)
