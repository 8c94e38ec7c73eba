"""Running mean and variance of observations, for observation normalization in models.

The statistics live in buffers (``mean``, ``var``, ``count``) so they are saved with the model's
state dict and copied to sampler workers with the parameters. Under ``torch.distributed`` every
process contributes its batch, so all replicas hold identical statistics.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.distributed as dist

from rlpyt.utils.tensor import infer_leading_dims


class RunningMeanStdModel(torch.nn.Module):
    """Tracks the mean and (population) variance of all data seen, per element of ``shape``.

    Args:
        shape: Shape of one datum, e.g. ``observation_shape``.

    Buffers: ``mean [*shape]``, ``var [*shape]`` (start at 0 and 1), ``count []`` (data seen).
    """

    mean: torch.Tensor
    var: torch.Tensor
    count: torch.Tensor

    def __init__(self, shape: Sequence[int] | int):
        super().__init__()
        self.shape = tuple(shape) if isinstance(shape, Sequence) else (int(shape),)
        self.register_buffer("mean", torch.zeros(self.shape))
        self.register_buffer("var", torch.ones(self.shape))
        self.register_buffer("count", torch.zeros(()))

    def update(self, x: torch.Tensor) -> None:
        """Fold a batch into the statistics (Chan et al.'s parallel variance formula).

        Args:
            x: ``[*shape]``, ``[B, *shape]`` or ``[T, B, *shape]``.
        """
        _, T, B, _ = infer_leading_dims(x, len(self.shape))
        x = x.reshape(T * B, *self.shape).to(self.mean.dtype)
        batch_count = torch.tensor(float(T * B), device=x.device)
        batch_mean = x.mean(dim=0)
        batch_var = x.var(dim=0, unbiased=False)
        if dist.is_available() and dist.is_initialized():
            batch_mean, batch_var, batch_count = _all_reduce_moments(
                batch_mean, batch_var, batch_count
            )
        with torch.no_grad():
            self._combine(batch_mean, batch_var, batch_count)

    def _combine(
        self, batch_mean: torch.Tensor, batch_var: torch.Tensor, batch_count: torch.Tensor
    ) -> None:
        total = self.count + batch_count
        delta = batch_mean - self.mean
        m2 = (
            self.var * self.count
            + batch_var * batch_count
            + delta.square() * self.count * batch_count / total
        )
        self.mean.add_(delta * batch_count / total)
        self.var.copy_(m2 / total)
        self.count.copy_(total)


def _all_reduce_moments(
    mean: torch.Tensor, var: torch.Tensor, count: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Exact mean/variance over the batches of all processes (counts may differ)."""
    moments = torch.cat([(mean * count).flatten(), ((var + mean.square()) * count).flatten()])
    packed = torch.cat([moments, count.reshape(1)])
    dist.all_reduce(packed)
    total = packed[-1]
    n = mean.numel()
    global_mean = (packed[:n] / total).reshape(mean.shape)
    global_var = (packed[n : 2 * n] / total).reshape(mean.shape) - global_mean.square()
    return global_mean, global_var.clamp(min=0), total
