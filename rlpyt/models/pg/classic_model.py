"""Small categorical policy/value models for classic control (CartPole, Acrobot, ...).

Not in the original rlpyt: its PG models were for Atari and Mujoco only. These follow the
setup known to learn classic-control tasks quickly with A2C/PPO: tanh MLPs, separate policy and
value networks, orthogonal weights (gain sqrt(2)), a policy output layer scaled to 0.01 (nearly
uniform initial policy) and a value output layer with gain 1, zero biases.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from rlpyt.models.mlp import MlpModel
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims

RnnState = namedarraytuple("RnnState", ["h", "c"])  # each [N, B, H] (cuDNN layout)

HIDDEN_GAIN = math.sqrt(2)
POLICY_GAIN = 0.01
VALUE_GAIN = 1.0


def orthogonal_init(module: torch.nn.Module, gain: float) -> None:
    """Orthogonal weights with ``gain`` and zero biases for every Linear layer in ``module``."""
    for layer in module.modules():
        if isinstance(layer, torch.nn.Linear):
            torch.nn.init.orthogonal_(layer.weight, gain=gain)
            torch.nn.init.zeros_(layer.bias)


def _last_linear(mlp: MlpModel) -> torch.nn.Linear:
    return [m for m in mlp.modules() if isinstance(m, torch.nn.Linear)][-1]


def _init_mlp(mlp: MlpModel, output_gain: float) -> None:
    orthogonal_init(mlp, HIDDEN_GAIN)
    orthogonal_init(_last_linear(mlp), output_gain)


class ClassicFfModel(torch.nn.Module):
    """Separate MLPs for the softmax policy and the value.

    Args:
        observation_shape: Shape of one observation (flattened inside).
        action_size: Number of discrete actions ``A``.
        hidden_sizes: Hidden sizes of both MLPs (None -> ``[64, 64]``).
        nonlinearity: Module class after each hidden layer.
    """

    def __init__(
        self,
        observation_shape: Sequence[int],
        action_size: int,
        hidden_sizes: Sequence[int] | None = None,
        nonlinearity: type[torch.nn.Module] = torch.nn.Tanh,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        input_size = int(np.prod(observation_shape))
        hidden_sizes = [64, 64] if hidden_sizes is None else hidden_sizes
        self.pi = MlpModel(input_size, hidden_sizes, action_size, nonlinearity)
        self.v = MlpModel(input_size, hidden_sizes, 1, nonlinearity)
        _init_mlp(self.pi, POLICY_GAIN)
        _init_mlp(self.v, VALUE_GAIN)

    def forward(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy and value; ``prev_action`` and ``prev_reward`` are unused.

        Args:
            observation: ``[..., *observation_shape]``, leading ``[]``, ``[B]`` or ``[T, B]``.
            prev_action: Unused.
            prev_reward: Unused.

        Returns:
            ``pi [..., A]`` (softmax probabilities) and ``v [...]``.
        """
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        obs_flat = observation.reshape(T * B, -1).to(torch.float32)
        pi = F.softmax(self.pi(obs_flat), dim=-1)
        v = self.v(obs_flat).squeeze(-1)
        return restore_leading_dims((pi, v), lead_dim, T, B)


class ClassicLstmModel(torch.nn.Module):
    """MLP -> LSTM (with one-hot previous action and previous reward) -> policy and value heads.

    Args:
        observation_shape: Shape of one observation (flattened inside).
        action_size: Number of discrete actions ``A``.
        hidden_sizes: Hidden sizes of the MLP before the LSTM (None -> ``[64]``).
        lstm_size: Hidden size ``H`` of the one-layer LSTM.
        nonlinearity: Module class after each MLP layer.
    """

    def __init__(
        self,
        observation_shape: Sequence[int],
        action_size: int,
        hidden_sizes: Sequence[int] | None = None,
        lstm_size: int = 64,
        nonlinearity: type[torch.nn.Module] = torch.nn.Tanh,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        input_size = int(np.prod(observation_shape))
        hidden_sizes = [64] if hidden_sizes is None else hidden_sizes
        self.mlp = MlpModel(input_size, hidden_sizes, None, nonlinearity)
        self.lstm = torch.nn.LSTM(self.mlp.output_size + action_size + 1, lstm_size)
        self.pi = torch.nn.Linear(lstm_size, action_size)
        self.value = torch.nn.Linear(lstm_size, 1)
        orthogonal_init(self.mlp, HIDDEN_GAIN)
        orthogonal_init(self.pi, POLICY_GAIN)
        orthogonal_init(self.value, VALUE_GAIN)

    def forward(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: Any,
    ) -> tuple[torch.Tensor, torch.Tensor, Any]:
        """Run the LSTM over the ``T`` steps given.

        Args:
            observation: ``[..., *observation_shape]``, leading ``[]``, ``[B]`` or ``[T, B]``.
            prev_action: ``[..., A]`` float, already one-hot (the agent converts it).
            prev_reward: ``[...]``.
            init_rnn_state: ``RnnState(h, c)`` each ``[1, B, H]``, or None for zeros.

        Returns:
            ``pi [..., A]``, ``v [...]`` and the next ``RnnState``.
        """
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        mlp_out = self.mlp(observation.reshape(T * B, -1).to(torch.float32))
        lstm_input = torch.cat(
            [
                mlp_out.reshape(T, B, -1),
                prev_action.reshape(T, B, -1).to(mlp_out.dtype),
                prev_reward.reshape(T, B, 1).to(mlp_out.dtype),
            ],
            dim=2,
        )
        hc = None if init_rnn_state is None else tuple(init_rnn_state)  # (h, c)
        lstm_out, (hn, cn) = self.lstm(lstm_input, hc)
        lstm_flat = lstm_out.reshape(T * B, -1)
        pi = F.softmax(self.pi(lstm_flat), dim=-1)
        v = self.value(lstm_flat).squeeze(-1)
        pi, v = restore_leading_dims((pi, v), lead_dim, T, B)
        return pi, v, RnnState(h=hn, c=cn)
