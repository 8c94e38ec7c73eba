"""The keywords an agent builds a model with: the env's, the agent's defaults and the user's.

Box: Agent (used by ``BaseAgent`` each time it builds a model). rlpyt built
``ModelCls(**env_model_kwargs, **model_kwargs)``; its users set in ``model_kwargs`` whatever the
model takes, and so may ours:

- **env keywords** (``observation_shape``, ``image_shape``, ``action_size``, ``output_size``)
  come from the env spaces, through one function per env kind (:func:`atari_model_kwargs`,
  :func:`classic_model_kwargs`, :func:`classic_dqn_model_kwargs`, :func:`mujoco_model_kwargs`)
  that an agent class names in ``env_model_kwargs_fn``. A user value equal to the env's is
  accepted; one that contradicts it cannot work and raises ``TypeError`` saying both values
  (rlpyt raised ``TypeError`` for any such keyword: "got multiple values").
- **derived keywords** (e.g. ``output_max = h``, the action bound, for DDPG's and TD3's mu)
  are the agent's choice from the env; a user value wins, with one warning if it differs.
- **defaults** (e.g. the QPG agents' ``hidden_sizes`` where the model class requires it) fill
  what the user's keywords leave out, silently.
- **the user's** ``model_kwargs`` (and ``q_model_kwargs``, ...) go through as they are.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces

EnvModelKwargsFn = Callable[["EnvSpaces"], dict[str, Any]]
"""A function from the env spaces to the model keywords they fix (one per env kind)."""


def same_value(a: object, b: object) -> bool:
    """Whether two keyword values are equal (lists and tuples compare by their items)."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return tuple(a) == tuple(b)
    try:
        return bool(a == b)
    except (TypeError, ValueError, RuntimeError):  # e.g. arrays of different shapes
        return False


def required_keywords(ModelCls: Callable[..., object]) -> set[str]:  # noqa: N803
    """Names of the keywords ``ModelCls(...)`` must be given (no default); empty if unknown."""
    try:
        parameters = inspect.signature(ModelCls).parameters.values()
    except (TypeError, ValueError):
        return set()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {p.name for p in parameters if p.kind in kinds and p.default is inspect.Parameter.empty}


def model_keywords(
    owner: str,
    keyword: str,
    user: Mapping[str, Any],
    env: Mapping[str, Any],
    derived: Mapping[str, Any],
    defaults: Mapping[str, Any],
    warned: set[str],
) -> dict[str, Any]:
    """The keywords to build a model with (see the module docstring).

    Args:
        owner: The agent's class name, for messages.
        keyword: The agent keyword ``user`` came from (``"model_kwargs"``, ...).
        user: The user's model keywords.
        env: Keywords from the env spaces (must agree with the user's).
        derived: The agent's keywords derived from the env (the user's win, warned).
        defaults: The agent's defaults (the user's win, silently).
        warned: ``"<keyword>.<name>"`` entries already warned about (updated), so each
            contradiction warns once per agent however often the model is rebuilt.

    Raises:
        TypeError: a user value contradicts an env keyword.
    """
    for name, value in user.items():
        if name in env and not same_value(value, env[name]):
            raise TypeError(
                f"{owner}: {keyword} {name}={value!r} contradicts the env, whose spaces give "
                f"{name}={env[name]!r}; a model of that shape cannot take this env's data. "
                f"Remove {name} from {keyword} (the agent sets it from the env spaces)."
            )
        if name in derived and not same_value(value, derived[name]):
            key = f"{keyword}.{name}"
            if key not in warned:
                warned.add(key)
                warnings.warn(
                    f"{owner}: {keyword} {name}={value!r} is used in place of the "
                    f"{name}={derived[name]!r} the agent derives from the env spaces.",
                    UserWarning,
                    stacklevel=2,
                )
    return {**defaults, **derived, **user, **env}


def atari_model_kwargs(env_spaces: EnvSpaces) -> dict[str, Any]:
    """Atari's stacked frames: ``image_shape=observation.shape`` (C, H, W), ``output_size=n``.

    The keywords of the policy-gradient and deep-Q Atari models alike.
    """
    return dict(
        image_shape=tuple(env_spaces.observation.shape),
        output_size=int(env_spaces.action.n),
    )


def classic_model_kwargs(env_spaces: EnvSpaces) -> dict[str, Any]:
    """Vector observations, discrete actions (PG models): ``observation_shape``, ``action_size``.

    ``action_size`` is the number of discrete actions ``n``.
    """
    return dict(
        observation_shape=tuple(env_spaces.observation.shape),
        action_size=int(env_spaces.action.n),
    )


def classic_dqn_model_kwargs(env_spaces: EnvSpaces) -> dict[str, Any]:
    """:func:`classic_model_kwargs` under the deep-Q models' names: ``output_size=n``."""
    kwargs = classic_model_kwargs(env_spaces)
    kwargs["output_size"] = kwargs.pop("action_size")
    return kwargs


def mujoco_model_kwargs(env_spaces: EnvSpaces) -> dict[str, Any]:
    """Continuous control: ``observation_shape``, ``action_size=action.shape[0]``.

    Raises:
        ValueError: the action space is not 1-D.
    """
    if len(env_spaces.action.shape) != 1:
        raise ValueError(
            f"Mujoco agents need a 1-D action space, got shape {env_spaces.action.shape}."
        )
    return dict(
        observation_shape=tuple(env_spaces.observation.shape),
        action_size=int(env_spaces.action.shape[0]),
    )


class AtariMixin:
    """Names :func:`atari_model_kwargs` as the agent's ``env_model_kwargs_fn``.

    Combined before an agent family (``class MyAgent(AtariMixin, CategoricalPgAgent)``);
    rlpyt's paths ``rlpyt.agents.pg.atari`` and ``rlpyt.agents.dqn.atari.mixin`` export it.
    """

    env_model_kwargs_fn: EnvModelKwargsFn | None = staticmethod(atari_model_kwargs)


class ClassicMixin:
    """Names :func:`classic_model_kwargs` as the agent's ``env_model_kwargs_fn``.

    The classic-control PG agents' keywords (``rlpyt.agents.pg.classic`` exports it).
    """

    env_model_kwargs_fn: EnvModelKwargsFn | None = staticmethod(classic_model_kwargs)
