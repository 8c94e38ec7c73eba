"""DiscreteMixin: the action count and one-hot conversions of discrete distributions."""

from __future__ import annotations

import torch

from rlpyt.utils.tensor import from_onehot


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
        self._eyes: dict = {}  # identity matrices by (dtype, device): one-hot rows to gather

    @property
    def dim(self) -> int:
        """Number of outcomes."""
        return self._dim

    def to_onehot(self, indexes: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
        """``[*lead]`` integer indexes -> ``[*lead, dim]`` one-hot (``onehot_dtype`` by default).

        Gathers rows of a cached identity matrix: one op instead of zeros + scatter (agents call
        this at every sampler step). Indexes outside ``[0, dim)`` raise IndexError.
        """
        dtype = dtype or self.onehot_dtype
        eyes = self.__dict__.setdefault("_eyes", {})  # instances pickled before it existed
        eye = eyes.get((dtype, indexes.device))
        if eye is None:
            eye = eyes[(dtype, indexes.device)] = torch.eye(
                self._dim, dtype=dtype, device=indexes.device
            )
        if indexes.dtype != torch.long:
            indexes = indexes.long()
        return eye[indexes]

    def from_onehot(self, onehot: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
        """``[*lead, dim]`` one-hot -> ``[*lead]`` indexes (``self.dtype`` by default)."""
        return from_onehot(onehot, dtype=dtype or self.dtype)
