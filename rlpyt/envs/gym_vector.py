"""Gymnasium vector envs as rlpyt vector envs: ``make_vec("CartPole-v1", num_envs=B)``.

Box: Env (batched). Samplers take ``EnvCls=make_vec, env_kwargs=dict(id=..., ...)`` and build
one vector env per worker with ``make_vec(num_envs=B_local, **env_kwargs)``;
:class:`GymVecEnvWrapper` gives any gymnasium ``VectorEnv`` the semantics of
``rlpyt.envs.vector`` (read its module docstring). How each gymnasium autoreset mode maps on
them:

- DISABLED (what :func:`make_vec` builds for the ``"sync"`` and ``"async"`` modes): the
  wrapper resets ended envs itself with ``reset(options={"reset_mask": ...})`` inside the same
  ``step`` call, so every sub-env sees the calls a per-env ``GymEnvWrapper`` sees under a
  collector (same RNG draws, same samples); ``reset_envs`` works (``can_reset_subset``).
- NEXT_STEP (native vectorized envs such as gymnasium's ``CartPoleVectorEnv``): the backend
  resets an ended env on its next call, ignoring its action; the wrapper reports that row with
  ``stepped[b]`` False (``next_step_reset``). Such envs always autoreset.
- SAME_STEP: the backend resets in the same call and reports ``final_obs``; always autoreset.

``env_info`` holds the numeric entries of the info dicts (fields fixed from one probe reset and
step at construction, as ``GymEnvWrapper`` does) plus ``timeout``, all ``[B, ...]``.
"""

from __future__ import annotations

import copy
import functools
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.envs.registration import load_env_creator
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv
from numpy.typing import ArrayLike

from rlpyt.envs.gym import _is_mujoco_failure, resolve_env_id
from rlpyt.envs.gym_info import InfoConverter, numeric_example
from rlpyt.envs.vector import VecEnv, VecEnvStep, deliver, vector_env_maker
from rlpyt.spaces.gym_wrapper import GymSpaceWrapper
from rlpyt.utils.collections import NamedTuple

_FINAL_KEYS = ("final_obs", "final_info", "_final_obs", "_final_info")


class VecInfoConverter:
    """Vector info dicts (``{key: [B] values, "_key": [B] mask}``) as records of ``[B]`` arrays.

    The fields are fixed from one example dict (numeric entries kept, nested dicts nested,
    others dropped, as :class:`~rlpyt.envs.gym_info.InfoConverter` decides for one env), and
    the record's arrays are owned by the converter: each call rewrites them (rows whose mask is
    False, or keys absent, hold zeros) and returns the same record.

    Args:
        example: One vector info dict.
        num_envs: B.
        name: Record typename (nested records are ``<name>_<key>``).
        extra: Fields appended at the end, ``{field: default}``, with ``[B]`` arrays the caller
            fills through :meth:`extra_array` (``timeout``).
    """

    def __init__(
        self,
        example: Mapping,
        num_envs: int,
        name: str = "EnvInfo",
        extra: Mapping | None = None,
    ):
        extra = dict(extra or {})
        rows = _first_rows(example, exclude=set(extra) | set(_FINAL_KEYS))
        self.row_converter = InfoConverter(rows, name, extra=extra)
        self.schema = self.row_converter.schema
        self.dropped = self.row_converter.dropped
        self._entries: list[tuple[Any, np.ndarray | None, VecInfoConverter | None]] = []
        values: list[Any] = []
        for key, value in rows.items():
            if isinstance(key, str) and key in extra:
                continue
            if isinstance(value, Mapping):
                child = VecInfoConverter(example[key], num_envs, f"{name}_{key}")
                if child.schema._fields:
                    self._entries.append((key, None, child))
                    values.append(child.record)
            elif numeric_example(value) is not None:
                array = np.zeros((num_envs, *np.shape(value)), dtype=np.asarray(value).dtype)
                self._entries.append((key, array, None))
                values.append(array)
        self._extra = {
            field: np.full(num_envs, default, dtype=np.asarray(default).dtype)
            for field, default in extra.items()
        }
        values.extend(self._extra.values())
        self.record: NamedTuple = self.schema._make(values)
        self._warned: set[str] = set()

    def extra_array(self, field: str) -> np.ndarray:
        """The ``[B]`` array of an extra field (the caller writes it before using the record)."""
        return self._extra[field]

    def __call__(self, info: Mapping) -> NamedTuple:
        """Write ``info`` into the record's arrays and return the record."""
        for key, array, child in self._entries:
            value = info.get(key)
            if child is not None:
                child(value if isinstance(value, Mapping) else {})
            elif array is None:
                continue
            elif value is None:
                array[...] = 0
            else:
                self._fill(key, array, value, info.get(f"_{key}"))
        return self.record

    def _fill(self, key: str, array: np.ndarray, value: ArrayLike, mask: ArrayLike | None) -> None:
        try:
            if mask is None:
                array[...] = value
            else:
                mask = np.asarray(mask, dtype=bool)
                array[~mask] = 0
                array[mask] = np.asarray(value)[mask]
        except (TypeError, ValueError):
            array[...] = 0
            if str(key) not in self._warned:
                self._warned.add(str(key))
                warnings.warn(
                    f"Vector env info entry {key!r} does not match its first value (dtype "
                    f"{array.dtype}, shape {array.shape[1:]} per env); recording zeros for it.",
                    stacklevel=3,
                )


