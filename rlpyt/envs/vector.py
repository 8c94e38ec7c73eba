"""The vector-env interface: B envs stepped in one call, with rlpyt's episode semantics.

Box: Env (batched). Samplers take a vector-env maker as ``EnvCls`` (the one keyword that
switches a run from per-env envs to a batched backend): :func:`is_vector_env_maker` tells them
apart, and each sampler or worker builds one vector env over its slice of B with
``EnvCls(num_envs=B_local, **env_kwargs)``. The vector collectors
(``rlpyt.samplers.vector``) call :meth:`VecEnv.reset` once, :meth:`VecEnv.step` once per time
step and :meth:`VecEnv.reset_envs` between batches (wait-reset). Adapters:
``rlpyt.envs.gym_vector`` (gymnasium ``VectorEnv``, every ``make_vec`` mode),
``rlpyt.envs.envpool`` (envpool, optional extra) and :class:`EnvListVecEnv` (a list of per-env
envs; ``EnvCls=EnvListMaker(EnvCls)``).

Semantics every adapter provides (they are rlpyt's per-env ones, so the per-env and the vector
collectors give the same samples):

- ``done[b] = terminated or truncated``; ``env_info.timeout[b] = truncated and not terminated``
  is always present; envs whose ``done`` is not the end of the trajectory (Atari lives) add
  ``env_info.traj_done``.
- With ``autoreset`` True (the default), an env whose trajectory ended (``traj_done``, else
  ``done``) is reset within the same ``step`` call: ``observation[b]`` is the first observation
  of the next episode and ``final_observation[b]`` the last one of the ended episode (for
  bootstrapping through a time limit). A backend that can only reset on its *next* call
  (gymnasium's NEXT_STEP autoreset without partial resets, e.g. the native vectorized
  CartPole) sets ``next_step_reset``: the env's row at the ended step holds its last
  observation, and on the next call it does not take its action (``stepped[b]`` False) but
  returns its reset observation, reward 0, ``done`` False; collectors record that row as a
  wait-reset row.
- With ``autoreset`` False (wait-reset collectors), ended envs are not reset: their rows hold
  the last observation until the caller resets them with :meth:`reset_envs`. The backend may
  go on stepping them (results the caller ignores) unless it can step a subset.
- ``seed(s)`` makes env b start from ``reset(seed=s + b)`` at the next :meth:`reset`, as
  ``set_envs_seeds`` seeds per-env envs ``s + b``: a sampler gives env b of its slice the seed
  ``seed + global index``, whatever the backend.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any, Protocol, cast

import numpy as np

from rlpyt.envs.base import Env, EnvSpacesMixin, EnvStep
from rlpyt.utils.buffer import ArrayTree, buffer_from_example, buffer_func

VecEnvStep = namedtuple(
    "VecEnvStep",
    ["observation", "reward", "done", "env_info", "final_observation", "stepped"],
)
VecEnvStep.__doc__ = """What :meth:`VecEnv.step` returns (arrays ``[B, ...]``).

Fields:
    observation: Next observations (the reset ones where a trajectory ended and ``autoreset``).
    reward: float32 ``[B]``.
    done: bool ``[B]``.
    env_info: A record of ``[B, ...]`` arrays with fixed fields (``timeout`` always present).
    final_observation: None when no trajectory ended at this step, else ``[B, ...]`` whose rows
        where one ended hold its last observation (other rows are unspecified).
    stepped: None when every env took its action, else bool ``[B]``, False for envs that were
        being reset by a ``next_step_reset`` backend (their action was ignored).
