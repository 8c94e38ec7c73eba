"""Deep-Q agents for vector observations with discrete actions (CartPole, Acrobot, LunarLander).

Not in the original rlpyt, whose DQN agents were for Atari only. Each agent is a deep-Q agent
with the model keywords of ``classic_dqn_model_kwargs`` and an MLP model of
``rlpyt.models.dqn.classic_dqn_model``, or for R2D1 the MLP + LSTM model of
``rlpyt.models.dqn.classic_r2d1_model``.
"""

from __future__ import annotations

from rlpyt.agents.dqn.catdqn_agent import CatDqnAgent
from rlpyt.agents.dqn.dqn_agent import DqnAgent
from rlpyt.agents.dqn.r2d1_agent import R2d1Agent, R2d1AlternatingAgent
from rlpyt.agents.model_keywords import ClassicMixin, EnvModelKwargsFn, classic_dqn_model_kwargs
from rlpyt.models.dqn.classic_dqn_model import ClassicCatDqnModel, ClassicDqnModel
from rlpyt.models.dqn.classic_r2d1_model import ClassicR2d1Model


class ClassicDqnMixin(ClassicMixin):
    """Names ``classic_dqn_model_kwargs`` as the agent's ``env_model_kwargs_fn``.

    The PG classic keywords, with the action count under the DQN models' name
    (``output_size``).
    """

    env_model_kwargs_fn: EnvModelKwargsFn | None = staticmethod(classic_dqn_model_kwargs)


class ClassicDqnAgent(DqnAgent):
    """DQN agent for vector observations; default model :class:`ClassicDqnModel`."""

    default_model_cls = ClassicDqnModel
    env_model_kwargs_fn = staticmethod(classic_dqn_model_kwargs)


class ClassicCatDqnAgent(CatDqnAgent):
    """Categorical DQN agent for vector observations; default model :class:`ClassicCatDqnModel`."""

    default_model_cls = ClassicCatDqnModel
    env_model_kwargs_fn = staticmethod(classic_dqn_model_kwargs)


class ClassicR2d1Agent(R2d1Agent):
    """R2D1 agent for vector observations; default model :class:`ClassicR2d1Model`."""

    default_model_cls = ClassicR2d1Model
    env_model_kwargs_fn = staticmethod(classic_dqn_model_kwargs)


class ClassicR2d1AlternatingAgent(R2d1AlternatingAgent):
    """:class:`ClassicR2d1Agent` for the alternating samplers (one state per env group)."""

    default_model_cls = ClassicR2d1Model
    env_model_kwargs_fn = staticmethod(classic_dqn_model_kwargs)
