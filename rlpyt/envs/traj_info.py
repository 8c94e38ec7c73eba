"""TrajInfo: the running statistics of one trajectory, of a batch of them, and their maker.

Box: TrajInfo (under Env). Collectors call ``TrajInfo.step`` once per env step and
``terminate`` at a trajectory's end (vector collectors: :class:`TrajInfoBatch`, once per time
step for all envs); the runner logs every public attribute of the completed ones. Both add a
step with the one function :func:`add_step`, so their sums are the same float64 operations.
It lives under ``rlpyt/envs`` so that envs (``AtariTrajInfo``) can subclass it without
importing the samplers above them; ``rlpyt.samplers.collections`` re-exports TrajInfo (rlpyt's
path) and ``rlpyt.samplers.vector`` TrajInfoBatch.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any, Protocol

import numpy as np

from rlpyt.envs.base import EnvValue
from rlpyt.envs.vector import buffer_row
from rlpyt.utils.collections import AttrDict


def add_step(
    sums: MutableMapping[str, Any],
    reward: float | np.ndarray,
    discount: float,
    rows: np.ndarray | None = None,
) -> None:
    """Add one step to the base TrajInfo sums, of one env or of B envs at once.

    Args:
        sums: A TrajInfo (Python scalars), or ``[B]`` arrays under the same keys (``Length``,
            ``NonzeroRewards`` int64; ``Return``, ``DiscountedReturn``, ``_cur_discount``
            float64).
        reward: The step's reward: a float, or float64 ``[B]``.
        discount: The TrajInfo's discount.
        rows: bool ``[B]`` of the envs that stepped (None: every env, or the one env).
    """
    if rows is None:
        sums["Length"] += 1
        sums["Return"] += reward
        sums["NonzeroRewards"] += reward != 0
        sums["DiscountedReturn"] += sums["_cur_discount"] * reward
        sums["_cur_discount"] *= discount
        return
    sums["Length"] += rows
    sums["Return"] += np.where(rows, reward, 0.0)
    sums["NonzeroRewards"] += rows & (reward != 0)
    sums["DiscountedReturn"] += np.where(rows, sums["_cur_discount"] * reward, 0.0)
    sums["_cur_discount"] = np.where(rows, sums["_cur_discount"] * discount, sums["_cur_discount"])


class TrajInfo(AttrDict):
    """Running statistics of one trajectory; every public attribute gets logged.

    Fields: ``Length`` (steps), ``Return`` (sum of rewards), ``NonzeroRewards`` (count),
    ``DiscountedReturn`` (with ``discount``). Subclasses add fields in ``__init__`` and update
    them in ``step``. The discount is an instance argument (rlpyt set it on the class, which
    leaked between samplers in one process).

    Args:
        discount: Discount for ``DiscountedReturn``; default the class attribute ``_discount``.
    """

    _discount = 1.0

    def __init__(self, discount: float | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self._discount = type(self)._discount if discount is None else float(discount)
        self.Length = 0
        self.Return = 0.0
        self.NonzeroRewards = 0
        self.DiscountedReturn = 0.0
        self._cur_discount = 1.0

    def step(
        self,
        observation: EnvValue,
        action: EnvValue,
        reward: float,
        done: bool,
        agent_info: tuple | None,
        env_info: tuple | None,
    ) -> None:
        """Account for one env step.

        Args:
            observation: The observation the action was taken in (array, or a
                namedarraytuple for composite spaces).
            action: The action taken.
            reward: The env's reward (any real number type).
            done: The env's ``done``.
            agent_info: The agent's info row of this env (None unless a subclass overrides
                ``step``; see ``rlpyt.samplers.episode.agent_info_rows``).
            env_info: The env's info record (namedtuple), or None.
        """
        # Item access, not attributes: AttrDict attributes go through Python-level
        # __getattr__/__setattr__, and this runs once per env step. (Attribute lookup would
        # also find the class default of ``_discount`` before the instance's entry.)
        add_step(self, float(reward), self["_discount"])

    def terminate(self, observation: EnvValue) -> TrajInfo:
        """Close the trajectory (hook for subclasses); returns self."""
        return self


class TrajInfoRows(Protocol):
    """The live TrajInfos of a collector's envs: a ``list[TrajInfo]`` or a TrajInfoBatch.

    ``rows[b]`` is env b's TrajInfo, ``rows[b] = TrajInfoCls()`` starts env b afresh.
    """

    def __len__(self) -> int: ...  # noqa: D105

    def __getitem__(self, b: int, /) -> TrajInfo: ...  # noqa: D105

    def __setitem__(self, b: int, traj_info: TrajInfo, /) -> None: ...  # noqa: D105


class TrajInfoBatch:
    """The live TrajInfos of B envs, updated with numpy once per time step.

    For ``TrajInfoCls`` whose ``step`` is the base ``TrajInfo.step``, the fields live in
    ``[B]`` arrays and a TrajInfo object is made only when a trajectory ends (the sums are the
    same float64 operations, in the same order, as the per-env ``TrajInfo.step``: equal values).
    TrajInfo classes that override ``step`` (e.g. ``AtariTrajInfo``) get one object per env,
    stepped per env (their ``step`` may read anything), unless they define a classmethod
    ``batch_step(sums, reward, env_info, rows)`` adding their own ``[B]`` sums (named like
    their fields) for the rows stepped; their ``__init__`` fields then seed ``sums``.

    List-like for the collector hooks: ``batch[b]`` is env b's TrajInfo (made from the sums),
    ``batch[b] = TrajInfoCls()`` starts env b afresh.
    """

    def __init__(self, TrajInfoCls: Callable[[], TrajInfo], n: int):  # noqa: N803
        self.TrajInfoCls = TrajInfoCls
        self.n = int(n)
        probe = TrajInfoCls()
        cls = type(probe)
        self.batch_step = getattr(cls, "batch_step", None)
        numeric = all(isinstance(v, int | float | np.integer | np.floating) for v in probe.values())
        self.vectorized = numeric and (cls.step is TrajInfo.step or self.batch_step is not None)
        self.objects: list[TrajInfo] = []
        self.sums: dict[str, np.ndarray] = {}
        if not self.vectorized:
            self.objects = [TrajInfoCls() for _ in range(self.n)]
            return
        self.discount = float(probe["_discount"])
        self._cls = cls
        self._template = dict(probe)
        self._terminates = cls.terminate is not TrajInfo.terminate
        self._fresh = {k: v for k, v in probe.items() if k != "_discount"}
        for key, value in self._fresh.items():
            dtype = (
                np.int64
                if isinstance(value, int | np.integer) and key != "_cur_discount"
                else np.float64
            )
            self.sums[key] = np.full(self.n, value, dtype=dtype)

    def step(
        self,
        observation: EnvValue | None,
        action: EnvValue,
        reward: np.ndarray,
        done: np.ndarray,
        agent_info: tuple | None,
        env_info: tuple | None,
        rows: np.ndarray | None,
    ) -> None:
        """Account for one step of the envs where ``rows`` (bool ``[B]``; None: all)."""
        if not self.vectorized:
            self._step_objects(observation, action, reward, done, agent_info, env_info, rows)
            return
        add_step(self.sums, reward.astype(np.float64), self.discount, rows)
        if self.batch_step is not None:
            self.batch_step(self.sums, reward, env_info, rows)

    def _step_objects(self, observation, action, reward, done, agent_info, env_info, rows) -> None:  # noqa: ANN001
        stepped = range(self.n) if rows is None else np.flatnonzero(rows).tolist()
        for b in stepped:
            self.objects[b].step(
                buffer_row(observation, b),
                buffer_row(action, b),
                reward[b],
                bool(done[b]),
                None if agent_info is None else buffer_row(agent_info, b),
                buffer_row(env_info, b),
            )

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, b: int) -> TrajInfo:
        if not self.vectorized:
            return self.objects[b]
        traj_info = self.TrajInfoCls()
        for key, array in self.sums.items():
            value = array[b]
            traj_info[key] = int(value) if array.dtype.kind == "i" else float(value)
        return traj_info

    def __setitem__(self, b: int, traj_info: TrajInfo) -> None:
        if not self.vectorized:
            self.objects[b] = traj_info
            return
        for key, array in self.sums.items():
            array[b] = traj_info[key]

    def finish(self, rows: list[int], final_observation: EnvValue) -> list[TrajInfo]:
        """Hand in the trajectories of envs ``rows`` (in order) and start them afresh.

        The same as ``batch[b].terminate(final_observation[b])`` then
        ``batch[b] = TrajInfoCls()`` for each row, with fewer Python calls per row.
        """
        if not self.vectorized:
            done = []
            for b in rows:
                done.append(self.objects[b].terminate(buffer_row(final_observation, b)))
                self.objects[b] = self.TrajInfoCls()
            return done
        values = {key: array[rows].tolist() for key, array in self.sums.items()}
        cls, template = self._cls, self._template
        done = []
        for j, b in enumerate(rows):
            traj_info = cls.__new__(cls)
            dict.update(traj_info, template)
            for key, column in values.items():
                traj_info[key] = column[j]
            if self._terminates:
                traj_info = traj_info.terminate(buffer_row(final_observation, b))
            done.append(traj_info)
        for key, value in self._fresh.items():
            self.sums[key][rows] = value
        return done

    def reset_rows(self, mask: np.ndarray) -> None:
        """Start the envs where ``mask`` afresh (their trajectories are dropped)."""
        if not self.vectorized:
            for b in np.flatnonzero(mask).tolist():
                self.objects[b] = self.TrajInfoCls()
            return
        for key, value in self._fresh.items():
            self.sums[key][mask] = value


class TrajInfoFactory:
    """Picklable maker of TrajInfo instances with fixed keyword arguments (e.g. discount)."""

    def __init__(self, TrajInfoCls: type[TrajInfo] = TrajInfo, **kwargs: Any):  # noqa: N803
        self.TrajInfoCls = TrajInfoCls
        self.kwargs = kwargs

    def __call__(self) -> TrajInfo:
        """A fresh TrajInfo."""
        try:
            return self.TrajInfoCls(**self.kwargs)
        except TypeError:
            # A user TrajInfo whose __init__ takes no keywords: set each keyword as an
            # attribute ``_<key>`` of the instance.
            traj_info = self.TrajInfoCls()
            for key, value in self.kwargs.items():
                setattr(traj_info, "_" + key, value)
            return traj_info
