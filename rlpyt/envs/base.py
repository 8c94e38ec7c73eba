"""The Env interface every sampler steps: ``reset() -> observation``, ``step(a) -> EnvStep``.

Samplers build one env per slot with ``EnvCls(**env_kwargs)``, allocate buffers from one
example step, then call ``step`` and (when ``env_info.traj_done``, else ``done``) ``reset``.
Observations and actions are numpy values (arrays or namedtuple records of arrays);
``env_info`` must be a namedtuple with the same fields, shapes and dtypes at every step.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

EnvStep = namedtuple("EnvStep", ["observation", "reward", "done", "env_info"])
EnvInfo = namedtuple("EnvInfo", [])
EnvSpaces = namedtuple("EnvSpaces", ["observation", "action"])

EnvValue = np.ndarray | np.generic | tuple
"""An observation or action of one env: a numpy array or scalar, or a (named) tuple record
of them (composite spaces)."""


class EnvSpacesMixin:
    """The space properties shared by per-env envs and vector envs (``rlpyt.envs.vector``).

    Subclasses set ``_action_space``, ``_observation_space`` (rlpyt spaces of one env) and
    optionally ``_horizon``.
    """

    _action_space: Any = None
    _observation_space: Any = None
    _horizon: int | None = None

    @property
    def action_space(self) -> Any:
        """The rlpyt space of (one env's) actions."""
        return self._action_space

    @property
    def observation_space(self) -> Any:
        """The rlpyt space of (one env's) observations."""
        return self._observation_space

    @property
    def spaces(self) -> EnvSpaces:
        """Both spaces, as ``EnvSpaces(observation, action)`` (agents initialize from this)."""
        return EnvSpaces(observation=self.observation_space, action=self.action_space)

    @property
    def horizon(self) -> int | None:
        """Maximum episode length in steps, or None when unlimited/unknown."""
        return self._horizon


class Env(EnvSpacesMixin):
    """Base class of rlpyt environments.

    Subclasses set ``self._action_space`` and ``self._observation_space`` (rlpyt spaces) and
    optionally ``self._horizon``, and implement :meth:`step` and :meth:`reset`.
    """

    def step(self, action: Any) -> EnvStep:
        """Advance one step.

        Args:
            action: A value of ``action_space`` (numpy array or scalar).

        Returns:
            ``EnvStep(observation, reward, done, env_info)``: reward a float32 scalar, done a
            bool, env_info a namedtuple with fixed fields.
        """
        raise NotImplementedError

    def reset(self) -> Any:
        """Start a new episode and return its first observation."""
        raise NotImplementedError

    def seed(self, seed: int | None = None) -> None:
        """Seed every source of randomness of the env (framework entry point).

        ``rlpyt.utils.seed.set_envs_seeds(envs, seed)`` calls ``env.seed(seed + i)``. The base
        version seeds the action and observation spaces; subclasses also seed their dynamics.
        """
        if self._action_space is not None:
            self._action_space.seed(seed)
        if self._observation_space is not None:
            self._observation_space.seed(None if seed is None else seed + 1)

    def close(self) -> None:
        """Release resources (windows, emulators, simulators); safe to call twice."""
