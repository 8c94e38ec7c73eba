"""Vector collectors: one ``VecEnv.step`` and one agent call per time step, bookkeeping batched.

Box: Collector (batched envs). Samplers take a vector-env maker as ``EnvCls``
(:func:`rlpyt.envs.vector.is_vector_env_maker`); then :func:`make_envs` builds ONE vector env
over the sampler's (or worker's) slice of B and presents it as a list of ``B_local`` slot
views (:class:`VecEnvSlot`), so everything that counts, seeds, pickles or closes ``envs``
keeps working, and :func:`collector_class` turns the chosen collector class (``CpuResetCollector``,
``GpuWaitResetCollector``, an eval collector, a user's subclass) into its vector twin by putting
:class:`VecCollectorMixin` first. The mixin implements the vector phases of the one episode step
(:meth:`~rlpyt.samplers.episode.EpisodeStepper.step_envs`: ``_step_rows`` and
``_end_trajectories``) and the start-up hooks of the collector bases (resets, decorrelation);
the step's skeleton and policy hooks, batch loops, agent calls, buffers and state saving are the
collectors' own.

Invariant: for gymnasium's sync vector env (the same envs, seeds and resets as per-env
``GymEnvWrapper`` envs) the vector collectors write the same samples and TrajInfos as the
per-env collectors, field by field. Per-env Python runs only where a trajectory ends or an env
is done (TrajInfo hand-in, the agent's recurrent-state reset), never once per env step.
Decorrelation is the exception: its random actions are drawn per env (start-up only).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

from rlpyt.agents.base import AgentInputs
from rlpyt.envs.traj_info import TrajInfoBatch, TrajInfoRows
from rlpyt.envs.vector import SingleEnvView, VecEnv, buffer_row, is_vector_env_maker
from rlpyt.samplers.episode import EpisodeStepper, StepRows
from rlpyt.utils.buffer import buffer_func
from rlpyt.utils.seed import set_envs_seeds

if TYPE_CHECKING:
    from rlpyt.envs.base import Env

# -- a vector env as a list of envs -----------------------------------------------------------


class VecEnvSlot:
    """Env ``index`` of a vector env, as an entry of a collector's ``envs`` list.

    Spaces, ``horizon`` and ``close`` (closes the shared vector env; idempotent) work; stepping
    or resetting one slot does not (vector collectors step the vector env itself).
    """

    def __init__(self, vec_env: VecEnv, index: int):
        self.vec_env = vec_env
        self.index = index

    @property
    def action_space(self) -> Any:  # noqa: D102
        return self.vec_env.action_space

    @property
    def observation_space(self) -> Any:  # noqa: D102
        return self.vec_env.observation_space

    @property
    def spaces(self) -> Any:  # noqa: D102
        return self.vec_env.spaces

    @property
    def horizon(self) -> int | None:  # noqa: D102
        return self.vec_env.horizon

    def step(self, action: object) -> Any:
        """Refused: a slot of a vector env steps only with the whole vector env."""
        raise TypeError(
            f"Env {self.index} is a slot of {type(self.vec_env).__name__}: step the vector env "
            "(collectors made by rlpyt.samplers.vector.collector_class do)."
        )

    reset = step
    seed = step

    def close(self) -> None:
        """Close the vector env (every slot closes the same one; closing twice is harmless)."""
        if not getattr(self.vec_env, "_rlpyt_closed", False):
            self.vec_env.close()
            self.vec_env._rlpyt_closed = True  # type: ignore[attr-defined]


def make_envs(
    EnvCls: Callable[..., Any],  # noqa: N803
    env_kwargs: dict,
    n: int,
    seed: int | None,
) -> list[Any]:
    """The ``n`` envs of one collector: ``EnvCls(**env_kwargs)`` each, or one vector env.

    Env b is seeded ``seed + b`` (callers pass ``seed`` = the seed plus the first global index
    of the slice); a vector env gets ``vec_env.seed(seed)``, which seeds its env b the same way.
    """
    if not is_vector_env_maker(EnvCls):
        envs = [EnvCls(**env_kwargs) for _ in range(n)]
        if seed is not None:
            set_envs_seeds(envs, seed)
        return envs
    if n <= 0:
        return []
    vec_env = EnvCls(num_envs=n, **env_kwargs)
    check_vec_env(vec_env, n, EnvCls)
    vec_env.seed(seed)
    return [VecEnvSlot(vec_env, b) for b in range(n)]


def check_vec_env(vec_env: object, n: int, EnvCls: object) -> None:  # noqa: N803
    """Raise a clear error unless ``vec_env`` is a VecEnv of ``n`` envs."""
    if not isinstance(vec_env, VecEnv):
        raise TypeError(
            f"EnvCls {EnvCls!r} is marked as a vector-env maker but returned "
            f"{type(vec_env).__name__}, not an rlpyt.envs.vector.VecEnv."
        )
    if vec_env.num_envs != n:
        raise ValueError(
            f"EnvCls {EnvCls!r} was asked for num_envs={n} and made {vec_env.num_envs} envs."
        )


def make_example_env(EnvCls: Callable[..., Any], env_kwargs: dict) -> Env:  # noqa: N803
    """A throwaway env for the samplers' example step (row 0 of a 1-env vector env)."""
    if is_vector_env_maker(EnvCls):
        vec_env = EnvCls(num_envs=1, **env_kwargs)
        check_vec_env(vec_env, 1, EnvCls)
        return SingleEnvView(vec_env)
    return EnvCls(**env_kwargs)


