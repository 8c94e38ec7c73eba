"""BaseRunner: what every runner offers (``train()``)."""

from __future__ import annotations


class BaseRunner:
    """A runner connects sampler, agent and algorithm and owns the training loop."""

    def train(self) -> None:
        """Run the whole training."""
        raise NotImplementedError
