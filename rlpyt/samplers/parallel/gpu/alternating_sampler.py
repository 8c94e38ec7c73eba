"""AlternatingSampler and NoOverlapAlternatingSampler: two env groups take turns with the agent.

Box: Sampler (master side); the runner calls it like every sampler, and the action servers in
``action_server.py`` say who waits on which semaphore. The envs form two groups, the even
columns of the ``[B]`` batch (group 0) and the odd ones (group 1); workers get contiguous env
blocks as in GpuSampler, so each worker holds envs of both groups and steps its two halves in
turn, one semaphore pair per half (``sync.halves``, see ``collectors.py``): while the master's
agent computes actions for one group, every worker steps its half of the other group. Env
stepping thus overlaps inference inside each worker, and every core stays busy with
``n_worker`` workers on ``n_worker`` cores. The affinity must say ``alternating=True`` with an
even number of workers (rlpyt's contract, from its layout of one worker per group with each
core listed twice in ``workers_cpus``), and ``batch_B`` must be even. Recurrent agents must be
the ``Alternating*`` classes, which keep one recurrent state per group (``reset_one`` indexes
within the group: column ``b`` is row ``b // 2`` of its group). Action noise comes from torch's
generator (two draws per step, one per group), so unlike the other samplers these do not
reproduce the serial sampler's samples; both classes give the same samples for one seed, whatever
the worker count.
"""

from __future__ import annotations

from multiprocessing.context import BaseContext
from typing import TYPE_CHECKING

from rlpyt.samplers.parallel.base import split_ranks
from rlpyt.samplers.parallel.gpu.action_server import (
    AlternatingActionServer,
    NoOverlapAlternatingActionServer,
)
from rlpyt.samplers.parallel.gpu.sampler import GpuSamplerBase
from rlpyt.utils.collections import AttrDict

if TYPE_CHECKING:
    from rlpyt.protocols import Agent
    from rlpyt.samplers.parallel.worker_group import WorkerGroup


class AlternatingSamplerBase(GpuSamplerBase):
    """Two-group layout of envs and workers."""

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

    def _layout(self, env_ranks: list[int]) -> None:
        """Workers get contiguous env blocks; group ``g`` is every other column from ``g``."""
        self.worker_env_ranks = split_ranks(env_ranks, self.n_worker)
        self.worker_eval_ranks = split_ranks(list(range(self.eval_n_envs)), self.n_worker)
        self.group_slices = [slice(0, None, 2), slice(1, None, 2)]
        self.eval_group_slices = [slice(0, None, 2), slice(1, None, 2)]
        firsts = [ranks[0] - env_ranks[0] for ranks in self.worker_env_ranks]
        self.worker_half_rows = [
            half_rows(first, len(ranks))
            for first, ranks in zip(firsts, self.worker_env_ranks, strict=True)
        ]
        self.group_workers = [
            [
                w
                for w, ranks in enumerate(self.worker_env_ranks)
                if range(len(ranks))[self.worker_half_rows[w][g]]
            ]
            for g in (0, 1)
        ]  # a worker with one env is in one group only

    def _build_parallel_ctrl(self, ctx: BaseContext, workers: WorkerGroup) -> None:
        """Each worker gets a semaphore pair per half (the first is its ``obs_ready`` pair)."""
        super()._build_parallel_ctrl(ctx, workers)
        for sync, rows in zip(self.syncs, self.worker_half_rows, strict=True):
            second = AttrDict(rows=rows[1], obs_ready=ctx.Semaphore(0), act_ready=ctx.Semaphore(0))
            first = AttrDict(rows=rows[0], obs_ready=sync.obs_ready, act_ready=sync.act_ready)
            sync.halves = [first, second]
            workers.wake_on_stop.append(second.act_ready)


def half_rows(first: int, n_envs: int) -> tuple[slice, slice]:
    """A worker's local rows of group 0 and of group 1 (group ``g``: even or odd columns).

    Args:
        first: The worker's first column in the ``[B]`` batch.
        n_envs: Its number of envs.
    """
    start = first % 2  # local row of the worker's first group-0 column
    return slice(start, n_envs, 2), slice(1 - start, n_envs, 2)


class AlternatingSampler(AlternatingActionServer, AlternatingSamplerBase):
    """Alternating sampler: a group's actions are released as soon as they are computed."""


class NoOverlapAlternatingSampler(NoOverlapAlternatingActionServer, AlternatingSamplerBase):
    """Alternating sampler whose two groups never step their envs at the same time."""