def vector_env_of(envs: Sequence[object]) -> VecEnv | None:
    """The vector env behind a collector's ``envs`` list, or None for per-env envs."""
    if envs and isinstance(envs[0], VecEnvSlot):
        return envs[0].vec_env
    return None


_VECTOR_CLASSES: dict[type, type] = {}
F = TypeVar("F", bound=Callable[..., object])


def collector_class(CollectorCls: F, envs: Sequence[object]) -> F:  # noqa: N803
    """``CollectorCls``, or its vector twin (``VecCollectorMixin`` first) for vector envs."""
    cls = cast(type, CollectorCls)
    if vector_env_of(envs) is None or issubclass(cls, VecCollectorMixin):
        return CollectorCls
    if cls not in _VECTOR_CLASSES:
        _VECTOR_CLASSES[cls] = type("Vec" + cls.__name__, (VecCollectorMixin, cls), {})
    return cast(F, _VECTOR_CLASSES[cls])


# -- the vector twin of every collector --------------------------------------------------------


class VecCollectorMixin(EpisodeStepper):
    """Steps a vector env in place of a list of envs (see the module docstring).

    The episode step is the collector's own ``step_envs``; this mixin gives it the vector
    phases: one ``VecEnv.step`` with masks and one ``TrajInfoBatch.step`` per time step, then
    one ``TrajInfoBatch.finish`` for the trajectories that ended. Works with the training
    collectors (reset and wait-reset, CPU and GPU, double-buffered) and the evaluation
    collectors, through the policy hooks of the episode step that each family overrides:
    ``mid_batch_reset`` (reset collectors: the vector env resets ended envs itself),
    :meth:`~EpisodeStepper._waiting_rows` (wait-reset collectors) and
    :meth:`~EpisodeStepper._active_rows` (evaluation collectors). Which rows count at a step:
    all, minus the waiting ones, minus those past their quota, minus rows that a
    ``next_step_reset`` backend spent resetting; rows that do not count record what a waiting
    wait-reset row records (null action, zero reward, ``done``, the last observation) in
    training, and are ignored in evaluation.
    """

    envs: list[Any]

    @property
    def vec_env(self) -> VecEnv:
        """The vector env behind ``envs``."""
        vec_env = vector_env_of(self.envs)
        assert vec_env is not None  # collector_class only mixes this in for vector envs
        return vec_env

    # The per-env hooks of the collector bases, over the vector env.

    def _new_traj_infos(self) -> TrajInfoRows:
        return TrajInfoBatch(self.TrajInfoCls, len(self.envs))

    def _reset_all(self) -> Any:
        vec_env = self.vec_env
        vec_env.autoreset = self.mid_batch_reset
        if not vec_env.autoreset and not vec_env.can_reset_subset:
            vec_env.reset_envs(np.zeros(len(self.envs), dtype=bool))  # raises its clear error
        self._null_action = self.envs[0].action_space.null_value()
        self._frozen: Any = None
        return _copy(vec_env.reset())

    def _write_rows(self, observation: Any, observations: Any) -> None:
        observation[:] = observations

    def _initial_inputs(self, observations: Any) -> AgentInputs:
        observation = buffer_func(self.samples_np.env.observation[0], np.copy)
        observation[:] = observations
        prev_action = np.copy(self.samples_np.agent.prev_action[0])
        prev_action[:] = self._null_action
        prev_reward = np.zeros_like(self.samples_np.env.prev_reward[0])
        return AgentInputs(observation, prev_action, prev_reward)

    # Training collectors' attributes (BaseCollector) that the start-up hooks read.
    samples_np: Any
    seed: int | None
    env_ranks: list[int]

    def _decorrelate(
        self, observations: Any, traj_infos: TrajInfoRows, max_decorrelation_steps: int
    ) -> None:
        """All envs take the same number of random actions, ``1..max`` drawn from ``seed``.

        A vector env steps all its envs at once, so per-env counts as the per-env collectors
        draw them are not possible; episode ends at different steps decorrelate the envs.
        """
        if max_decorrelation_steps <= 0:
            return
        batch = _batch(traj_infos)
        rng = np.random.default_rng(None if self.seed is None else [self.seed, self.env_ranks[0]])
        space = self.envs[0].action_space
        vec_env = self.vec_env
        for _ in range(int(rng.integers(1, max_decorrelation_steps + 1))):
            action = _stack([space.sample() for _ in self.envs])
            out = vec_env.step(action)
            rows = out.stepped
            batch.step(None, action, out.reward, out.done, None, out.env_info, rows)
            ended = _ended(out.env_info, out.done, rows)
            observations[:] = out.observation
            if ended.any():
                batch.reset_rows(ended)
                if not vec_env.autoreset:  # wait-reset: restart them now, as per-env envs
                    self._reset_rows(ended, observations)

    def _reset_rows(self, mask: np.ndarray, observation: Any) -> None:
        fresh = self.vec_env.reset_envs(mask)
        observation[mask] = _take(fresh, mask)

    def _step_rows(
        self,
        action: np.ndarray,
        observation: Any,
        reward: np.ndarray,
        done: np.ndarray,
        agent_info: Any,
        traj_infos: TrajInfoRows,
    ) -> StepRows:
        """Phase 1, vector: one ``VecEnv.step``; rows and TrajInfos written with masks.

        Returns:
            ``(env_info, ended, final_observation, finished)``: one env_info record of
            ``[B_local]`` arrays, the ended and the done envs that count (lists), and the
            vector env's ``[B_local, ...]`` final observations.
        """
        batch = _batch(traj_infos)
        waiting = self._waiting_rows()
        if waiting is not None:
            action[waiting] = self._null_action  # also the next prev_action
        before = None if batch.vectorized else _copy(observation)
        out = self.vec_env.step(action, observation=observation, reward=reward, done=done)
        active = self._active_rows()
        rows = self._counting_rows(out.stepped, waiting, active, action, done)
        if waiting is not None:
            reward[waiting] = 0
            done[waiting] = True
            observation[waiting] = _take(self._frozen, waiting)
        env_info = out.env_info
        if rows is not None and active is None and not rows.all():
            env_info = _zero_rows(env_info, ~rows)  # waiting rows, as per-env collectors
        batch.step(before, action, reward, done, agent_info, env_info, rows)
        ended = _ended(env_info, done, rows).nonzero()[0].tolist()  # [B]: flatnonzero's rows
        if ended and self._truncations is not None and "timeout" in env_info._fields:
            for b in ended:
                if env_info.timeout[b]:
                    self._truncations.append((b, buffer_row(out.final_observation, b)))
        finished = done if rows is None else done & rows
        if not self.mid_batch_reset and finished.any():  # they wait from now on
            if self._frozen is None:
                self._frozen = _copy(observation)
            self._frozen[finished] = _take(observation, finished)
        return env_info, ended, out.final_observation, finished.nonzero()[0].tolist()

    def _end_trajectories(
        self,
        ended: list[int],
        finals: Any,
        observation: Any,
        traj_infos: TrajInfoRows,
        completed: list,
    ) -> None:
        """Phase 2, vector: one ``TrajInfoBatch.finish``, then the per-env filing (and restart).

        ``observation`` is left alone: the vector env wrote each ended env's next row already
        (reset collectors: its first observation, the backend reset it; wait-reset: its last
        one). So :meth:`_restart_env` is called only where ``mid_batch_reset`` is False.
        """
        restarts = self.mid_batch_reset  # the vector env resets ended envs itself
        for b, traj_info in zip(ended, _batch(traj_infos).finish(ended, finals), strict=True):
            self._file_trajectory(b, traj_info, completed)
            if not restarts:
                self._restart_env(b, buffer_row(finals, b))

    def _counting_rows(
        self,
        stepped: np.ndarray | None,
        waiting: np.ndarray | None,
        active: np.ndarray | None,
        action: np.ndarray,
        done: np.ndarray,
    ) -> np.ndarray | None:
        """The rows that are real steps of live trajectories (None: all of them).

        In training, rows a next-step-reset backend spent resetting are made waiting rows
        (null action, ``done``; the agent's state of the env is reset again: it stepped on the
        last observation).
        """
        rows = None if waiting is None else ~waiting
        if stepped is not None:
            resetting = ~stepped
            if active is None:
                action[resetting] = self._null_action
                done[resetting] = True
                if self.agent is not None:
                    for b in np.flatnonzero(resetting).tolist():
                        self.agent.reset_one(idx=b)
            rows = stepped if rows is None else rows & stepped
        if active is not None:
            rows = active.copy() if rows is None else rows & active
        return rows


