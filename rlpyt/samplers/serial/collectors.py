"""SerialEvalCollector: evaluation episodes in the calling process."""

from __future__ import annotations

from rlpyt.samplers.collectors import BaseEvalCollector
from rlpyt.samplers.parallel.cpu.collectors import run_evaluation


class SerialEvalCollector(BaseEvalCollector):
    """Runs evaluation with the sampler's agent and returns complete, unbiased trajectories.

    Args (rlpyt's): ``envs, agent, TrajInfoCls, max_T, max_trajectories=None``.
    """

    def __init__(self, envs, agent, TrajInfoCls, max_T, max_trajectories=None):  # noqa: N803, D107
        super().__init__(
            rank=0,
            envs=envs,
            TrajInfoCls=TrajInfoCls,
            max_T=max_T,
            agent=agent,
            max_trajectories=max_trajectories,
        )

    def collect_evaluation(self, itr: int) -> list:
        """Run evaluation episodes; returns the selected TrajInfos."""
        return run_evaluation(self, itr)
