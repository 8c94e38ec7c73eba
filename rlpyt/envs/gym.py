"""Gymnasium envs as rlpyt envs: ``make("CartPole-v1")`` and ``GymEnvWrapper(env)``.

Samplers take ``EnvCls=make, env_kwargs=dict(id=...)``. The wrapper speaks rlpyt's Env
interface on top of gymnasium's (terminated, truncated) API:

- ``done = terminated or truncated``; ``env_info.timeout = truncated and not terminated`` is
  always present (bool), so algorithms can bootstrap through time limits.
- ``seed(s)`` seeds the spaces and makes the next ``reset()`` call ``reset(seed=s)``; later
  resets are unseeded, so the env's own RNG carries on and episodes differ.
- Observations are numpy (float64 -> float32 when ``force_float32``), Dict/Tuple
  observations are schema records, rewards are float32 scalars, info dicts are records of
  their numeric entries (see ``rlpyt.envs.gym_info``).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium.envs.registration import EnvSpec, load_env_creator, parse_env_id, registry
from numpy.typing import ArrayLike

from rlpyt.envs.base import Env, EnvStep, EnvValue
from rlpyt.envs.gym_info import EnvInfoWrapper, InfoConverter, infill_info, info_to_nt
from rlpyt.spaces.gym_wrapper import GymSpaceWrapper


class GymEnvWrapper(Env):
    """An rlpyt Env over a gymnasium env.

    On construction it runs one ``reset()`` and one random step to learn the info dict's keys
    (call ``reset()`` before stepping, as always). Attributes not defined here are looked up on
    the wrapped env (``wrapper.unwrapped``, ``wrapper.spec``, ...).

    Args:
        env: A gymnasium env (any wrappers included).
        act_null_value: Null action entry (the prev_action at episode start).
        obs_null_value: Null observation entry.
        force_float32: Float64 Box spaces and values become float32.

    ``step`` returns ``EnvStep(observation, reward, done, env_info)``: observation ``[*obs_shape]``
    (or a record), reward float32 scalar, done bool, env_info a record with the numeric info
    entries plus ``timeout`` (bool).
    """

    def __init__(
        self,
        env: gymnasium.Env,
        act_null_value: ArrayLike = 0,
        obs_null_value: ArrayLike = 0,
        force_float32: bool = True,
    ):
        self.env = env
        self._action_space = GymSpaceWrapper(
            env.action_space, act_null_value, name="act", force_float32=force_float32
        )
        self._observation_space = GymSpaceWrapper(
            env.observation_space, obs_null_value, name="obs", force_float32=force_float32
        )
        spec = getattr(env, "spec", None)
        self._horizon = getattr(spec, "max_episode_steps", None)
        self._seed_pending = False  # a flag, not a sentinel object: it must survive pickling
        self._next_reset_seed: int | None = None
        self._info_converter = self._discover_info()

    def _discover_info(self) -> InfoConverter:
        """Fix the env_info fields from one reset and one random step (warns on dropped keys)."""
        _, reset_info = self.env.reset()
        *_, step_info = self.env.step(self.env.action_space.sample())
        example = {**reset_info, **step_info}
        converter = InfoConverter(example, "EnvInfo", extra={"timeout": False})
        if converter.dropped:
            warnings.warn(
                f"Env info entries {converter.dropped} are not numeric (numbers, bools, numeric "
                "arrays) and are left out of env_info.",
                stacklevel=3,
            )
        return converter

    def step(self, action: EnvValue) -> EnvStep:
        """Step the gymnasium env with ``action`` (a record is reverted to a dict/tuple)."""
        gym_action = self._action_space.revert(action)
        observation, reward, terminated, truncated, info = self.env.step(gym_action)
        env_info = self._info_converter(info, bool(truncated and not terminated))
        return EnvStep(
            self._observation_space.convert(observation),
            np.float32(reward),
            bool(terminated or truncated),
            env_info,
        )

    def reset(self) -> Any:
        """Reset (with the seed given to :meth:`seed`, once) and return the observation."""
        if self._seed_pending:
            observation, _ = self.env.reset(seed=self._next_reset_seed)
            self._seed_pending = False
        else:
            observation, _ = self.env.reset()
        return self._observation_space.convert(observation)

    def seed(self, seed: int | None = None) -> None:
        """Seed the spaces now and the env at the next ``reset()`` (``reset(seed=seed)``)."""
        super().seed(seed)
        self._next_reset_seed = seed
        self._seed_pending = True

    @property
    def info_converter(self) -> InfoConverter:
        """The converter from info dicts to env_info records (``.schema``, ``.example``)."""
        return self._info_converter

    def render(self) -> Any:
        """The wrapped env's ``render()`` (its render_mode decides what comes back)."""
        return self.env.render()

    def close(self) -> None:
        """Close the wrapped env."""
        self.env.close()

    def __getattr__(self, name: str) -> Any:
        # Only reached for names not found normally; private names and `env` itself are never
        # forwarded (that would recurse while unpickling, before `env` exists).
        if name.startswith("_") or name == "env":
            raise AttributeError(name)
        return getattr(self.env, name)


def _is_retired(spec: EnvSpec) -> bool:
    """Registered by gymnasium only to raise (e.g. mujoco-py based ``Hopper-v3``)."""
    entry_point = spec.entry_point
    return (
        callable(entry_point)
        and not isinstance(entry_point, type)
        and getattr(entry_point, "__module__", "").startswith("gymnasium")
    )


