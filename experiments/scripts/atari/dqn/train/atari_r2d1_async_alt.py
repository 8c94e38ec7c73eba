"""Train R2D1 on Atari with AsyncRlEval and AsyncAlternatingSampler; one run of a sweep.

rlpyt's R2D2 reproduction setup: two env groups per sampler GPU, the action server computing
one group's actions while the other group's envs step (``AtariR2d1AlternatingAgent`` keeps
one recurrent state per group). Otherwise ``atari_r2d1_async_gpu.py``::

    python atari_r2d1_async_alt.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

The affinity code must be an asynchronous, alternating one (``encode_affinity(...,
async_sample=True, alternating=True)``). Config keys of ``atari_r2d1``: "async_alt_pabti",
"async_alt_dgx", "async_alt_got" (an even sampler ``batch_B``).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import atari_r2d1_async_gpu  # noqa: E402
from atari_r2d1_async_gpu import configs  # noqa: E402, F401 (the configs this script reads)

from rlpyt.agents.dqn.atari.atari_r2d1_agent import AtariR2d1AlternatingAgent  # noqa: E402
from rlpyt.samplers.async_.alternating_sampler import AsyncAlternatingSampler  # noqa: E402

SamplerCls = AsyncAlternatingSampler
AgentCls = AtariR2d1AlternatingAgent


def build_runner(config, affinity=None):
    """``atari_r2d1_async_gpu.build_runner`` with the alternating sampler and agent."""
    return atari_r2d1_async_gpu.build_runner(config, affinity, SamplerCls, AgentCls)


if __name__ == "__main__":
    atari_r2d1_async_gpu.build_and_train(*sys.argv[1:], SamplerCls=SamplerCls, AgentCls=AgentCls)
