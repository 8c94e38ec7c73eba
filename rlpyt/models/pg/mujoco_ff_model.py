"""Feed-forward Gaussian policy and value model for continuous control (``MujocoFfAgent``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from rlpyt.models.mlp import MlpModel
from rlpyt.models.running_mean_std import RunningMeanStdModel
from rlpyt.utils.tensor import infer_leading_dims, restore_leading_dims


def normalize_observation(
    observation: torch.Tensor,
    obs_rms: RunningMeanStdModel,
    clip: float | None,
    var_clip: float | None,
) -> torch.Tensor:
    """Normalize with running statistics: ``(observation - mean) / std``.

    The variance is floored at ``var_clip`` and the result clipped to ``[-clip, clip]`` (either
    clip None: not applied).
    """
    var = obs_rms.var if var_clip is None else obs_rms.var.clamp(min=var_clip)
    normalized = (observation - obs_rms.mean) / var.sqrt()
    if clip is not None:
        normalized = normalized.clamp(-clip, clip)
    return normalized


class MujocoFfModel(torch.nn.Module):
    """Separate MLPs for the action mean and the value; a learned, state-independent log_std.

    Args:
        observation_shape: Shape of one observation (flattened inside).
        action_size: Action dims ``A``.
        hidden_sizes: Hidden sizes of both MLPs (None -> ``[64, 64]``).
        hidden_nonlinearity: Module class after each hidden layer.
        mu_nonlinearity: Module class applied to the mean output (None: linear output).
        init_log_std: Initial value of every ``log_std`` entry.
        normalize_observation: Normalize observations with running statistics, which the
            algorithm updates through :meth:`update_obs_rms`.
        norm_obs_clip: Clip normalized observations to ``[-clip, clip]``.
        norm_obs_var_clip: Floor of the running variance used for normalizing.
    """

    def __init__(
        self,
        observation_shape: Sequence[int],
        action_size: int,
        hidden_sizes: Sequence[int] | None = None,
        hidden_nonlinearity: type[torch.nn.Module] = torch.nn.Tanh,
        mu_nonlinearity: type[torch.nn.Module] | None = torch.nn.Tanh,
        init_log_std: float = 0.0,
        normalize_observation: bool = False,
        norm_obs_clip: float = 10,
        norm_obs_var_clip: float = 1e-6,
    ):
        super().__init__()
        self._obs_ndim = len(observation_shape)
        input_size = int(np.prod(observation_shape))
        hidden_sizes = hidden_sizes or [64, 64]
        mu_mlp = MlpModel(input_size, hidden_sizes, action_size, hidden_nonlinearity)
        self.mu: torch.nn.Module
        if mu_nonlinearity is not None:
            self.mu = torch.nn.Sequential(mu_mlp, mu_nonlinearity())
        else:
            self.mu = mu_mlp
        self.v = MlpModel(input_size, hidden_sizes, 1, hidden_nonlinearity)
        self.log_std = torch.nn.Parameter(torch.full((action_size,), float(init_log_std)))
        self.normalize_observation = normalize_observation
        self.norm_obs_clip = norm_obs_clip
        self.norm_obs_var_clip = norm_obs_var_clip
        if normalize_observation:
            self.obs_rms = RunningMeanStdModel(observation_shape)

    def forward(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Mean, log std and value; ``prev_action`` and ``prev_reward`` are unused.

        Args:
            observation: ``[..., *observation_shape]``, leading ``[]``, ``[B]`` or ``[T, B]``.
            prev_action: Unused.
            prev_reward: Unused.

        Returns:
            ``mu [..., A]``, ``log_std [..., A]``, ``v [...]``.
        """
        lead_dim, T, B, _ = infer_leading_dims(observation, self._obs_ndim)
        observation = observation.to(self.log_std.dtype)
        if self.normalize_observation:
            observation = normalize_observation(
                observation, self.obs_rms, self.norm_obs_clip, self.norm_obs_var_clip
            )
        obs_flat = observation.reshape(T * B, -1)
        mu = self.mu(obs_flat)
        v = self.v(obs_flat).squeeze(-1)
        log_std = self.log_std.expand(T * B, -1)
        return restore_leading_dims((mu, log_std, v), lead_dim, T, B)

    def update_obs_rms(self, observation: torch.Tensor) -> None:
        """Fold ``observation [..., *observation_shape]`` into the running statistics (if used)."""
        if self.normalize_observation:
            self.obs_rms.update(observation)
