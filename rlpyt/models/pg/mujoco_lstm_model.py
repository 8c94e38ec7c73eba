"""Recurrent Gaussian policy and value model for continuous control (``MujocoLstmAgent``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from rlpyt.models.mlp import MlpModel
from rlpyt.models.pg.mujoco_ff_model import normalize_observation
from rlpyt.models.running_mean_std import RunningMeanStdModel
from rlpyt.models.utils import RnnState
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims


class MujocoLstmModel(torch.nn.Module):
    """MLP -> LSTM (with previous action and reward) -> one linear head for mu, log_std, v.

    ``normalize_observation``, ``norm_obs_clip`` and ``norm_obs_var_clip`` are as in
    :class:`~rlpyt.models.pg.mujoco_ff_model.MujocoFfModel`.

    Args:
        observation_shape: Shape of one observation (flattened inside).
        action_size: Action dims ``A``.
        hidden_sizes: Hidden sizes of the MLP (None -> ``[256, 256]``).
        lstm_size: Hidden size ``H`` of the one-layer LSTM.
        nonlinearity: Module class after each MLP layer.
    """

    def __init__(
        self,
        observation_shape: Sequence[int],
        action_size: int,
        hidden_sizes: Sequence[int] | None = None,
        lstm_size: int = 256,
        nonlinearity: type[torch.nn.Module] = torch.nn.ReLU,
        normalize_observation: bool = False,
        norm_obs_clip: float = 10,
        norm_obs_var_clip: float = 1e-6,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        self._action_size = action_size
        hidden_sizes = hidden_sizes or [256, 256]
        self.mlp = MlpModel(int(np.prod(observation_shape)), hidden_sizes, None, nonlinearity)
        self.lstm = torch.nn.LSTM(self.mlp.output_size + action_size + 1, lstm_size)
        self.head = torch.nn.Linear(lstm_size, 2 * action_size + 1)
        self.normalize_observation = normalize_observation
        self.norm_obs_clip = norm_obs_clip
        self.norm_obs_var_clip = norm_obs_var_clip
        if normalize_observation:
            self.obs_rms = RunningMeanStdModel(observation_shape)

    def forward(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        init_rnn_state: tuple[torch.Tensor, ...] | None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, Any]:
        """Run the LSTM over the ``T`` steps given.

        Args:
            observation: ``[..., *observation_shape]``, leading ``[]``, ``[B]`` or ``[T, B]``.
            prev_action: ``[..., A]``.
            prev_reward: ``[...]``.
            init_rnn_state: ``RnnState(h, c)`` each ``[1, B, H]``, or None for zeros.

        Returns:
            ``mu [..., A]``, ``log_std [..., A]``, ``v [...]`` and the next ``RnnState``.
        """
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        observation = observation.to(self.head.weight.dtype)
        if self.normalize_observation:
            observation = normalize_observation(
                observation, self.obs_rms, self.norm_obs_clip, self.norm_obs_var_clip
            )
        mlp_out = self.mlp(observation.reshape(T * B, -1))
        lstm_input = torch.cat(
            [
                mlp_out.reshape(T, B, -1),
                prev_action.reshape(T, B, -1).to(mlp_out.dtype),
                prev_reward.reshape(T, B, 1).to(mlp_out.dtype),
            ],
            dim=2,
        )
        # (h, c); cuDNN needs contiguous states (a transposed recorded state is not).
        hc = None if init_rnn_state is None else tuple(s.contiguous() for s in init_rnn_state)
        lstm_out, (hn, cn) = self.lstm(lstm_input, hc)
        outputs = self.head(lstm_out.reshape(T * B, -1))
        a = self._action_size
        mu, log_std, v = outputs[:, :a], outputs[:, a : 2 * a], outputs[:, -1]
        mu, log_std, v = restore_leading_dims((mu, log_std, v), lead_dim, T, B)
        return mu, log_std, v, RnnState(h=hn, c=cn)

    def update_obs_rms(self, observation: torch.Tensor) -> None:
        """Fold ``observation [..., *observation_shape]`` into the running statistics (if used)."""
        if self.normalize_observation:
            self.obs_rms.update(observation)