def _first_rows(info: Mapping, exclude: set) -> dict:
    """Env 0's entry of each key of a vector info dict (mask keys ``_key`` and ``exclude`` out)."""
    rows: dict = {}
    for key, value in info.items():
        if key in exclude or (isinstance(key, str) and key.startswith("_") and key[1:] in info):
            continue
        if isinstance(value, Mapping):
            rows[key] = _first_rows(value, set())
        elif isinstance(value, np.ndarray) and value.ndim >= 1:
            rows[key] = value[0] if value.dtype != object else None
        else:
            rows[key] = None  # not a per-env array: dropped by the converter
    return rows


class GymVecEnvWrapper(VecEnv):
    """An rlpyt vector env over a gymnasium ``VectorEnv`` (see the module docstring).

    On construction it runs one ``reset()`` and one random step to learn the info dict's keys
    (call ``reset()`` before stepping, as always).

    Args:
        env: A gymnasium ``VectorEnv`` (sync, async or a native vectorized env).
        act_null_value: Null action entry (the prev_action at episode start).
        obs_null_value: Null observation entry.
        force_float32: Float64 Box spaces and values become float32.

    Attributes:
        env: The gymnasium vector env.
        autoreset_mode: Its gymnasium ``AutoresetMode``.
    """

    def __init__(
        self,
        env: VectorEnv,
        act_null_value: ArrayLike = 0,
        obs_null_value: ArrayLike = 0,
        force_float32: bool = True,
    ):
        self.env = env
        self.num_envs = int(env.num_envs)
        self.autoreset_mode = _autoreset_mode(env)
        self.next_step_reset = self.autoreset_mode == AutoresetMode.NEXT_STEP
        self.can_reset_subset = self.autoreset_mode == AutoresetMode.DISABLED
        if self.can_reset_subset and not isinstance(env.unwrapped, SyncVectorEnv | AsyncVectorEnv):
            raise ValueError(
                f"{type(env.unwrapped).__name__} has autoreset mode DISABLED but rlpyt only knows "
                "how to reset some of the envs of SyncVectorEnv and AsyncVectorEnv "
                '(reset(options={"reset_mask": ...})): build it in NEXT_STEP or SAME_STEP mode.'
            )
        self.autoreset = True
        self._action_space = GymSpaceWrapper(
            env.single_action_space, act_null_value, name="act", force_float32=force_float32
        )
        self._observation_space = GymSpaceWrapper(
            env.single_observation_space, obs_null_value, name="obs", force_float32=force_float32
        )
        self._horizon = _horizon(env)
        self._seed_pending = False
        self._next_reset_seed: int | None = None
        self._info_converter = self._discover_info()
        self._timeout = self._info_converter.extra_array("timeout")
        self._reward = np.zeros(self.num_envs, dtype=np.float32)
        self._done = np.zeros(self.num_envs, dtype=bool)
        self._reset_next = np.zeros(self.num_envs, dtype=bool)  # NEXT_STEP: resets on next call
        self._waiting = np.zeros(self.num_envs, dtype=bool)  # autoreset False: ended, not reset
        self._observation: Any = None  # current observations [B, ...], owned here

    def _discover_info(self) -> VecInfoConverter:
        """Fix the env_info fields from one reset and one random step (warns on dropped keys)."""
        _, reset_info = self.env.reset()
        *_, step_info = self.env.step(self.env.action_space.sample())
        converter = VecInfoConverter(
            {**reset_info, **step_info}, self.num_envs, extra={"timeout": False}
        )
        if converter.dropped:
            warnings.warn(
                f"Vector env info entries {converter.dropped} are not numeric per-env arrays and "
                "are left out of env_info.",
                stacklevel=3,
            )
        return converter

    def reset(self, *, observation: Any = None) -> Any:
        """Reset every env (with the seed given to :meth:`seed`, once); returns ``[B, ...]``."""
        seed = self._next_reset_seed if self._seed_pending else None
        self._seed_pending = False
        gym_observation, _ = self.env.reset(seed=seed)
        self._reset_next[:] = False
        self._waiting[:] = False
        self._observation = _copy_of(self._observation_space.convert(gym_observation))
        return deliver(self._observation, observation)

    def step(
        self,
        action: Any,
        *,
        observation: Any = None,
        reward: np.ndarray | None = None,
        done: np.ndarray | None = None,
    ) -> VecEnvStep:
        """Step every env with ``action[b]``; see ``rlpyt.envs.vector`` for the semantics."""
        if self._observation is None:
            raise RuntimeError("Call reset() before step() on a GymVecEnvWrapper.")
        waiting = bool(self._waiting.any())
        if waiting and isinstance(self.env.unwrapped, SyncVectorEnv):
            result = _step_sync_subset(
                self.env.unwrapped, self._action_space.revert(action), self._waiting
            )
        else:  # an AsyncVectorEnv steps its waiting envs too; their results are overwritten
            result = self.env.step(self._action_space.revert(action))
        gym_observation, gym_reward, terminated, truncated, info = result
        reward = self._reward if reward is None else reward
        done = self._done if done is None else done
        reward[:] = gym_reward
        np.logical_or(terminated, truncated, out=done)
        np.logical_and(truncated, np.logical_not(terminated), out=self._timeout)
        current = self._observation
        if waiting:  # autoreset False: rows of ended envs keep their last observation
            current[~self._waiting] = self._observation_space.convert(gym_observation)[
                ~self._waiting
            ]
        else:
            current[:] = self._observation_space.convert(gym_observation)
        stepped = self._mask_rows(reward, done, waiting)
        env_info = self._info_converter(info)
        final_observation = self._end_episodes(done, info) if done.any() else None
        if waiting:
            done[self._waiting] = True  # as per-env wait-reset collectors record them
        return VecEnvStep(
            deliver(current, observation), reward, done, env_info, final_observation, stepped
        )

    def _mask_rows(self, reward: np.ndarray, done: np.ndarray, waiting: bool) -> Any:
        """Zero the rows of envs that did not step; returns ``stepped`` (None: all stepped)."""
        if waiting:
            reward[self._waiting] = 0
            done[self._waiting] = False
            self._timeout[self._waiting] = False
            return None
        if self.next_step_reset:
            if not self._reset_next.any():
                return None
            stepped = ~self._reset_next
            reward[self._reset_next] = 0
            done[self._reset_next] = False
            self._timeout[self._reset_next] = False
            self._reset_next[:] = False
            return stepped
        return None

    def _end_episodes(self, done: np.ndarray, info: Mapping) -> Any:
        """Final observations of the envs that ended; resets them where this wrapper must."""
        final = _copy_of(self._observation)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._reset_next[:] = done
        elif self.autoreset_mode == AutoresetMode.SAME_STEP:
            rows = np.flatnonzero(done)
            final_obs = info["final_obs"]
            for b in rows.tolist():
                final[b] = self._observation_space.convert(final_obs[b])
        elif self.autoreset:
            self._reset_rows(done.copy())
        else:
            self._waiting |= done
        return final

    def _reset_rows(self, mask: np.ndarray) -> None:
        """Reset the envs where ``mask``; their first observations go into the current ones."""
        gym_observation, _ = self.env.reset(options={"reset_mask": mask})
        self._observation[mask] = self._observation_space.convert(gym_observation)[mask]

    def reset_envs(self, mask: np.ndarray, *, observation: Any = None) -> Any:
        """Reset the envs where ``mask`` (bool ``[B]``); returns every env's current observation.

        Raises:
            NotImplementedError: the backend autoresets by itself (NEXT_STEP or SAME_STEP).
        """
        if not self.can_reset_subset:
            return super().reset_envs(mask, observation=observation)
        mask = np.asarray(mask, dtype=bool)
        if self._observation is None:
            raise RuntimeError("Call reset() before reset_envs() on a GymVecEnvWrapper.")
        if mask.any():
            self._reset_rows(mask)
            self._waiting &= ~mask
        return deliver(self._observation, observation)

    def seed(self, seed: int | None = None) -> None:
        """Seed the spaces now and the envs at the next ``reset()``: ``reset(seed=seed)``.

        Sync and async vector envs then seed env b with ``seed + b`` (as per-env envs seeded
        by ``set_envs_seeds``); a native vectorized env seeds its one generator with ``seed``.
        """
        self._action_space.seed(seed)
        self._observation_space.seed(None if seed is None else seed + 1)
        self._next_reset_seed = seed
        self._seed_pending = True

    @property
    def info_converter(self) -> VecInfoConverter:
        """The converter from vector info dicts to env_info records (``.schema``, ``.record``)."""
        return self._info_converter

    def close(self) -> None:
        """Close the gymnasium vector env (stops async workers); safe to call twice."""
        self.env.close()


