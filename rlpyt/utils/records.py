"""Records shared by the boxes: the batch spec and the samples buffer layout.

Box: none (a utility below the boxes). Samplers allocate and fill these records, algorithms and
runners read them, and ``rlpyt.protocols`` names them in the seams; they live here, below all
of those, so that no box imports them from another box (``rlpyt.samplers.collections``, rlpyt's
import path, re-exports them). They are module-level classes, so they pickle by reference, also
into processes started by spawn.

The samples buffer is ``Samples(agent=AgentSamples(...), env=EnvSamples(...))`` with every
leaf shaped ``[T, B, ...]``. ``action`` and ``reward`` are allocated ``[T + 1, B]`` once, and
``prev_action`` / ``prev_reward`` are the ``[0:T]`` views while ``action`` / ``reward`` are the
``[1:T + 1]`` views, so writing ``action[t]`` fills ``prev_action[t + 1]`` for free.
"""

from __future__ import annotations

from collections import namedtuple

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
