"""Env detection: which kind of env an id names, and the keywords that make it.

Box: command line, used by :mod:`rlpyt.cli.resolve`. An id is a gymnasium id
(``"CartPole-v1"``, ``"HalfCheetah-v5"``) or an Atari game (``"pong"``, ``"ALE/Pong-v5"``,
``"PongNoFrameskip-v4"``); the kind (:data:`ENV_KINDS`) picks the agent and default config.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

__all__ = ["ENV_KINDS", "atari_game", "env_kind"]

ENV_KINDS = ("classic-discrete", "classic-continuous", "mujoco", "atari")
"""Env kinds: gymnasium vector-observation envs with discrete or continuous actions, gymnasium
MuJoCo envs (continuous), and Atari games (``rlpyt.envs.atari.atari_env.AtariEnv``)."""


def atari_game(env: str) -> str | None:
    """The ale-py game name for an Atari env id, or None when ``env`` is no Atari id.

    ``"ALE/SpaceInvaders-v5"`` and ``"SpaceInvadersNoFrameskip-v4"`` -> ``"space_invaders"``;
    a snake_case ROM id (``"pong"``) is itself.
    """
    from ale_py import roms  # noqa: PLC0415 (ale-py loads its ROM list)

    if env.startswith("ALE/"):
        name = re.sub(r"-v\d+$", "", env[4:])
    elif "/" not in env and env == env.lower() and "-" not in env:
        name = env
    else:
        match = re.fullmatch(r"([A-Z][A-Za-z]*?)(?:NoFrameskip|Deterministic)?-v[04]", env)
        if match is None or match.group(1)[0].islower():
            return None
        name = match.group(1)
    game = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    if env.startswith("ALE/") or game in roms.get_all_rom_ids():
        return game
    return None


def env_kind(env: str) -> tuple[str, dict[str, Any]]:
    """The kind of env ``env`` is and the keywords that make it.

    Args:
        env: A gymnasium id (``"CartPole-v1"``, ``"HalfCheetah-v5"``) or an Atari game
            (``"pong"``, ``"ALE/Pong-v5"``).

    Returns:
        ``(kind, env_kwargs)``: one of :data:`ENV_KINDS` and ``{"game": ...}`` (Atari, for
        ``AtariEnv``) or ``{"id": ...}`` (gymnasium, for ``rlpyt.envs.gym.make``).

    Raises:
        ValueError: no such env; the message names the closest ids.
    """
    game = atari_game(env)
    if game is not None:
        from rlpyt.envs.atari.atari_env import rom_path  # noqa: PLC0415

        rom_path(game)  # ValueError naming the closest games
        return "atari", {"game": game}
    return gym_kind(env), {"id": env}


def gym_kind(env_id: str) -> str:
    """The kind of the registered gymnasium env ``env_id`` (made once to read its actions).

    Raises:
        ValueError: gymnasium has no such id; the message names the closest ones.
    """
    import gymnasium  # noqa: PLC0415

    from rlpyt.envs.gym import resolve_env_id  # noqa: PLC0415

    if env_id not in gymnasium.envs.registry:
        ids = [i for i in gymnasium.envs.registry if not i.startswith("ALE/")]
        close = difflib.get_close_matches(env_id, ids, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(
            f"Unknown env id {env_id!r}: gymnasium has no such env.{hint} Pass a registered "
            "gymnasium id (see gymnasium.pprint_registry()) or an Atari game such as 'pong' "
            "or 'ALE/Pong-v5'."
        )
    spec = gymnasium.spec(resolve_env_id(env_id))
    if "mujoco" in str(spec.entry_point):
        return "mujoco"
    probe = gymnasium.make(spec.id)
    try:
        discrete = isinstance(probe.action_space, gymnasium.spaces.Discrete)
    finally:
        probe.close()
    return "classic-discrete" if discrete else "classic-continuous"


def max_episode_steps(env_kwargs: dict[str, Any]) -> int | None:
    """The time limit gymnasium registers for ``env_kwargs["id"]`` (None: none, or no id)."""
    if "id" not in env_kwargs:
        return None
    import gymnasium  # noqa: PLC0415

    steps = gymnasium.spec(env_kwargs["id"]).max_episode_steps
    return int(steps) if steps else None
