"""Records of the sampler: batch spec, samples buffer layout, step buffer.

Box: Sampler. ``TrajInfo`` and ``TrajInfoFactory`` live in ``rlpyt.envs.traj_info`` (envs
subclass them) and are re-exported here, rlpyt's import path.

The samples buffer is ``Samples(agent=AgentSamples(...), env=EnvSamples(...))`` with every
leaf shaped ``[T, B, ...]``. ``action`` and ``reward`` are allocated ``[T + 1, B]`` once, and
``prev_action`` / ``prev_reward`` are the ``[0:T]`` views while ``action`` / ``reward`` are the
``[1:T + 1]`` views, so writing ``action[t]`` fills ``prev_action[t + 1]`` for free.
"""

from __future__ import annotations

from collections import namedtuple

from rlpyt.envs.traj_info import TrajInfo, TrajInfoFactory  # noqa: F401  (rlpyt's import path)
from rlpyt.utils.collections import namedarraytuple

Samples = namedarraytuple("Samples", ["agent", "env"])
AgentSamples = namedarraytuple("AgentSamples", ["action", "prev_action", "agent_info"])
AgentSamplesBsv = namedarraytuple(
    "AgentSamplesBsv", ["action", "prev_action", "agent_info", "bootstrap_value"]
)
# With time limits (``env_info.timeout``): ``timeout_value [T, B]`` holds V of the final
# observation of an episode cut by a time limit at (t, b), where the collector knew it (vector
# collectors with a feed-forward agent of their own), NaN elsewhere; policy gradients bootstrap
# such steps from it (``rlpyt.algos.utils``, ``timeout_value``), else from ``value[t]``.
AgentSamplesBsvTv = namedarraytuple(
    "AgentSamplesBsvTv",
    ["action", "prev_action", "agent_info", "bootstrap_value", "timeout_value"],
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
