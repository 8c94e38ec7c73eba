"""MLP models of the Q-function policy-gradient family: mu, pi, Q(s, a) and V(s).

Box: Model. Built by the agents in ``rlpyt.agents.qpg`` (``DdpgAgent``, ``Td3Agent``,
``SacAgent``) from ``observation_shape`` and ``action_size`` (taken from the env spaces) plus
the user's ``model_kwargs`` (``hidden_sizes``). The agents call them once per sampler step and
the algorithms several times per update, so ``forward`` does only shape handling.

Shapes: ``observation [*lead, *observation_shape]`` (flattened inside), ``action [*lead, A]``,
with leading dims ``[]``, ``[B]`` or ``[T, B]``. ``prev_action`` and ``prev_reward`` are part
of every agent's input tuple and ignored here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from rlpyt.models.mlp import MlpModel
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims


class MuMlpModel(torch.nn.Module):
    """Deterministic policy (DDPG, TD3): ``mu = output_max * tanh(MLP(observation))``.

    Args:
        observation_shape: Shape of one observation.
        hidden_sizes: Hidden layer sizes (ReLU after each).
        action_size: Action dims ``A``.
        output_max: Bound of the actions, ``mu`` lies in ``[-output_max, output_max]``.
    """

    def __init__(
        self,
        observation_shape: Sequence[int],
        hidden_sizes: int | Sequence[int] | None,
        action_size: int,
        output_max: float = 1,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        self._output_max = float(output_max)
        self.mlp = MlpModel(int(np.prod(observation_shape)), hidden_sizes, int(action_size))

    def forward(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """``mu [*lead, A]`` in ``[-output_max, output_max]``."""
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        mu = self._output_max * torch.tanh(self.mlp(observation.reshape(T * B, -1)))
        return restore_leading_dims(mu, lead_dim, T, B)


class PiMlpModel(torch.nn.Module):
    """Gaussian policy (SAC): one MLP with ``2 A`` outputs, split into ``(mu, log_std)``.

    The agent's distribution clamps ``log_std`` and squashes samples with tanh; the model's
    outputs are unbounded.

    Args:
        observation_shape: Shape of one observation.
        hidden_sizes: Hidden layer sizes (ReLU after each).
        action_size: Action dims ``A``.
    """

    def __init__(
        self,
        observation_shape: Sequence[int],
        hidden_sizes: int | Sequence[int] | None,
        action_size: int,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        self._action_size = int(action_size)
        self.mlp = MlpModel(int(np.prod(observation_shape)), hidden_sizes, 2 * self._action_size)

    def forward(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(mu [*lead, A], log_std [*lead, A])`` of the pre-squash Gaussian."""
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        output = self.mlp(observation.reshape(T * B, -1))
        mu, log_std = output[:, : self._action_size], output[:, self._action_size :]
        return restore_leading_dims((mu, log_std), lead_dim, T, B)


class QofMuMlpModel(torch.nn.Module):
    """Action value ``Q(s, a)``: an MLP over the flattened observation concatenated with ``a``.

    Args:
        observation_shape: Shape of one observation.
        hidden_sizes: Hidden layer sizes (ReLU after each).
        action_size: Action dims ``A``.
    """

    def __init__(
        self,
        observation_shape: Sequence[int],
        hidden_sizes: int | Sequence[int] | None,
        action_size: int,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        input_size = int(np.prod(observation_shape)) + int(action_size)
        self.mlp = MlpModel(input_size, hidden_sizes, 1)

    def forward(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        action: torch.Tensor,
    ) -> torch.Tensor:
        """``q [*lead]`` for ``action [*lead, A]``."""
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        q_input = torch.cat(
            [observation.reshape(T * B, -1), action.reshape(T * B, -1).to(observation.dtype)],
            dim=1,
        )
        q = self.mlp(q_input).squeeze(-1)
        return restore_leading_dims(q, lead_dim, T, B)


class VMlpModel(torch.nn.Module):
    """State value ``V(s)`` (SAC_V): an MLP over the flattened observation.

    Args:
        observation_shape: Shape of one observation.
        hidden_sizes: Hidden layer sizes (ReLU after each).
        action_size: Unused (the agents pass it to every model).
    """

    def __init__(
        self,
        observation_shape: Sequence[int],
        hidden_sizes: int | Sequence[int] | None,
        action_size: int | None = None,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        self.mlp = MlpModel(int(np.prod(observation_shape)), hidden_sizes, 1)

    def forward(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """``v [*lead]``."""
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        v = self.mlp(observation.reshape(T * B, -1)).squeeze(-1)
        return restore_leading_dims(v, lead_dim, T, B)