def _autoreset_mode(env: VectorEnv) -> AutoresetMode:
    mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    return mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)


def _horizon(env: VectorEnv) -> int | None:
    """Maximum episode length: the spec's (sync/async) or the native env's own attribute."""
    spec = getattr(env.unwrapped, "spec", None)
    steps = getattr(spec, "kwargs", {}).get("max_episode_steps") if spec is not None else None
    if steps is None:
        steps = getattr(spec, "max_episode_steps", None)
    if steps is None:
        steps = getattr(env.unwrapped, "max_episode_steps", None)
    return None if steps is None else int(steps)


def _copy_of(value: object) -> Any:
    """A copy of an array or of a (nested) record of arrays."""
    if isinstance(value, tuple) and hasattr(value, "_make"):  # a record (namedtuple-like)
        return value._make(_copy_of(v) for v in value)
    return np.array(value)


def _step_sync_subset(env: SyncVectorEnv, actions: Any, waiting: np.ndarray) -> tuple:
    """Step the sub-envs of ``env`` that do not wait (DISABLED mode); waiting rows keep theirs.

    Per-env wait-reset collectors do not step an env that waits, so neither does this (the
    env's RNG then draws as the per-env env's does).
    """
    infos: dict = {}
    stepping = np.flatnonzero(~waiting).tolist()
    rewards = np.zeros(env.num_envs)
    terminated = np.zeros(env.num_envs, dtype=bool)
    truncated = np.zeros(env.num_envs, dtype=bool)
    actions_list = list(gymnasium.vector.utils.iterate(env.action_space, actions))
    for i in stepping:
        obs, rewards[i], terminated[i], truncated[i], info = env.envs[i].step(actions_list[i])
        env._env_obs[i] = obs
        infos = env._add_info(infos, info, i)
    observations = gymnasium.vector.utils.concatenate(
        env.single_observation_space, env._env_obs, env._observations
    )
    return observations, rewards, terminated, truncated, infos


