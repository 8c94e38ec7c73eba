"""Policy-gradient agents for classic control with discrete actions (CartPole, Acrobot, ...).

Each agent is a categorical PG agent with :class:`ClassicMixin` and its default model class.
Not in the original rlpyt, which had PG agents for Atari and Mujoco only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlpyt.agents.pg.categorical import CategoricalPgAgent, RecurrentCategoricalPgAgent
from rlpyt.models.pg.classic_model import ClassicFfModel, ClassicLstmModel

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces


class ClassicMixin:
    """Model keywords from the env spaces: ``observation_shape``, ``action_size=action.n``."""

    def make_env_to_model_kwargs(self, env_spaces: EnvSpaces) -> dict[str, Any]:
        """``observation_shape=observation.shape``, ``action_size=action.n``."""
        return dict(
            observation_shape=tuple(env_spaces.observation.shape),
            action_size=int(env_spaces.action.n),
        )


class ClassicFfAgent(ClassicMixin, CategoricalPgAgent):
    """Feed-forward categorical A2C/PPO agent; default model :class:`ClassicFfModel`."""

    default_model_cls = ClassicFfModel


class ClassicLstmAgent(ClassicMixin, RecurrentCategoricalPgAgent):
    """Recurrent categorical A2C/PPO agent; default model :class:`ClassicLstmModel`."""

    default_model_cls = ClassicLstmModel
