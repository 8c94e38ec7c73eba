"""Records of the sampler: batch spec, samples buffer layout, step buffer, and TrajInfo.

The samples buffer is ``Samples(agent=AgentSamples(...), env=EnvSamples(...))`` with every
leaf shaped ``[T, B, ...]``. ``action`` and ``reward`` are allocated ``[T + 1, B]`` once, and
``prev_action`` / ``prev_reward`` are the ``[0:T]`` views while ``action`` / ``reward`` are the
``[1:T + 1]`` views, so writing ``action[t]`` fills ``prev_action[t + 1]`` for free.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from rlpyt.utils.collections import AttrDict, namedarraytuple

Samples = namedarraytuple("Samples", ["agent", "env"])
AgentSamples = namedarraytuple("AgentSamples", ["action", "prev_action", "agent_info"])
AgentSamplesBsv = namedarraytuple(
    "AgentSamplesBsv", ["action", "prev_action", "agent_info", "bootstrap_value"]
)
EnvSamples = namedarraytuple(
    "EnvSamples", ["observation", "reward", "prev_reward", "done", "env_info"]
)
StepBuffer = namedarraytuple(
    "StepBuffer", ["observation", "action", "reward", "done", "agent_info"]
)


class BatchSpec(namedtuple("BatchSpec", "T B")):
    """``T``: time steps per sampler batch; ``B``: environment instances. ``size = T * B``."""

    __slots__ = ()

    @property
    def size(self) -> int:
        """Number of env steps in one batch."""
        return self.T * self.B


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
        reward: Any,
        done: Any,
        agent_info: Any,
        env_info: Any,
    ) -> None:
        """Account for one env step."""
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

    def __init__(self, TrajInfoCls: type = TrajInfo, **kwargs: Any):  # noqa: N803
        self.TrajInfoCls = TrajInfoCls
        self.kwargs = kwargs

    def __call__(self) -> Any:
        """A fresh TrajInfo."""
        try:
            return self.TrajInfoCls(**self.kwargs)
        except TypeError:
            # A user TrajInfo whose __init__ takes no keywords: fall back to rlpyt's way.
            traj_info = self.TrajInfoCls()
            for key, value in self.kwargs.items():
                setattr(traj_info, "_" + key, value)
            return traj_info