_MODES = ("sync", "async", "vector_entry_point")


@vector_env_maker
def make_vec(
    id: str,  # noqa: A002 (gymnasium's keyword)
    num_envs: int = 1,
    vectorization_mode: str | None = None,
    vector_kwargs: dict[str, Any] | None = None,
    wrappers: Sequence[Any] | None = None,
    force_float32: bool = True,
    **kwargs: Any,
) -> GymVecEnvWrapper:
    """Make a gymnasium vector env and wrap it: ``GymVecEnvWrapper(gymnasium.make_vec(...))``.

    Args:
        id: The env id (retired ids map to the newest version with a warning).
        num_envs: B, the number of envs (at least 1).
        vectorization_mode: ``"sync"``, ``"async"``, ``"vector_entry_point"`` or None
            (gymnasium's choice: the native vectorized env where the id has one, else sync).
        vector_kwargs: Keywords of ``SyncVectorEnv``/``AsyncVectorEnv``; ``autoreset_mode``
            defaults to DISABLED (the wrapper resets ended envs itself, as per-env collectors
            do) and ``copy`` to False (the wrapper copies what it keeps).
        wrappers: Gymnasium wrappers applied to each sub-env (sync and async modes).
        force_float32: Float64 Box spaces and values become float32.
        **kwargs: Passed to the env constructor (e.g. ``max_episode_steps``).

    Returns:
        The wrapped vector env.

    Raises:
        ValueError: ``num_envs`` below 1 or an unknown ``vectorization_mode``.
        ImportError: the env needs MuJoCo and it is not installed.
        gymnasium.error.UnregisteredEnv: no such env id (the message names it).
    """
    if int(num_envs) < 1:
        raise ValueError(f"make_vec needs num_envs >= 1; got num_envs={num_envs}.")
    mode = getattr(vectorization_mode, "value", vectorization_mode)
    if mode is not None and mode not in _MODES:
        raise ValueError(
            f"Unknown vectorization_mode {vectorization_mode!r}: use one of {list(_MODES)} or "
            "None (the native vectorized env where the id has one, else sync)."
        )
    env_id = resolve_env_id(id) if isinstance(id, str) else id
    if mode is None:
        mode = "vector_entry_point" if _has_vector_entry_point(env_id) else "sync"
    if mode == "vector_entry_point" and (vector_kwargs or wrappers):
        raise ValueError(
            f"vectorization_mode='vector_entry_point' builds {env_id!r}'s own vectorized env, "
            "which takes neither vector_kwargs nor wrappers: pass its keywords directly, or use "
            "vectorization_mode='sync' or 'async'."
        )
    try:
        if mode == "vector_entry_point":
            env = gymnasium.make_vec(
                env_id, num_envs=int(num_envs), vectorization_mode=mode, **kwargs
            )
        else:
            env = _per_env_vector(env_id, int(num_envs), mode, vector_kwargs, wrappers, kwargs)
    except gymnasium.error.UnregisteredEnv as exc:
        raise type(exc)(f"Cannot make vector env {env_id!r}: {exc}") from exc
    except (gymnasium.error.DependencyNotInstalled, ImportError) as exc:
        if _is_mujoco_failure(env_id, exc):
            raise ImportError(
                f'Env {env_id!r} needs MuJoCo, which is not installed: pip install "rlpyt[mujoco]"'
            ) from exc
        raise
    return GymVecEnvWrapper(env, force_float32=force_float32)


