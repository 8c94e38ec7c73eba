"""Policy-gradient agents for classic control with discrete actions (CartPole, Acrobot, ...).

Not in the original rlpyt, which had PG agents for Atari and Mujoco only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from rlpyt.agents.pg.categorical import CategoricalPgAgent, RecurrentCategoricalPgAgent
from rlpyt.models.pg.classic_model import ClassicFfModel, ClassicLstmModel


class ClassicMixin:
    """Model keywords from the env spaces: ``observation_shape``, ``action_size=action.n``."""

    def make_env_to_model_kwargs(self, env_spaces: Any) -> dict[str, Any]:
        """``observation_shape=observation.shape``, ``action_size=action.n``."""
        return dict(
            observation_shape=tuple(env_spaces.observation.shape),
            action_size=int(env_spaces.action.n),
        )


class ClassicFfAgent(ClassicMixin, CategoricalPgAgent):
    """Feed-forward categorical A2C/PPO agent over :class:`ClassicFfModel`."""

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] = ClassicFfModel,
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        super().__init__(ModelCls, model_kwargs, initial_model_state_dict)


class ClassicLstmAgent(ClassicMixin, RecurrentCategoricalPgAgent):
    """Recurrent categorical A2C/PPO agent over :class:`ClassicLstmModel`."""

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] = ClassicLstmModel,
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        super().__init__(ModelCls, model_kwargs, initial_model_state_dict)
