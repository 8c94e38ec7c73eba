"""Policy-gradient agents for classic control with discrete actions (CartPole, Acrobot, ...).

Each agent is a categorical PG agent with :class:`ClassicMixin` and its default model class.
Not in the original rlpyt, which had PG agents for Atari and Mujoco only.
"""

from __future__ import annotations

from rlpyt.agents.model_keywords import ClassicMixin
from rlpyt.agents.pg.categorical import CategoricalPgAgent, RecurrentCategoricalPgAgent
from rlpyt.models.pg.classic_model import ClassicFfModel, ClassicLstmModel


class ClassicFfAgent(ClassicMixin, CategoricalPgAgent):
    """Feed-forward categorical A2C/PPO agent; default model :class:`ClassicFfModel`."""

    default_model_cls = ClassicFfModel


class ClassicLstmAgent(ClassicMixin, RecurrentCategoricalPgAgent):
    """Recurrent categorical A2C/PPO agent; default model :class:`ClassicLstmModel`."""

    default_model_cls = ClassicLstmModel
