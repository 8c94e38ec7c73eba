"""Deep-Q agents for vector observations with discrete actions (CartPole, Acrobot, LunarLander).

Not in the original rlpyt, whose DQN agents were for Atari only. Each agent is a deep-Q agent
with :class:`ClassicDqnMixin` and an MLP model of ``rlpyt.models.dqn.classic_dqn_model``, or
for R2D1 the MLP + LSTM model of ``rlpyt.models.dqn.classic_r2d1_model``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlpyt.agents.dqn.catdqn_agent import CatDqnAgent
from rlpyt.agents.dqn.dqn_agent import DqnAgent
from rlpyt.agents.dqn.r2d1_agent import R2d1Agent, R2d1AlternatingAgent
from rlpyt.agents.model_keywords import ClassicMixin
from rlpyt.models.dqn.classic_dqn_model import ClassicCatDqnModel, ClassicDqnModel
from rlpyt.models.dqn.classic_r2d1_model import ClassicR2d1Model

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces


class ClassicDqnMixin(ClassicMixin):
    """Model keywords ``observation_shape`` and ``output_size=action.n``.

    The PG classic keywords, with the action count under the DQN models' name.
    """

    def make_env_to_model_kwargs(self, env_spaces: EnvSpaces) -> dict[str, Any]:
        """``observation_shape=observation.shape``, ``output_size=action.n``."""
        kwargs = super().make_env_to_model_kwargs(env_spaces)
        kwargs["output_size"] = kwargs.pop("action_size")
        return kwargs


class ClassicDqnAgent(ClassicDqnMixin, DqnAgent):
    """DQN agent for vector observations; default model :class:`ClassicDqnModel`."""

    default_model_cls = ClassicDqnModel


class ClassicCatDqnAgent(ClassicDqnMixin, CatDqnAgent):
    """Categorical DQN agent for vector observations; default model :class:`ClassicCatDqnModel`."""

    default_model_cls = ClassicCatDqnModel


class ClassicR2d1Agent(ClassicDqnMixin, R2d1Agent):
    """R2D1 agent for vector observations; default model :class:`ClassicR2d1Model`."""

    default_model_cls = ClassicR2d1Model


class ClassicR2d1AlternatingAgent(ClassicDqnMixin, R2d1AlternatingAgent):
    """:class:`ClassicR2d1Agent` for the alternating samplers (one state per env group)."""

    default_model_cls = ClassicR2d1Model
