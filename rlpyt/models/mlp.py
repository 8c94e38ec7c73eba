"""Multi-layer perceptron, the building block of the non-image models."""

from __future__ import annotations

from collections.abc import Sequence

import torch


class MlpModel(torch.nn.Module):
    """Fully connected layers with a nonlinearity after every hidden layer.

    Works on any leading dims: ``[..., input_size] -> [..., output_size]``.

    Args:
        input_size: Size of the last input dim.
        hidden_sizes: Hidden layer sizes (an int for one layer; None or [] for none).
        output_size: Size of a final linear layer (no nonlinearity after it). If None, the last
            hidden layer, with its nonlinearity, is the output.
        nonlinearity: Module class (not instance) applied after each hidden layer.
    """

    def __init__(
        self,
        input_size: int,
        hidden_sizes: int | Sequence[int] | None,
        output_size: int | None = None,
        nonlinearity: type[torch.nn.Module] = torch.nn.ReLU,
    ):
        super().__init__()
        if isinstance(hidden_sizes, int):
            hidden_sizes = [hidden_sizes]
        hidden_sizes = list(hidden_sizes or [])
        layers: list[torch.nn.Module] = []
        in_size = int(input_size)
        for size in hidden_sizes:
            layers.extend([torch.nn.Linear(in_size, size), nonlinearity()])
            in_size = size
        if output_size is not None:
            layers.append(torch.nn.Linear(in_size, output_size))
            in_size = output_size
        self.model = torch.nn.Sequential(*layers)
        self._output_size = in_size

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (torch's name)
        """``input: [..., input_size]`` -> ``[..., output_size]``."""
        return self.model(input)

    @property
    def output_size(self) -> int:
        """Size of the last output dim."""
        return self._output_size
