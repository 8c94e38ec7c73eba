"""TrajInfo: the running statistics of one trajectory, and a picklable maker of them.

Box: TrajInfo (under Env). Collectors call ``TrajInfo.step`` once per env step and
``terminate`` at a trajectory's end; the runner logs every public attribute of the completed
ones. It lives under ``rlpyt/envs`` so that envs (``AtariTrajInfo``) can subclass it without
importing the samplers above them; ``rlpyt.samplers.collections`` re-exports it (rlpyt's path).
"""

from __future__ import annotations

from typing import Any

from rlpyt.utils.collections import AttrDict


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
        observation: Any,
        action: Any,
        reward: float,
        done: bool,
        agent_info: Any,
        env_info: Any,
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
        reward = float(reward)
        self["Length"] += 1
        self["Return"] += reward
        self["NonzeroRewards"] += reward != 0
        self["DiscountedReturn"] += self["_cur_discount"] * reward
        self["_cur_discount"] *= self["_discount"]

    def terminate(self, observation: Any) -> TrajInfo:
        """Close the trajectory (hook for subclasses); returns self."""
        return self


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
            # A user TrajInfo whose __init__ takes no keywords: fall back to rlpyt's way.
            traj_info = self.TrajInfoCls()
            for key, value in self.kwargs.items():
                setattr(traj_info, "_" + key, value)
            return traj_info
