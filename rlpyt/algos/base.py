"""RlAlgorithm: the interface between the runner and an optimization procedure."""

from __future__ import annotations

from typing import Any


class RlAlgorithm:
    """Base of all algorithms.

    Class attributes: ``opt_info_fields`` (names of the OptInfo lists), ``bootstrap_value``
    (the sampler must record ``V(s_T)``), ``update_counter`` (gradient steps taken).
    """

    opt_info_fields: tuple[str, ...] = ()
    bootstrap_value = False
    update_counter = 0
    optimizer: Any  # set by initialize / optim_initialize
    _batch_size: int

    def initialize(
        self,
        agent: Any,
        n_itr: int,
        batch_spec: Any,
        mid_batch_reset: bool,
        examples: Any,
        world_size: int = 1,
        rank: int = 0,
    ) -> None:
        """Called by synchronous runners after the sampler and agent are initialized."""
        raise NotImplementedError

    def async_initialize(self, *args: Any, **kwargs: Any) -> Any:
        """Called by asynchronous runners (replay-based algorithms)."""
        raise NotImplementedError(f"{type(self).__name__} does not support async runners.")

    def optim_initialize(self, rank: int = 0) -> None:
        """Build the optimizer (asynchronous runners call this in the optimizer process)."""
        raise NotImplementedError

    def optimize_agent(self, itr: int, samples: Any = None, sampler_itr: int | None = None) -> Any:
        """Train the agent on a batch; returns an OptInfo namedtuple of lists."""
        raise NotImplementedError

    def optim_state_dict(self) -> dict:
        """The optimizer's state dict (rlpyt's snapshot field ``optimizer_state_dict``)."""
        return self.optimizer.state_dict()

    def load_optim_state_dict(self, state_dict: dict) -> None:
        """Load the optimizer's state dict."""
        self.optimizer.load_state_dict(state_dict)

    def state_dict(self) -> dict:
        """Everything to resume exactly: optimizer and schedules (subclasses extend)."""
        return {"optimizer": self.optim_state_dict(), "update_counter": self.update_counter}

    def load_state_dict(self, state: dict) -> None:
        """Restore what :meth:`state_dict` returned."""
        self.load_optim_state_dict(state["optimizer"])
        self.update_counter = state["update_counter"]

    @property
    def batch_size(self) -> int:
        """Samples per gradient step (used for replay-ratio diagnostics)."""
        return self._batch_size
