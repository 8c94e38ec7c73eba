"""Records of the sampler: batch spec, samples buffer layout, step buffer (rlpyt's import path).

Box: Sampler. The records live in ``rlpyt.utils.records`` (below every box, so that
``rlpyt.protocols``, algorithms and runners name them without importing a sampler module) and
``TrajInfo`` / ``TrajInfoFactory`` in ``rlpyt.envs.traj_info`` (envs subclass them); both are
re-exported here, where rlpyt's scripts import them. See ``rlpyt.utils.records`` for the
``[T, B]`` layout of the samples buffer.
"""

from rlpyt.envs.traj_info import TrajInfo, TrajInfoFactory
from rlpyt.utils.records import (
    AgentSamples,
    AgentSamplesBsv,
    AgentSamplesBsvTv,
    BatchSpec,
    EnvSamples,
    Samples,
    StepBuffer,
)

__all__ = [
    "AgentSamples",
    "AgentSamplesBsv",
    "AgentSamplesBsvTv",
    "BatchSpec",
    "EnvSamples",
    "Samples",
    "StepBuffer",
    "TrajInfo",
    "TrajInfoFactory",
]