def _per_env_vector(
    env_id: str,
    num_envs: int,
    mode: str,
    vector_kwargs: dict[str, Any] | None,
    wrappers: Sequence[Any] | None,
    kwargs: dict[str, Any],
) -> VectorEnv:
    """A SyncVectorEnv/AsyncVectorEnv over ``gymnasium.make(env_id, **kwargs)`` sub-envs.

    Built here rather than by ``gymnasium.make_vec`` because its sub-env factory is a closure:
    this one is a module-level function (``functools.partial``), so a sync vector env pickles
    whenever its sub-envs do (samplers save env state for exact resume). Autoreset is DISABLED
    (the wrapper resets ended envs, as per-env collectors do) and ``copy`` False (the wrapper
    copies what it keeps), unless ``vector_kwargs`` says otherwise.
    """
    spec = copy.deepcopy(gymnasium.spec(env_id))  # unknown ids fail here, in this process
    factory = functools.partial(_make_sub_env, env_id, tuple(wrappers or ()), dict(kwargs))
    vector_kwargs = {
        "autoreset_mode": AutoresetMode.DISABLED,
        "copy": False,
        **(vector_kwargs or {}),
    }
    VectorCls = SyncVectorEnv if mode == "sync" else AsyncVectorEnv  # noqa: N806
    env = VectorCls([factory] * num_envs, **vector_kwargs)
    spec.kwargs = {**(spec.kwargs or {}), **kwargs}
    env.unwrapped.spec = spec
    return env


