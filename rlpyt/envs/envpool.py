"""envpool as an rlpyt vector env: ``make("Pong-v5", num_envs=B)`` (optional ``envpool`` extra).

Box: Env (batched). Samplers take ``EnvCls=make, env_kwargs=dict(task_id=..., ...)`` and build
one vector env per worker with ``make(num_envs=B_local, **env_kwargs)``. envpool steps its envs
in C++ threads; :class:`EnvpoolVecEnv` gives it the semantics of ``rlpyt.envs.vector`` (read its
module docstring) using envpool's subset calls ``step(action, env_id)`` and ``reset(env_id)``:

- envpool resets an ended env on its *next* call (ignoring that call's action). With
  ``autoreset`` the adapter makes that next call itself, for the ended envs only, within the
  same :meth:`~EnvpoolVecEnv.step`: the row holds the first observation of the next episode and
  ``final_observation`` the last one of the ended episode (``next_step_reset`` is False).
- With ``autoreset`` False, envs whose trajectory ended are not stepped again (the others are
  stepped with ``env_id``) until :meth:`~EnvpoolVecEnv.reset_envs`; their rows hold the last
  observation, zero reward and ``done``.
- Atari tasks (``Pong-v5``, ...) get rlpyt's ``AtariEnv`` defaults where envpool has the knob
  (``episodic_life=True``, ``reward_clip=True``, ``use_fire_reset=False``) and ``AtariEnv``'s
  ``env_info = EnvInfo(game_score, traj_done, timeout)``: ``done`` on a lost life,
  ``traj_done`` only at game over or truncation, ``game_score`` the unclipped reward (so
  ``AtariTrajInfo`` works). A lost life is always followed by envpool's life restart within the
  same step (as ``AtariEnv`` does it inside its step), ``autoreset`` or not. The observation is
  envpool's own preprocessing, ``[4, 84, 84]`` uint8 (the max of the skip's last two frames,
  the whole 210 x 160 screen area-resized), not ``AtariEnv``'s ``[4, 104, 80]`` (cropped, 2x2
  mean). Also unlike ``AtariEnv``: a new game fills the stack with its first frame (not
  zeros), a lost life keeps the stack and plays 1..``noop_max`` no-op frames (whose score is
  not reported), starts play 1..``noop_max`` no-ops (``AtariEnv``: 0..``max_start_noops``).
- Other tasks: observations float32 (``force_float32``), ``env_info`` holds envpool's numeric
  per-env info entries plus ``timeout = truncated and not terminated``.
- Seeding: envpool seeds env b of a pool built with ``seed=s`` with ``s + b`` (env b of such a
  pool runs exactly as env 0 of a pool built with ``s + b``) and cannot reseed a built pool, so
  the pool is built at the first :meth:`~EnvpoolVecEnv.reset` and rebuilt there after
  :meth:`~EnvpoolVecEnv.seed`.
- Not picklable (envpool's C++ pool has no saved state): resume restarts the envs.
- envpool's async mode (``batch_size < num_envs``: each call returns whichever envs finished
  first) does not fill a lockstep ``[T, B]`` buffer and is refused; instead
  :meth:`~EnvpoolVecEnv.step_async` then :meth:`~EnvpoolVecEnv.step_wait` let a caller work
  while the envs step.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from rlpyt.envs.atari.atari_env import EnvInfo as AtariEnvInfo
from rlpyt.envs.vector import VecEnv, VecEnvStep, deliver, vector_env_maker
from rlpyt.spaces.gym_wrapper import GymSpaceWrapper
from rlpyt.utils.collections import NamedTupleSchema

# rlpyt's AtariEnv defaults for the envpool keywords that have a counterpart there.
ATARI_DEFAULTS = dict(episodic_life=True, reward_clip=True, use_fire_reset=False)
_BOOKKEEPING_INFO = ("env_id", "players.env_id", "elapsed_step")  # not env_info fields


def _import_envpool() -> Any:
    try:
        import envpool  # noqa: PLC0415 (an optional extra: imported when an env is made)
    except ImportError as exc:
        raise ImportError(
            "rlpyt.envs.envpool needs envpool, which is not installed: "
            'pip install "rlpyt[envpool]" (or pip install envpool).'
        ) from exc
    return envpool


_OWN_KEYWORDS = ("act_null_value", "obs_null_value", "force_float32")
_SET_BY_ADAPTER = ("num_envs", "batch_size", "env_type")


def _check_task_kwargs(envpool: ModuleType, task_id: str, envpool_kwargs: dict) -> None:
    """Raise unless ``task_id`` is an envpool task and every keyword one of its config keys."""
    if task_id not in envpool.list_all_envs():
        raise ValueError(f"Unknown envpool task {task_id!r}; see envpool.list_all_envs().")
    fields = set(envpool.make_spec(task_id).config._fields) - set(_SET_BY_ADAPTER)
    unknown = sorted(set(envpool_kwargs) - fields - set(_OWN_KEYWORDS))
    if unknown:
        raise TypeError(
            f"envpool task {task_id!r} has no config key(s) {unknown}; its keys: "
            f"{sorted(fields)} (and EnvpoolVecEnv's own: {list(_OWN_KEYWORDS)})."
        )


def check_env_kwargs(env_kwargs: dict) -> None:
    """Check a sampler's ``env_kwargs`` for :func:`make` before any env is built.

    Does nothing when envpool is not installed (building the env then says so).

    Raises:
        TypeError: no ``task_id``, or a keyword the task does not have (named).
        ValueError: an unknown ``task_id``.
    """
    if "task_id" not in env_kwargs:
        raise TypeError("env_kwargs for rlpyt.envs.envpool.make need 'task_id' (e.g. 'Pong-v5').")
    try:
        envpool = _import_envpool()
    except ImportError:
        return
    kwargs = {k: v for k, v in env_kwargs.items() if k != "task_id"}
    _check_task_kwargs(envpool, env_kwargs["task_id"], kwargs)


class EnvpoolVecEnv(VecEnv):
    """An rlpyt vector env over an envpool pool (gymnasium API); see the module docstring.

    Args:
        task_id: envpool task id (``"Pong-v5"``, ``"CartPole-v1"``, ``"HalfCheetah-v5"``;
            ``envpool.list_all_envs()`` lists them).
        num_envs: B, the envs stepped per call.
        batch_size: None or ``num_envs`` (envpool's async mode is refused, see below).
        act_null_value: Null action entry (the prev_action at episode start).
        obs_null_value: Null observation entry.
        force_float32: Float64 Box spaces and values become float32.
        **envpool_kwargs: Passed to ``envpool.make`` (``seed``, ``max_episode_steps``,
            ``num_threads``, ``episodic_life``, ``noop_max``, ...); Atari tasks default to
            :data:`ATARI_DEFAULTS`. ``seed`` defaults to envpool's own default.

    Raises:
        ValueError: ``batch_size`` differs from ``num_envs``, or an unknown ``task_id``.
        TypeError: a keyword that is not a config key of the task (named in the message).
        ImportError: envpool is not installed.
    """

    can_reset_subset = True
    next_step_reset = False

    def __init__(
        self,
        task_id: str,
        num_envs: int = 1,
        batch_size: int | None = None,
        act_null_value: ArrayLike = 0,
        obs_null_value: ArrayLike = 0,
        force_float32: bool = True,
        **envpool_kwargs: Any,
    ):
        if batch_size is not None and batch_size != num_envs:
            raise ValueError(
                f"EnvpoolVecEnv got batch_size={batch_size} with num_envs={num_envs}: envpool's "
                "async mode returns whichever batch_size envs finish first, which does not fill "
                "rlpyt's lockstep [T, B] buffers. Leave batch_size None; to overlap the agent "
                "with the envs, call step_async(action) then step_wait()."
            )
        self._envpool = _import_envpool()
        _check_task_kwargs(self._envpool, task_id, envpool_kwargs)
        self.task_id = task_id
        self.num_envs = int(num_envs)
        self.autoreset = True
        spec = self._envpool.make_spec(task_id, num_envs=self.num_envs)
        self.is_atari = hasattr(spec.config, "episodic_life")
        kwargs = {**ATARI_DEFAULTS, **envpool_kwargs} if self.is_atari else dict(envpool_kwargs)
        self._seed = int(kwargs.pop("seed", spec.config.seed))
        self.envpool_kwargs = kwargs
        spec = self._envpool.make_spec(task_id, num_envs=self.num_envs, **kwargs)
        self._action_space = GymSpaceWrapper(
            spec.action_space, act_null_value, name="act", force_float32=force_float32
        )
        self._observation_space = GymSpaceWrapper(
            spec.observation_space, obs_null_value, name="obs", force_float32=force_float32
        )
        self._horizon = int(spec.config.max_episode_steps)
        self._pool: Any = None  # built at the first reset() (and after seed())
        self._allocate(spec)

    def _allocate(self, spec: Any) -> None:
        """The arrays the adapter owns and returns (valid until its next call)."""
        B = self.num_envs  # noqa: N806
        self._all_ids = np.arange(B, dtype=np.int32)
        space = self._observation_space
        self._observation = np.zeros((B, *space.shape), dtype=space.dtype)
        self._reward = np.zeros(B, dtype=np.float32)
        self._done = np.zeros(B, dtype=bool)
        self._terminated = np.zeros(B, dtype=bool)
        self._truncated = np.zeros(B, dtype=bool)
        self._waiting = np.zeros(B, dtype=bool)  # autoreset False: trajectory ended, not reset
        self._sent: np.ndarray | None = None  # env ids of the step_async() in flight
        self._timeout = np.zeros(B, dtype=bool)
        if self.is_atari:
            self._game_over = np.zeros(B, dtype=bool)
            self._traj_done = np.zeros(B, dtype=bool)
            self._info_fields: dict[str, np.ndarray] = {"reward": np.zeros(B, dtype=np.float32)}
            self._env_info: Any = AtariEnvInfo(
                self._info_fields["reward"], self._traj_done, self._timeout
            )
            return
        self._info_fields = {}
        for key, array_spec in spec.state_array_spec.items():
            name = key[len("info:") :]
            if key.startswith("info:") and name not in _BOOKKEEPING_INFO:
                shape = tuple(d for d in array_spec.shape if d != -1)  # -1: per player (one)
                self._info_fields[name] = np.zeros((B, *shape), dtype=array_spec.dtype)
        schema = NamedTupleSchema("EnvInfo", [*self._info_fields, "timeout"])
        self._env_info = schema._make([*self._info_fields.values(), self._timeout])

    def _build_pool(self) -> Any:
        if self._pool is not None:
            self._pool.close()
        self._pool = self._envpool.make(
            self.task_id,
            env_type="gymnasium",
            num_envs=self.num_envs,
            seed=self._seed,
            **self.envpool_kwargs,
        )
        return self._pool

    def reset(self, *, observation: Any = None) -> Any:
        """Reset every env (building the pool with the current seed if needed); ``[B, ...]``."""
        pool = self._build_pool() if self._pool is None else self._pool
        envpool_observation, info = pool.reset()
        self._observation[info["env_id"]] = envpool_observation
        self._waiting[:] = False
        self._sent = None
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
        self.step_async(action)
        return self.step_wait(observation=observation, reward=reward, done=done)

    def step_async(self, action: Any) -> None:
        """Send ``action`` (``[B, ...]``) to the envs and return while they step.

        Collect the result with :meth:`step_wait`; no other call may come in between.
        """
        if self._pool is None:
            raise RuntimeError("Call reset() before stepping an EnvpoolVecEnv.")
        if self._sent is not None:
            raise RuntimeError("step_async() twice without step_wait() in between.")
        action = np.asarray(self._action_space.revert(action))
        if self._waiting.any():  # autoreset False: ended envs are not stepped
            ids = np.flatnonzero(~self._waiting).astype(np.int32)
            if ids.size:
                self._pool.send(action[ids], ids)
            self._sent = ids
        else:
            self._pool.send(action)
            self._sent = self._all_ids

    def step_wait(
        self,
        *,
        observation: Any = None,
        reward: np.ndarray | None = None,
        done: np.ndarray | None = None,
    ) -> VecEnvStep:
        """Receive the step sent by :meth:`step_async`; returns what :meth:`step` returns."""
        if self._sent is None:
            raise RuntimeError("step_wait() without a step_async() before it.")
        ids, self._sent = self._sent, None
        waiting = self._waiting.copy()
        self._reward[:] = 0
        self._terminated[:] = False
        self._truncated[:] = False
        if ids.size:
            self._record(self._pool.recv(), full=ids.size == self.num_envs)
        np.logical_or(self._terminated, self._truncated, out=self._done)
        traj_done = self._end_flags()
        final_observation = np.copy(self._observation) if traj_done.any() else None
        restart = self._done if self.autoreset else self._done & ~traj_done  # lost lives
        if restart.any():
            self._restart(np.flatnonzero(restart).astype(np.int32))
        if not self.autoreset:
            self._waiting |= traj_done
        if waiting.any():  # rows that did not step: as per-env wait-reset collectors record
            self._done[waiting] = True
        return VecEnvStep(
            deliver(self._observation, observation),
            deliver(self._reward, reward),
            deliver(self._done, done),
            self._env_info,
            final_observation,
            None,
        )

    def _record(self, result: tuple, full: bool) -> None:
        """Write one envpool result into the owned arrays (rows of the envs it holds)."""
        envpool_observation, envpool_reward, terminated, truncated, info = result
        ids = info["env_id"]
        rows: Any = slice(None) if full and np.array_equal(ids, self._all_ids) else ids
        self._observation[rows] = envpool_observation
        self._reward[rows] = envpool_reward
        self._terminated[rows] = terminated
        self._truncated[rows] = truncated
        if not full:
            for array in self._info_fields.values():
                array[...] = 0
        for name, array in self._info_fields.items():
            array[rows] = info[name]
        if self.is_atari:
            self._game_over[:] = False
            self._game_over[rows] = info["terminated"]

    def _end_flags(self) -> np.ndarray:
        """Set ``timeout`` (and Atari's ``traj_done``); returns where trajectories ended."""
        game_over = self._game_over if self.is_atari else self._terminated
        np.logical_and(self._truncated, ~game_over, out=self._timeout)
        if not self.is_atari:
            return self._done
        np.logical_or(self._game_over, self._truncated, out=self._traj_done)
        return self._traj_done

    def _restart(self, ids: np.ndarray) -> None:
        """Envpool's next call on ended envs resets them (action ignored): make it for ``ids``."""
        null_action = np.asarray(self._action_space.null_value())
        null_actions = np.repeat(null_action[None], ids.size, axis=0)
        envpool_observation, *_, info = self._pool.step(null_actions, ids)
        self._observation[info["env_id"]] = envpool_observation

    def reset_envs(self, mask: np.ndarray, *, observation: Any = None) -> Any:
        """Reset the envs where ``mask`` (bool ``[B]``); returns every env's current observation.

        envpool's ``reset(env_id)``: a new episode for those envs, continuing their RNG streams.
        """
        if self._pool is None:
            raise RuntimeError("Call reset() before reset_envs() on an EnvpoolVecEnv.")
        ids = np.flatnonzero(np.asarray(mask, dtype=bool)).astype(np.int32)
        if ids.size:
            envpool_observation, info = self._pool.reset(ids)
            self._observation[info["env_id"]] = envpool_observation
            self._waiting[ids] = False
        return deliver(self._observation, observation)

    def seed(self, seed: int | None = None) -> None:
        """Env b starts from seed ``seed + b`` at the next :meth:`reset` (the pool is rebuilt).

        None draws a seed from OS entropy. The spaces are seeded too (``action_space.sample``).
        """
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._seed = int(seed)
        self._action_space.seed(self._seed)
        self._observation_space.seed(self._seed + 1)
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def close(self) -> None:
        """Stop envpool's threads; safe to call twice."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __getstate__(self) -> dict:
        """Envpool pools cannot be pickled (their C++ state is not exposed).

        Raises:
            TypeError: always; samplers then save no envs and say that resume is not exact.
        """
        raise TypeError(
            "EnvpoolVecEnv cannot be pickled: envpool does not expose its envs' state, so a "
            "resumed run restarts these envs (resume is not exact for envpool backends)."
        )


@vector_env_maker
def make(
    task_id: str, num_envs: int = 1, batch_size: int | None = None, **envpool_kwargs: Any
) -> EnvpoolVecEnv:
    """Make an :class:`EnvpoolVecEnv` (the sampler's ``EnvCls`` for envpool).

    Args:
        task_id: envpool task id, e.g. ``"Pong-v5"``.
        num_envs: B, the envs of this vector env.
        batch_size: None or ``num_envs`` (envpool's async mode is refused).
        **envpool_kwargs: Passed to :class:`EnvpoolVecEnv` (and on to ``envpool.make``).

    Returns:
        The vector env; its pool is built at the first ``reset()``.
    """
    return EnvpoolVecEnv(task_id, num_envs=num_envs, batch_size=batch_size, **envpool_kwargs)
