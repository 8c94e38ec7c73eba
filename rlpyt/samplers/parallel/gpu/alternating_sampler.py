"""AlternatingSampler and NoOverlapAlternatingSampler: two worker groups take turns.

Box: Sampler (master side); the runner calls it like every sampler, and the action servers in
``action_server.py`` say who waits on which semaphore. Workers ``[0, n/2)`` form group 0 with
envs ``[0, B/2)``; workers ``[n/2, n)`` group 1 with envs ``[B/2, B)``. The master's agent
computes actions for one group while the other group steps its envs, hiding the inference time
behind env stepping (up to 2x when both take equally long). The affinity must say
``alternating=True`` (``workers_cpus`` usually lists each core twice, e.g. a core and its
hyperthread), with an even number of workers and an even ``batch_B``. Recurrent agents must be
the ``Alternating*`` classes, which keep one recurrent state per group. Action noise comes from
torch's generator (two draws per step, one per group), so unlike the other samplers these do
not reproduce the serial sampler's samples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rlpyt.samplers.parallel.base import split_ranks
from rlpyt.samplers.parallel.gpu.action_server import (
    AlternatingActionServer,
    NoOverlapAlternatingActionServer,
)
from rlpyt.samplers.parallel.gpu.sampler import GpuSamplerBase

if TYPE_CHECKING:
    from rlpyt.protocols import Agent


class AlternatingSamplerBase(GpuSamplerBase):
    """Two-group layout of envs and workers (arguments: see ParallelSamplerBase)."""

    alternating = True

    def _check_agent(self, agent: Agent, affinity: dict | None) -> None:
        """Check the alternating requirements; feed-forward agents only need the flag."""
        self._check_alternating(agent, affinity)
        if not agent.recurrent:
            agent.alternating = True

    def _check_alternating(self, agent: Agent, affinity: dict | None) -> None:
        if not (affinity or {}).get("alternating", False):
            raise ValueError(
                f"{type(self).__name__} needs an affinity with alternating=True, e.g. "
                "make_affinity(..., alternating=True) or dict(workers_cpus=[0, 1], "
                "alternating=True)."
            )
        if self.batch_spec.B % 2:
            raise ValueError(
                f"{type(self).__name__} needs an even batch_B, got {self.batch_spec.B}."
            )
        if agent.recurrent and not agent.alternating:
            raise TypeError(
                f"{type(agent).__name__} is recurrent but not alternating: use an Alternating* "
                "agent (e.g. AlternatingAtariLstmAgent), which keeps one state per env group."
            )

    def _get_n_worker(self, affinity: dict) -> int:
        n_worker = super()._get_n_worker(affinity)
        if n_worker % 2:
            if affinity.get("workers_cpus"):
                raise ValueError(
                    f"{type(self).__name__} needs an even number of workers (two groups), got "
                    f"workers_cpus with {n_worker} entries."
                )
            n_worker = max(2, n_worker - 1)
        return n_worker

    def _split(self, ranks: list[int]) -> tuple[list[list[int]], list[slice]]:
        """Split ranks into two halves, each over half of the workers; local group slices."""
        halves = split_ranks(ranks, 2)
        half_workers = self.n_worker // 2
        blocks = split_ranks(halves[0], half_workers) + split_ranks(halves[1], half_workers)
        n0 = len(halves[0])
        return blocks, [slice(0, n0), slice(n0, len(ranks))]

    def _layout(self, env_ranks: list[int]) -> None:
        self.worker_env_ranks, self.group_slices = self._split(env_ranks)
        eval_ranks = list(range(self.eval_n_envs))
        self.worker_eval_ranks, self.eval_group_slices = self._split(eval_ranks)
        half = self.n_worker // 2
        self.group_workers = [list(range(half)), list(range(half, self.n_worker))]


class AlternatingSampler(AlternatingActionServer, AlternatingSamplerBase):
    """Alternating sampler: a group's actions are released as soon as they are computed."""


class NoOverlapAlternatingSampler(NoOverlapAlternatingActionServer, AlternatingSamplerBase):
    """Alternating sampler whose two groups never step their envs at the same time."""
