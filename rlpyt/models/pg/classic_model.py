"""Small categorical policy/value models for classic control (CartPole, Acrobot, ...).

These follow the setup known to learn classic-control tasks quickly with A2C/PPO: tanh MLPs,
separate policy and value networks, orthogonal weights (gain sqrt(2)), a policy output layer
scaled to 0.01 (nearly uniform initial policy) and a value output layer with gain 1, zero
biases.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from rlpyt.models.mlp import MlpModel
from rlpyt.models.utils import RnnState
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims

HIDDEN_GAIN = math.sqrt(2)
POLICY_GAIN = 0.01
VALUE_GAIN = 1.0


def orthogonal_init(module: torch.nn.Module, gain: float) -> None:
    """Orthogonal weights with ``gain`` and zero biases for every Linear layer in ``module``."""
    for layer in module.modules():
        if isinstance(layer, torch.nn.Linear):
            torch.nn.init.orthogonal_(layer.weight, gain=gain)
            torch.nn.init.zeros_(layer.bias)


class ClassicFfModel(torch.nn.Module):
    """Separate MLPs for the softmax policy and the value, evaluated side by side.

    Both MLPs have the same hidden sizes, so each hidden layer of the two is one batched
    matmul: ``hidden_weights[k]`` is ``[2, in, out]`` and ``hidden_biases[k]`` ``[2, 1, out]``
    (index 0 the policy network, 1 the value network). Same maths as two ``MlpModel``s, with
    half the torch ops, which is what these small networks' time is spent on. The output layers
    ``pi`` (``[A]`` logits) and ``v`` (``[1]``) are ``Linear`` modules.

    Args:
        observation_shape: Shape of one observation (flattened inside).
        action_size: Number of discrete actions ``A``.
        hidden_sizes: Hidden sizes of both MLPs (None -> ``[64, 64]``; an int for one layer).
        nonlinearity: Module class after each hidden layer (applied to ``[2, N, hidden]``, so
            it must act on each network's rows separately, as elementwise activations do).
    """

    # prev_action and prev_reward are not inputs: agents skip one-hot coding them.
    uses_prev_action = False

    def __init__(
        self,
        observation_shape: Sequence[int],
        action_size: int,
        hidden_sizes: int | Sequence[int] | None = None,
        nonlinearity: type[torch.nn.Module] = torch.nn.Tanh,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        if isinstance(hidden_sizes, int):
            hidden_sizes = [hidden_sizes]
        sizes = [
            int(np.prod(observation_shape)),
            *([64, 64] if hidden_sizes is None else hidden_sizes),
        ]
        self.hidden_weights = torch.nn.ParameterList(
            torch.nn.Parameter(torch.empty(2, n_in, n_out))
            for n_in, n_out in zip(sizes[:-1], sizes[1:], strict=True)
        )
        self.hidden_biases = torch.nn.ParameterList(
            torch.nn.Parameter(torch.zeros(2, 1, n_out)) for n_out in sizes[1:]
        )
        self.nonlinearity = nonlinearity()
        self.pi = torch.nn.Linear(sizes[-1], action_size)
        self.v = torch.nn.Linear(sizes[-1], 1)
        with torch.no_grad():
            for weight in self.hidden_weights:
                for network_weight in weight:  # [in, out]; orthogonal as Linear's [out, in]
                    torch.nn.init.orthogonal_(network_weight.T, gain=HIDDEN_GAIN)
        orthogonal_init(self.pi, POLICY_GAIN)
        orthogonal_init(self.v, VALUE_GAIN)

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
        hidden = obs_flat.expand(2, *obs_flat.shape)  # both networks read the same input
        # Parameters are read from the lists' dicts and the heads applied functionally: indexing
        # a ParameterList and calling a submodule cost more than the ops of these small
        # networks (this forward runs at every sampler step).
        weights = self.hidden_weights._parameters.values()
        biases = self.hidden_biases._parameters.values()
        for weight, bias in zip(weights, biases, strict=True):
            hidden = self.nonlinearity(torch.baddbmm(bias, hidden, weight))  # type: ignore[arg-type]
        pi = F.softmax(F.linear(hidden[0], self.pi.weight, self.pi.bias), dim=-1)
        v = F.linear(hidden[1], self.v.weight, self.v.bias).squeeze(-1)
        return restore_leading_dims((pi, v), lead_dim, T, B)


class ClassicLstmModel(torch.nn.Module):
    """Separate actor and critic: each an MLP -> LSTM (with one-hot previous action and reward).

    The critic regresses unnormalised returns, whose gradients would swamp a shared trunk and
    starve the policy (seen on CartPole without velocities); two LSTMs keep them apart. The
    recurrent state holds both, concatenated along the hidden dim: ``h, c`` are
    ``[1, B, 2 * lstm_size]`` (actor first), so agents and samplers see one ``RnnState``.

    Args:
        observation_shape: Shape of one observation (flattened inside).
        action_size: Number of discrete actions ``A``.
        hidden_sizes: Hidden sizes of each MLP before its LSTM (None -> ``[64]``).
        lstm_size: Hidden size ``H`` of each one-layer LSTM.
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
        self.lstm_size = lstm_size
        input_size = int(np.prod(observation_shape))
        hidden_sizes = [64] if hidden_sizes is None else hidden_sizes
        self.pi_mlp = MlpModel(input_size, hidden_sizes, None, nonlinearity)
        self.v_mlp = MlpModel(input_size, hidden_sizes, None, nonlinearity)
        lstm_input_size = self.pi_mlp.output_size + action_size + 1
        self.pi_lstm = torch.nn.LSTM(lstm_input_size, lstm_size)
        self.v_lstm = torch.nn.LSTM(lstm_input_size, lstm_size)
        self.pi = torch.nn.Linear(lstm_size, action_size)
        self.value = torch.nn.Linear(lstm_size, 1)
        orthogonal_init(self.pi_mlp, HIDDEN_GAIN)
        orthogonal_init(self.v_mlp, HIDDEN_GAIN)
        orthogonal_init(self.pi, POLICY_GAIN)
        orthogonal_init(self.value, VALUE_GAIN)

    def forward(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: tuple[torch.Tensor, ...] | None,
    ) -> tuple[torch.Tensor, torch.Tensor, Any]:
        """Run both LSTMs over the ``T`` steps given.

        Args:
            observation: ``[..., *observation_shape]``, leading ``[]``, ``[B]`` or ``[T, B]``.
            prev_action: ``[..., A]`` float, already one-hot (the agent converts it).
            prev_reward: ``[...]``.
            init_rnn_state: ``RnnState(h, c)`` each ``[1, B, 2 * H]``, or None for zeros.

        Returns:
            ``pi [..., A]``, ``v [...]`` and the next ``RnnState`` (each ``[1, B, 2 * H]``).
        """
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        obs_flat = observation.reshape(T * B, -1).to(torch.float32)
        extra = [
            prev_action.reshape(T, B, -1).to(obs_flat.dtype),
            prev_reward.reshape(T, B, 1).to(obs_flat.dtype),
        ]
        H = self.lstm_size
        if init_rnn_state is None:
            pi_state = v_state = None
        else:
            h, c = init_rnn_state
            # cuDNN wants contiguous states; slices of the last dim are not.
            pi_state = (h[..., :H].contiguous(), c[..., :H].contiguous())
            v_state = (h[..., H:].contiguous(), c[..., H:].contiguous())
        pi_in = torch.cat([self.pi_mlp(obs_flat).reshape(T, B, -1), *extra], dim=2)
        v_in = torch.cat([self.v_mlp(obs_flat).reshape(T, B, -1), *extra], dim=2)
        pi_out, (pi_h, pi_c) = self.pi_lstm(pi_in, pi_state)
        v_out, (v_h, v_c) = self.v_lstm(v_in, v_state)
        pi = F.softmax(self.pi(pi_out.reshape(T * B, -1)), dim=-1)
        v = self.value(v_out.reshape(T * B, -1)).squeeze(-1)
        pi, v = restore_leading_dims((pi, v), lead_dim, T, B)
        next_state = RnnState(h=torch.cat([pi_h, v_h], dim=-1), c=torch.cat([pi_c, v_c], dim=-1))
        return pi, v, next_state