def _newest_version(namespace: str | None, name: str) -> str | None:
    """The id of the newest working registered version of ``namespace/name``, if any."""
    versions = []
    for env_id, spec in registry.items():
        spec_ns, spec_name, version = parse_env_id(env_id)
        if (spec_ns, spec_name) == (namespace, name) and version is not None:
            if not _is_retired(spec):
                versions.append((version, env_id))
    return max(versions)[1] if versions else None


def resolve_env_id(env_id: str) -> str:
    """Map an env id retired by gymnasium to the newest registered version of the same env.

    Args:
        env_id: e.g. ``"Hopper-v3"``.

    Returns:
        ``env_id`` itself when gymnasium runs it, else the newest version (with a warning).

    Raises:
        ValueError: the id is retired and no working version of that env is registered.
    """
    try:
        namespace, name, version = parse_env_id(env_id)
    except gymnasium.error.Error:
        return env_id  # e.g. "module:EnvId" strings: gymnasium.make handles them
    spec = registry.get(env_id)
    if spec is not None and not _is_retired(spec):
        return env_id
    newest = _newest_version(namespace, name)
    if newest is None or newest == env_id:
        if spec is None:
            return env_id  # unknown id: gymnasium's own error names what exists
        raise ValueError(f"Env id {env_id!r} is retired by gymnasium and has no newer version.")
    if spec is None and version is not None and (parse_env_id(newest)[2] or 0) < version:
        return env_id  # asking for a version newer than any: not a retired id
    warnings.warn(
        f"Env id {env_id!r} is retired by gymnasium {gymnasium.__version__}; using {newest!r}.",
        stacklevel=3,
    )
    return newest


def _is_mujoco_failure(env_id: object, exc: BaseException) -> bool:
    spec = registry.get(env_id) if isinstance(env_id, str) else None
    entry_point = str(getattr(spec, "entry_point", ""))
    return "mujoco" in str(exc).lower() or "mujoco" in entry_point


def make(*args: Any, info_example: dict | None = None, **kwargs: Any) -> GymEnvWrapper:
    """Make a gymnasium env and wrap it: ``GymEnvWrapper(gymnasium.make(*args, **kwargs))``.

    Args:
        *args: Passed to ``gymnasium.make``; the first is the env id (or pass ``id=``).
        info_example: An info dict holding every key the env ever reports; when given, info
            dicts are padded to these keys (``EnvInfoWrapper``) before conversion.
        **kwargs: Passed to ``gymnasium.make`` (e.g. ``max_episode_steps``, ``render_mode``).

    Returns:
        The wrapped env. Retired ids (``"Hopper-v3"``) map to the newest version with a warning.

    Raises:
        ImportError: the env needs MuJoCo and it is not installed.
        gymnasium.error.UnregisteredEnv: no such env id (the message names it).
    """
    if args and isinstance(args[0], str):
        args = (resolve_env_id(args[0]), *args[1:])
    elif isinstance(kwargs.get("id"), str):
        kwargs["id"] = resolve_env_id(kwargs["id"])
    env_id = args[0] if args else kwargs.get("id")
    try:
        env = gymnasium.make(*args, **kwargs)
    except gymnasium.error.UnregisteredEnv as exc:
        raise type(exc)(f"Cannot make env {env_id!r}: {exc}") from exc
    except (gymnasium.error.DependencyNotInstalled, ImportError) as exc:
        if _is_mujoco_failure(env_id, exc):
            raise ImportError(
                f'Env {env_id!r} needs MuJoCo, which is not installed: pip install "rlpyt[mujoco]"'
            ) from exc
        raise
    if info_example is not None:
        env = EnvInfoWrapper(env, info_example)
    return GymEnvWrapper(env)


__all__ = [
    "EnvInfoWrapper",
    "GymEnvWrapper",
    "InfoConverter",
    "infill_info",
    "info_to_nt",
    "make",
    "registered_env_creator",
    "resolve_env_id",
]


def registered_env_creator(
    EnvCls: Callable[..., Any],  # noqa: N803
    env_kwargs: Mapping[str, Any],
) -> tuple[Callable[..., Any], set[str], dict[str, Any]] | None:
    """``(env constructor, make's own keywords, registered kwargs)`` for gym ids, else None.

    For ``EnvCls`` = :func:`make` (or ``gymnasium.make``) with ``env_kwargs["id"]`` a registered
    id: the class ``make`` would build, without building it (samplers check ``env_kwargs``
    against it). None for other callables, unknown ids and envs that cannot be imported.
    """
    env_id = env_kwargs.get("id")
    if EnvCls not in (make, gymnasium.make) or not isinstance(env_id, str):
        return None
    try:
        with warnings.catch_warnings():  # a retired id's warning comes when the env is made
            warnings.simplefilter("ignore")
            spec = gymnasium.spec(resolve_env_id(env_id))
        entry_point = spec.entry_point
        creator = load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point
    except Exception:  # noqa: BLE001 (unknown id, missing dependency: make reports it)
        return None
    if not callable(creator):
        return None
    make_keywords = set(inspect.signature(gymnasium.make).parameters) | set(
        inspect.signature(EnvCls).parameters
    )
    return creator, make_keywords, dict(spec.kwargs or {})
