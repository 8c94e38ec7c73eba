"""The episode step: step a group of envs once, record the rows, and handle episode ends.

Box: Collector. Every collector, training or evaluation, serial, CPU or GPU, per-env or over a
vector env, steps its envs through :meth:`EpisodeStepper.step_envs`, one skeleton in three
phases: act on the envs and record the rows (:meth:`~EpisodeStepper._step_rows`), hand in the
trajectories that ended (:meth:`~EpisodeStepper._end_trajectories`), then the done hook of each
env that is ``done`` (:meth:`~EpisodeStepper._env_done`). The first two phases have two
implementations: here the per-env one (a loop over ``env.step``, one ``TrajInfo.step`` per
env), and ``rlpyt.samplers.vector.VecCollectorMixin`` the vector one (one ``VecEnv.step``,
masks, one ``TrajInfoBatch.step``). The collectors differ only in the small policy hooks that
both implementations call (which envs step now, where an ended trajectory is filed, how an env
restarts, what ``done`` does); the hooks run once per time step or once per episode end, never
once per env step. Invariant: per env ``b`` and step, the ``[B_local]`` rows ``observation[b]``,
``reward[b]`` and ``done[b]`` hold the env's new observation (the reset one after a mid-batch
reset), its reward and its ``done``; the env's TrajInfo has seen the step.

This is the hottest loop of the project: keep the per-env phase free of per-env calls beyond
``env.step`` and ``TrajInfo.step`` (whether a record has ``traj_done`` is asked once per time
step), and the vector phase free of per-env Python except at episode ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from rlpyt.envs.traj_info import TrajInfo, TrajInfoRows
from rlpyt.utils.buffer import buffer_func

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent

StepRows = tuple[Any, list[int], Any, list[int]]
"""What the first phase of the step returns: ``(env_infos, ended, finals, finished)``.

``env_infos`` goes to :func:`write_env_infos`; ``ended`` lists the envs whose trajectory ended
(ascending); ``finals`` holds their final observations in the implementation's own layout (read
only by the same implementation's :meth:`EpisodeStepper._end_trajectories`); ``finished`` lists
the envs that are ``done`` (ascending).
"""


def trajectory_ended(env_info: Any, done: bool) -> bool:
    """Whether the trajectory ended: ``env_info.traj_done`` if the record has it, else ``done``.

    Atari envs report a lost life as ``done`` without ending the game (the trajectory). No
    exception is raised for records without the field (this runs once per env step).

    Args:
        env_info: The env's info record (any namedtuple, or None).
        done: The env's ``done``.
    """
    fields = getattr(env_info, "_fields", None)
    if fields is None or "traj_done" not in fields:
        return done
    return env_info.traj_done


def has_traj_done(env_info: object) -> bool:
    """Whether an env's info record has ``traj_done`` (then it, not ``done``, ends trajectories)."""
    fields = getattr(env_info, "_fields", None)
    return fields is not None and "traj_done" in fields


def agent_info_rows(traj_infos: TrajInfoRows, agent_info: Any) -> Any:
    """``agent_info`` ``[B_local]`` when the TrajInfos' ``step`` may read its rows, else None.

    The base ``TrajInfo.step`` ignores ``agent_info``, and making one row per env costs more than
    its whole step, so it gets None; any subclass that overrides ``step`` gets its row.

    Args:
        traj_infos: The live TrajInfo of each env.
        agent_info: The agent's info record ``[B_local, ...]`` (a namedarraytuple, or None).
    """
    if not len(traj_infos) or agent_info is None or type(traj_infos[0]).step is TrajInfo.step:
        return None
    return agent_info


def write_env_infos(env_info_buf: Any, t: int, env_infos: list) -> None:
    """Write one time step's env_info records into ``env_info_buf[t]``.

    Args:
        env_info_buf: The ``[T, B_local]`` env_info buffer (a namedarraytuple, or None).
        t: Time index.
        env_infos: One record per env, None for an env not stepped (wait-reset: its row is
            zeroed, so e.g. ``timeout`` is False there); or, from vector collectors, one
            record of ``[B_local]`` arrays.
    """
    if not env_info_buf:
        return
    if not isinstance(env_infos, list):  # vector envs: one record of [B_local] arrays
        env_info_buf[t] = env_infos
        return
    fields = env_info_buf[t]
    flat = all(isinstance(field, np.ndarray) for field in fields)
    if flat and all(info is not None for info in env_infos):
        # One numpy assignment per field instead of one record assignment per env.
        for i, field in enumerate(fields):
            field[:] = [info[i] for info in env_infos]
        return
    for b, info in enumerate(env_infos):
        fields[b] = 0 if info is None else info  # a waiting env's row: zeros, not stale data


