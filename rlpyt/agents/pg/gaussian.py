"""Policy-gradient agents with a diagonal Gaussian policy (continuous actions).

The skeletons of ``rlpyt.agents.pg.base`` with :class:`GaussianPgMixin`: the model maps
``(observation, prev_action, prev_reward[, init_rnn_state])`` to
``(mu, log_std, value[, next_rnn_state])``. Shapes: ``observation [..., *obs_shape]``,
``prev_action [..., A]``, ``prev_reward [...]``, ``mu, log_std [..., A]``, ``value [...]`` with
leading ``[]``, ``[B]`` or ``[T, B]``; rnn state fields ``[N, B, H]``. ``dist_info`` is
``DistInfoStd(mean=mu, log_std=log_std)``.

Sampled actions are recorded unclipped (the log-likelihood must match the sample); the env
clips them to its bounds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
import torch

from rlpyt.agents.pg.base import PgAgent, RecurrentPgAgent
from rlpyt.agents.recurrent import AlternatingRecurrentAgentMixin, RecurrentAgentMixin
from rlpyt.distributions.gaussian import DistInfoStd, Gaussian
from rlpyt.spaces.float_box import FloatBox
from rlpyt.utils.checks import leaf_space, space_kind_error

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces
    from rlpyt.spaces.gym_wrapper import GymSpaceWrapper


def check_action_space(
    action_space: FloatBox | GymSpaceWrapper, agent_name: str = "Gaussian PG agent"
) -> None:
    """Raise unless the action space is continuous, 1-D, with symmetric bounds (``low == -high``).

    Raises:
        ValueError: a discrete (or composite) space (``"<agent>: this agent needs a continuous
            (Box) action space; the env has Discrete(2). ..."``), another shape, or asymmetric
            bounds.
    """
    if not isinstance(leaf_space(action_space), FloatBox):
        raise space_kind_error(
            agent_name,
            "a continuous (Box)",
            action_space,
            "Use a categorical agent for discrete actions.",
        )
    shape = tuple(action_space.shape)
    if len(shape) != 1:
        raise ValueError(
            f"Gaussian PG agents need a 1-D action space, got shape {shape}; flatten the "
            "action space in the env."
        )
    low = np.broadcast_to(np.asarray(action_space.low, dtype=np.float64), shape)
    high = np.broadcast_to(np.asarray(action_space.high, dtype=np.float64), shape)
    if not np.array_equal(low, -high):
        raise ValueError(
            f"Gaussian PG agents need symmetric action bounds (low == -high), got low={low}, "
            f"high={high}; rescale the actions in the env."
        )


@runtime_checkable
class ObsRmsModel(Protocol):
    """A model that normalizes its observations with running statistics (``MujocoFfModel``)."""

    def update_obs_rms(self, observation: torch.Tensor) -> None:
        """Fold a batch of observations into the running mean and variance."""
        ...


class _ModelAgent(Protocol):
    """What :meth:`GaussianPgMixin.update_obs_rms` uses of the agent (``BaseAgent`` has it)."""

    @property
    def bare_model(self) -> torch.nn.Module:
        """The model without a DistributedDataParallel wrapper."""
        ...

    def _to_device(self, inputs: torch.Tensor) -> torch.Tensor: ...


class GaussianPgMixin:
    """Builds ``Gaussian(dim=A)`` (std from the model); forwards observation-normalization updates.

    The model inputs are the agent inputs moved to the device (``BaseAgent._model_inputs``).
    """

    DistInfoCls = DistInfoStd

    def make_distribution(self, env_spaces: EnvSpaces) -> Gaussian:
        """``Gaussian(dim=A)`` (std from the model), after :func:`check_action_space`."""
        check_action_space(env_spaces.action, type(self).__name__)
        return Gaussian(dim=int(env_spaces.action.shape[0]))

    def update_obs_rms(self: _ModelAgent, observation: torch.Tensor) -> None:
        """Update the model's observation statistics (A2C/PPO call this per batch).

        Args:
            observation: ``[T, B, *obs_shape]`` (or fewer leading dims).
        """
        model = self.bare_model
        if not isinstance(model, ObsRmsModel):
            raise AttributeError(f"{type(model).__name__} has no update_obs_rms.")
        model.update_obs_rms(self._to_device(observation))


class GaussianPgAgent(GaussianPgMixin, PgAgent):
    """Feed-forward Gaussian policy agent; the model returns ``(mu, log_std, value)``."""


class RecurrentGaussianPgAgent(RecurrentAgentMixin, GaussianPgMixin, RecurrentPgAgent):
    """Recurrent Gaussian policy agent with one recurrent state for all its envs."""


class AlternatingRecurrentGaussianPgAgent(
    AlternatingRecurrentAgentMixin, GaussianPgMixin, RecurrentPgAgent
):
    """Recurrent Gaussian policy agent for the alternating samplers (two env groups)."""


class RecurrentGaussianPgAgentBase(GaussianPgMixin, RecurrentPgAgent):
    """A recurrent Gaussian agent without its recurrent-state mixin.

    Kept for rlpyt's import path: rlpyt's recurrent agents were this plus a state mixin.
    """
