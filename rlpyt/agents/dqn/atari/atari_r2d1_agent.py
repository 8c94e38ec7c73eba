"""AtariR2d1Agent and AtariR2d1AlternatingAgent: R2D1 agents with ``AtariR2d1Model``."""

from __future__ import annotations

from rlpyt.agents.dqn.r2d1_agent import R2d1Agent, R2d1AlternatingAgent
from rlpyt.agents.model_keywords import atari_model_kwargs
from rlpyt.models.dqn.atari_r2d1_model import AtariR2d1Model


class AtariR2d1Agent(R2d1Agent):
    """R2D1 agent for Atari; the model gets ``image_shape`` and ``output_size`` from the env."""

    default_model_cls = AtariR2d1Model
    env_model_kwargs_fn = staticmethod(atari_model_kwargs)


class AtariR2d1AlternatingAgent(R2d1AlternatingAgent):
    """:class:`AtariR2d1Agent` for the alternating samplers (one state per env group)."""

    default_model_cls = AtariR2d1Model
    env_model_kwargs_fn = staticmethod(atari_model_kwargs)