class EpisodeStepper:
    """The one episode step of every collector, with mid-batch reset as the default policy.

    Subclasses provide ``envs``, ``TrajInfoCls`` and ``agent`` (the collector bases set them).
    :meth:`step_envs` is the skeleton; :meth:`_step_rows` and :meth:`_end_trajectories` are
    its per-env implementation (``VecCollectorMixin`` overrides both with the vector one).
    Collector families change the policy through hooks: :meth:`_envs_to_step` (per-env, once
    per time step) or ``mid_batch_reset``, :meth:`_waiting_rows` and :meth:`_active_rows` (the
    same policy as masks, for the vector step); :meth:`_file_trajectory` and
    :meth:`_restart_env` (once per trajectory end, after its TrajInfo was terminated and
    replaced) and :meth:`_env_done` (once per ``done``).
    The defaults reset an env as soon as its trajectory ends and reset the agent's carried
    state of env ``b`` on its ``done``.

    Attributes:
        mid_batch_reset: An env whose trajectory ends is reset at once (wait-reset: False).
        _truncations: None, or a list that the step fills with ``(b, final observation)`` for
            each env whose trajectory a time limit cut (``env_info.timeout``): collectors
            that record ``timeout_value`` set it and empty it every time step.
    """

    envs: list[Env]
    TrajInfoCls: Callable[[], TrajInfo]
    agent: Agent | None
    mid_batch_reset: bool = True
    _truncations: list[tuple[int, Any]] | None = None

    def step_envs(
        self,
        action: np.ndarray,
        observation: Any,
        reward: np.ndarray,
        done: np.ndarray,
        agent_info: Any,
        traj_infos: TrajInfoRows,
        completed: list,
    ) -> Any:
        """Step the envs once; record their rows; hand in ended trajectories; done hooks.

        Args:
            action: ``[B_local, ...]`` actions (wait-reset: waiting rows get the null action).
            observation: ``[B_local, ...]`` observations, replaced by the next ones in place.
            reward: ``[B_local]`` float32, written in place.
            done: ``[B_local]`` bool, written in place.
            agent_info: The agent's info ``[B_local, ...]`` (rows go to TrajInfos that read
                them, see :func:`agent_info_rows`), or None.
            traj_infos: The live TrajInfo of each env (replaced when a trajectory ends).
            completed: Where finished TrajInfos go (training: one list; evaluation: per env).

        Returns:
            The env_infos for :func:`write_env_infos`: per-env, a list with one record per env
            (None for an env not stepped); vector, one record of ``[B_local]`` arrays.
        """
        env_infos, ended, finals, finished = self._step_rows(
            action, observation, reward, done, agent_info, traj_infos
        )
        if ended:
            self._end_trajectories(ended, finals, observation, traj_infos, completed)
        for b in finished:
            self._env_done(b)
        return env_infos

    def _step_rows(
        self,
        action: np.ndarray,
        observation: Any,
        reward: np.ndarray,
        done: np.ndarray,
        agent_info: Any,
        traj_infos: TrajInfoRows,
    ) -> StepRows:
        """Phase 1, per env: step each env of :meth:`_envs_to_step`; write its rows and TrajInfo.

        An ended env's row holds its final observation until :meth:`_end_trajectories`; an env
        a time limit cut (``env_info.timeout``) is filed in ``_truncations`` (if recorded).
        """
        envs = self.envs
        env_infos: list = [None] * len(envs)
        rows = agent_info_rows(traj_infos, agent_info)
        truncations = self._truncations
        ended: list[int] = []
        finals: list[Any] = []
        finished: list[int] = []
        ends_on_traj_done = None  # the envs' info records have traj_done (known at a step)
        for b in self._envs_to_step(action, reward, done):
            o, r, d, env_info = envs[b].step(action[b])
            traj_infos[b].step(
                observation[b], action[b], r, d, None if rows is None else rows[b], env_info
            )
            if ends_on_traj_done is None:
                ends_on_traj_done = has_traj_done(env_info)
            if env_info.traj_done if ends_on_traj_done else d:
                ended.append(b)
                finals.append(o)
                if truncations is not None and getattr(env_info, "timeout", False):
                    truncations.append((b, buffer_func(o, np.array)))  # reset may reuse o
            if d:
                finished.append(b)
            observation[b] = o
            reward[b] = r
            done[b] = d
            env_infos[b] = env_info
        return env_infos, ended, finals, finished

    def _end_trajectories(
        self,
        ended: list[int],
        finals: Any,
        observation: Any,
        traj_infos: TrajInfoRows,
        completed: list,
    ) -> None:
        """Phase 2, per env: hand in each ended env's TrajInfo, restart the env.

        Args:
            ended: The envs whose trajectory ended, ascending.
            finals: Their final observations, in the order of ``ended``.
            observation: ``[B_local, ...]``; row ``b`` gets what env ``b`` continues from.
            traj_infos: The live TrajInfo of each env.
            completed: Where finished TrajInfos go (see :meth:`_file_trajectory`).
        """
        for b, final in zip(ended, finals, strict=True):
            traj_info = traj_infos[b].terminate(final)
            traj_infos[b] = self.TrajInfoCls()
            self._file_trajectory(b, traj_info, completed)
            observation[b] = self._restart_env(b, final)

    def _envs_to_step(
        self, action: np.ndarray, reward: np.ndarray, done: np.ndarray
    ) -> Iterable[int]:
        """Per-env step: the envs that step at this time step (default: all of them)."""
        return range(len(self.envs))

    def _waiting_rows(self) -> np.ndarray | None:
        """Vector step: bool ``[B]`` of the envs that wait (not stepped), or None for none."""
        return None

    def _active_rows(self) -> np.ndarray | None:
        """Vector step: bool ``[B]`` of the envs that still run (evaluation quotas), or None.

        None means training: every row is recorded; a mask means evaluation, where only the
        active rows count.
        """
        return None

    def _file_trajectory(self, b: int, traj_info: TrajInfo, completed: list) -> None:
        """File env ``b``'s finished TrajInfo (training: one list for all envs)."""
        completed.append(traj_info)

    def _restart_env(self, b: int, observation: Any) -> Any:
        """Reset env ``b`` now (mid-batch); returns its first observation."""
        return self.envs[b].reset()

    def _env_done(self, b: int) -> None:
        """Env ``b`` is done: forget the agent's carried (recurrent) state of that env."""
        if self.agent is not None:
            self.agent.reset_one(idx=b)
