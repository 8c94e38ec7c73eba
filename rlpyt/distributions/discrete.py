"""DiscreteMixin: the action count and one-hot conversions of discrete distributions."""

from __future__ import annotations

import torch

from rlpyt.utils.tensor import from_onehot, to_onehot


class DiscreteMixin:
    """Stores the number of discrete outcomes and converts indexes to and from one-hot codes.

    Args:
        dim: Number of outcomes (actions).
        dtype: Dtype of sampled indexes.
        onehot_dtype: Dtype of one-hot codes (agents feed them to models, so float).
    """

    def __init__(
        self, dim: int, dtype: torch.dtype = torch.long, onehot_dtype: torch.dtype = torch.float
    ):
        self._dim = dim
        self.dtype = dtype
        self.onehot_dtype = onehot_dtype

    @property
    def dim(self) -> int:
        """Number of outcomes."""
        return self._dim

    def to_onehot(self, indexes: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
        """``[*lead]`` integer indexes -> ``[*lead, dim]`` one-hot (``onehot_dtype`` by default)."""
        return to_onehot(indexes, self._dim, dtype=dtype or self.onehot_dtype)

    def from_onehot(self, onehot: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
        """``[*lead, dim]`` one-hot -> ``[*lead]`` indexes (``self.dtype`` by default)."""
        return from_onehot(onehot, dtype=dtype or self.dtype)