"""


class VecEnv(EnvSpacesMixin):
    """Base class of vector envs: ``num_envs`` envs of one kind stepped in one call.

    Subclasses set ``num_envs``, ``_action_space`` and ``_observation_space`` (rlpyt spaces of
    ONE env, as per-env envs have them) and optionally ``_horizon``, and implement
    :meth:`reset`, :meth:`step`, :meth:`seed` and :meth:`close` (and :meth:`reset_envs` where
    ``can_reset_subset``).

    Arrays returned by :meth:`step` and :meth:`reset` may be owned by the vector env and are
    valid until its next call; callers copy what they keep. Where the caller passes
    ``observation``/``reward``/``done`` arrays, the adapter writes into them (and returns them).

    Class attributes:
        can_reset_subset: :meth:`reset_envs` works (wait-reset collectors need it).
        next_step_reset: See the module docstring (NEXT_STEP autoreset backends).
    """

    can_reset_subset = False
    next_step_reset = False
    num_envs: int = 0
    autoreset: bool = True

    def reset(self, *, observation: Any = None) -> Any:
        """Reset every env; returns the observations ``[B, ...]``.

        Args:
            observation: Optional ``[B, ...]`` array (or record) to write the result into.
        """
        raise NotImplementedError

    def step(
        self,
        action: Any,
        *,
        observation: Any = None,
        reward: np.ndarray | None = None,
        done: np.ndarray | None = None,
    ) -> VecEnvStep:
        """Step every env once with ``action[b]`` (``[B, ...]``); see the module semantics.

        Args:
            action: ``[B, ...]`` actions (values of ``action_space`` stacked).
            observation: Optional ``[B, ...]`` array to write the next observations into.
            reward: Optional float32 ``[B]`` array to write the rewards into.
            done: Optional bool ``[B]`` array to write ``done`` into.
        """
        raise NotImplementedError

    def reset_envs(self, mask: np.ndarray, *, observation: Any = None) -> Any:
        """Reset the envs where ``mask`` (bool ``[B]``) is True; returns all observations.

        Rows where ``mask`` is False hold those envs' current observations (as last returned).

        Raises:
            NotImplementedError: the backend cannot reset a subset (``can_reset_subset``).
        """
        raise NotImplementedError(
            f"{type(self).__name__} cannot reset a subset of its envs, which wait-reset "
            "collectors need: use a reset collector (CpuResetCollector/GpuResetCollector) or a "
            "backend that can (gymnasium sync/async vector envs, envpool)."
        )

    def seed(self, seed: int | None = None) -> None:
        """Env b starts from ``reset(seed=seed + b)`` at the next :meth:`reset` (None: unseeded)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the backend (worker processes, threads, simulators); safe to call twice."""


class MarkedMaker(Protocol):
    """A callable carrying the mark that :func:`is_vector_env_maker` reads."""

    vectorized: bool


def vector_env_maker(maker: Callable[..., VecEnv]) -> Callable[..., VecEnv]:
    """Mark a callable ``maker(num_envs=..., **env_kwargs) -> VecEnv`` as a vector-env maker.

    Samplers then build one vector env per worker instead of one env per slot.
    """
    cast(MarkedMaker, maker).vectorized = True  # the mark, as a function attribute
    return maker


def is_vector_env_maker(EnvCls: object) -> bool:  # noqa: N803
    """Whether a sampler's ``EnvCls`` makes vector envs (a VecEnv subclass, or marked)."""
    if isinstance(EnvCls, type):
        return issubclass(EnvCls, VecEnv)
    return bool(getattr(EnvCls, "vectorized", False))


class SingleEnvView(Env):
    """A ``num_envs=1`` vector env seen as a per-env Env (for the samplers' example step).

    Samplers allocate buffers from one example reset and step of one env
    (``rlpyt.samplers.buffer.get_example_outputs``); this gives them row 0 of a vector env.
    """

    def __init__(self, vec_env: VecEnv):
        if vec_env.num_envs < 1:
            raise ValueError(
                f"SingleEnvView needs a vector env with envs; it has {vec_env.num_envs}."
            )
        self.vec_env = vec_env
        self._action_space = vec_env.action_space
        self._observation_space = vec_env.observation_space
        self._horizon = vec_env.horizon

    def reset(self) -> Any:
        """Reset the vector env; returns env 0's observation."""
        return buffer_row(self.vec_env.reset(), 0)

    def step(self, action: Any) -> EnvStep:
        """Step every env with ``action`` (env 0's result is returned)."""
        actions = _stack(action, self.vec_env.num_envs)
        out = self.vec_env.step(actions)
        return EnvStep(
            buffer_row(out.observation, 0),
            np.float32(out.reward[0]),
            bool(out.done[0]),
            buffer_row(out.env_info, 0),
        )

    def close(self) -> None:
        """Close the vector env."""
        self.vec_env.close()


def deliver(current: Any, out: Any) -> Any:
    """What adapters return for a result they own: ``current``, or a copy of it in ``out``.

    Where the caller passed ``out`` (see :meth:`VecEnv.step`), ``current`` is written into it
    and ``out`` is returned; else ``current`` itself (valid until the adapter's next call).
    """
    if out is None:
        return current
    out[:] = current
    return out


def buffer_row(value: ArrayTree, b: int) -> Any:
    """Row ``b`` of an array or of a (nested) record of arrays, as a copy (None stays None)."""
    return buffer_func(value, lambda array: np.array(array[b]))


def _stack(value: object, n: int) -> Any:
    """``n`` copies of one action (array, scalar or record) stacked on a new leading axis."""
    if isinstance(value, tuple) and hasattr(value, "_make"):  # a record (namedtuple-like)
        return value._make(_stack(v, n) for v in value)
    return np.repeat(np.asarray(value)[None], n, axis=0)