def _make_sub_env(env_id: str, wrappers: tuple, kwargs: dict[str, Any]) -> gymnasium.Env:
    """One sub-env of a sync/async vector env: ``gymnasium.make`` and the user's wrappers."""
    env = gymnasium.make(env_id, **kwargs)
    for wrapper in wrappers:
        env = wrapper(env)
    return env


def _has_vector_entry_point(env_id: str) -> bool:
    try:
        return gymnasium.spec(env_id).vector_entry_point is not None
    except gymnasium.error.Error:
        return False  # unknown id: make_vec raises with gymnasium's message


def registered_vec_env_creator(
    env_kwargs: Mapping[str, Any],
) -> tuple[Callable[..., Any], set[str], dict[str, Any]] | None:
    """``(env constructor, make_vec's own keywords, registered kwargs)`` for :func:`make_vec`.

    The counterpart of ``rlpyt.envs.gym.registered_env_creator`` for ``EnvCls=make_vec``:
    the class ``make_vec(**env_kwargs)`` would build per env (sync/async) or as a whole
    (``vector_entry_point``), without building it, so samplers can check ``env_kwargs``
    against it. None for unknown ids and envs that cannot be imported.
    """
    env_id = env_kwargs.get("id")
    if not isinstance(env_id, str):
        return None
    mode = getattr(env_kwargs.get("vectorization_mode"), "value", None) or env_kwargs.get(
        "vectorization_mode"
    )
    try:
        with warnings.catch_warnings():  # a retired id's warning comes when the env is made
            warnings.simplefilter("ignore")
            spec = gymnasium.spec(resolve_env_id(env_id))
        native = mode == "vector_entry_point" or (mode is None and spec.vector_entry_point)
        entry_point = spec.vector_entry_point if native else spec.entry_point
        creator = load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point
    except Exception:  # noqa: BLE001 (unknown id, missing dependency: make_vec reports it)
        return None
    if not callable(creator):
        return None
    make_keywords = set(inspect.signature(make_vec).parameters) - {"kwargs"}
    if not native:  # gymnasium.make's own keywords (max_episode_steps, ...) for each sub-env
        make_keywords |= set(inspect.signature(gymnasium.make).parameters) - {"kwargs"}
    return creator, make_keywords, dict(spec.kwargs or {})


__all__ = ["GymVecEnvWrapper", "VecInfoConverter", "make_vec", "registered_vec_env_creator"]
