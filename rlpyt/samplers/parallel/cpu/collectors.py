"""rlpyt's import path of the agent-stepping and CPU evaluation collectors.

The classes live in shared modules under ``rlpyt/samplers`` (the serial sampler uses them too):
``rlpyt.samplers.agent_collectors`` and ``rlpyt.samplers.evaluation``.
"""

from rlpyt.samplers.agent_collectors import (  # noqa: F401  (kept for rlpyt's import path)
    CpuCollectorBase,
    CpuResetCollector,
    CpuWaitResetCollector,
)
from rlpyt.samplers.evaluation import CpuEvalCollector  # noqa: F401  (rlpyt's import path)