def _batch(traj_infos: TrajInfoRows) -> TrajInfoBatch:
    """The TrajInfoBatch a vector collector made with :meth:`VecCollectorMixin._new_traj_infos`."""
    if not isinstance(traj_infos, TrajInfoBatch):
        raise TypeError(
            f"Vector collectors step a TrajInfoBatch (from start_envs), not {type(traj_infos)}."
        )
    return traj_infos


def _ended(env_info: Any, done: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """Where a trajectory ended: ``env_info.traj_done`` if present, else ``done``; in rows."""
    fields = getattr(env_info, "_fields", ())
    ended = np.asarray(env_info.traj_done if "traj_done" in fields else done, dtype=bool)
    return ended if rows is None else ended & rows


def _zero_rows(value: Any, mask: np.ndarray) -> Any:
    """A copy of a record of ``[B]`` arrays with the rows where ``mask`` set to zero."""

    def zero(array: np.ndarray) -> np.ndarray:
        array = np.array(array)
        array[mask] = 0
        return array

    return buffer_func(value, zero)


def _copy(value: Any) -> Any:
    return buffer_func(value, np.array)


def _take(value: Any, mask: np.ndarray) -> Any:
    return buffer_func(value, lambda array: array[mask])


def _stack(values: list) -> Any:
    """Per-env values (arrays, scalars or records) stacked into one ``[B, ...]`` value."""
    first = values[0]
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return cast(Any, first)._make(_stack([v[i] for v in values]) for i in range(len(first)))
    return np.stack([np.asarray(v) for v in values])
