"""The Space base class: shape, dtype, sampling, a null value and its own seedable RNG.

Envs expose their action and observation spaces as Space objects; agents size their models from
them and samplers allocate buffers from ``null_value()`` examples.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Space:
    """A set of values of one shape and dtype that can be sampled and tested for membership.

    Each space owns a ``np.random.Generator`` (unseeded until :meth:`seed` is called), so two
    spaces seeded alike give identical sample streams and nothing touches numpy's global RNG.

    Subclasses set ``shape`` and ``dtype`` and implement :meth:`sample`, :meth:`null_value`
    and :meth:`contains`.
    """

    shape: Any
    dtype: Any

    def __init__(self, seed: int | None = None):
        self._rng = np.random.default_rng(seed)

    def seed(self, seed: int | None = None) -> None:
        """Restart this space's random generator from ``seed`` (None: fresh OS entropy)."""
        self._rng = np.random.default_rng(seed)

    def sample(self) -> Any:
        """Draw one value uniformly (or, for unbounded floats, from a wide distribution)."""
        raise NotImplementedError

    def null_value(self) -> Any:
        """A fixed 'no value' of the right shape and dtype (e.g. prev_action at episode start)."""
        raise NotImplementedError

    def contains(self, x: object) -> bool:
        """True when ``x`` has this space's shape and lies within its bounds."""
        raise NotImplementedError

    def __contains__(self, x: object) -> bool:
        return self.contains(x)


def child_seeds(seed: int | None, n: int) -> list[int | None]:
    """Derive ``n`` independent integer seeds from one (for the parts of a composite space)."""
    if seed is None:
        return [None] * n
    state = np.random.SeedSequence(seed).generate_state(n, dtype=np.uint32)
    return [int(s) for s in state]