class EnvListVecEnv(VecEnv):
    """A list of per-env envs as one vector env, stepped one env after the other.

    The vector collectors then do the batched bookkeeping (one ``TrajInfoBatch`` step, masks)
    over ordinary envs; the envs see the calls the per-env collectors make (an ended
    trajectory's env is reset within the same step under ``autoreset``; with ``autoreset``
    False it is not stepped again until :meth:`reset_envs`), so the samples are the per-env
    ones. ``env_info`` is the envs' own records stacked into ``[B]`` arrays (rows of envs not
    stepped hold zeros); trajectories end on ``env_info.traj_done`` where the record has it.

    Args:
        envs: The envs, at least one, all of one kind (same spaces and info record).
    """

    can_reset_subset = True
    next_step_reset = False

    def __init__(self, envs: list[Env]):
        if not envs:
            raise ValueError("EnvListVecEnv needs at least one env.")
        self.envs = list(envs)
        self.num_envs = len(self.envs)
        self._action_space = self.envs[0].action_space
        self._observation_space = self.envs[0].observation_space
        self._horizon = self.envs[0].horizon
        self._reward = np.zeros(self.num_envs, dtype=np.float32)
        self._done = np.zeros(self.num_envs, dtype=bool)
        self._waiting = np.zeros(self.num_envs, dtype=bool)  # autoreset False: ended, not reset
        self._observation: Any = None  # [B, ...], built at the first reset
        self._env_info: Any = None  # record of [B] arrays, built at the first step

    def seed(self, seed: int | None = None) -> None:
        """Env b gets ``env.seed(seed + b)`` (envs without ``seed`` are left alone)."""
        if seed is None:
            return
        for b, env in enumerate(self.envs):
            if callable(getattr(env, "seed", None)):
                env.seed(seed + b)

    def reset(self, *, observation: Any = None) -> Any:
        """Reset every env; returns the observations ``[B, ...]``."""
        first = [env.reset() for env in self.envs]
        if self._observation is None:
            self._observation = buffer_from_example(first[0], self.num_envs)
        for b, o in enumerate(first):
            self._observation[b] = o
        self._waiting[:] = False
        return deliver(self._observation, observation)

    def reset_envs(self, mask: np.ndarray, *, observation: Any = None) -> Any:
        """Reset the envs where ``mask``; returns every env's current observation."""
        for b in np.flatnonzero(mask).tolist():
            self._observation[b] = self.envs[b].reset()
            self._waiting[b] = False
        return deliver(self._observation, observation)

    def step(
        self,
        action: Any,
        *,
        observation: Any = None,
        reward: np.ndarray | None = None,
        done: np.ndarray | None = None,
    ) -> VecEnvStep:
        """Step every env that does not wait with ``action[b]``; see the module semantics."""
        waited = self._waiting.copy()
        infos: list = [None] * self.num_envs
        final = None
        for b in np.flatnonzero(~waited).tolist():
            o, r, d, info = self.envs[b].step(action[b])
            self._reward[b], self._done[b], infos[b] = r, d, info
            if info.traj_done if "traj_done" in getattr(info, "_fields", ()) else d:
                if final is None:
                    final = buffer_func(self._observation, np.copy)
                final[b] = o
                if self.autoreset:
                    o = self.envs[b].reset()
                else:
                    self._waiting[b] = True
            self._observation[b] = o
        self._reward[waited] = 0
        self._done[waited] = True  # as per-env wait-reset collectors record them
        return VecEnvStep(
            deliver(self._observation, observation),
            deliver(self._reward, reward),
            deliver(self._done, done),
            self._stack_infos(infos),
            final,
            None,
        )

    def _stack_infos(self, infos: list) -> Any:
        """The envs' info records as one record of ``[B]`` arrays (zeros where None)."""
        if self._env_info is None:
            example = next((info for info in infos if info is not None), None)
            if example is None:
                return None
            self._env_info = buffer_from_example(example, self.num_envs)
        for b, info in enumerate(infos):
            self._env_info[b] = 0 if info is None else info
        return self._env_info

    def close(self) -> None:
        """Close every env."""
        for env in self.envs:
            env.close()


class EnvListMaker:
    """A vector-env maker over per-env envs: ``EnvListMaker(EnvCls)`` as a sampler's ``EnvCls``.

    Builds ``EnvListVecEnv([EnvCls(**env_kwargs) for _ in range(num_envs)])``; picklable (for
    spawn workers) when ``EnvCls`` is.
    """

    vectorized = True

    def __init__(self, EnvCls: Callable[..., Env]):  # noqa: N803
        self.EnvCls = EnvCls

    def __call__(self, num_envs: int = 1, **env_kwargs: Any) -> EnvListVecEnv:
        """``num_envs`` envs ``EnvCls(**env_kwargs)`` as one vector env."""
        return EnvListVecEnv([self.EnvCls(**env_kwargs) for _ in range(num_envs)])
