"""Action servers of the asynchronous GPU samplers.

Box: Sampler. AsyncRl's sampler process is the action server of its env workers, exactly as
the master of a synchronous GPU sampler (:mod:`rlpyt.samplers.parallel.gpu.action_server`
says who waits on which semaphore per time step). What differs: the server's agent runs a model
of its own, on the sampler affinity's ``cuda_idx`` or, when that is None, on CPU (so async GPU
samplers work on a machine without a GPU), into which the optimizer's published weights are
copied before every batch; and the batch buffer it writes is the double buffer's current half,
which :class:`~rlpyt.samplers.async_.base.AsyncSamplerMixin` selects before serving. Each class
here is an asynchronous parallel sampler that serves actions with one of the synchronous
servers.
"""

from __future__ import annotations

from rlpyt.protocols import SharedMemoryAgent
from rlpyt.samplers.async_.base import AsyncParallelSamplerMixin
from rlpyt.samplers.parallel.gpu.action_server import (
    ActionServer,
    AlternatingActionServer,
    NoOverlapAlternatingActionServer,
)


def prepare_server_agent(agent: SharedMemoryAgent, affinity: dict) -> None:
    """Move the server's agent to ``affinity["cuda_idx"]`` (None: CPU), apart from the optimizer's.

    On a GPU, ``to_device`` makes the separate copy; on CPU, ``async_cpu`` does.
    """
    agent.to_device(affinity.get("cuda_idx"))
    agent.async_cpu(share_memory=False)


class AsyncActionServer(AsyncParallelSamplerMixin, ActionServer):
    """The GPU sampler's action server, serving from the sampler process's own model."""

    def _prepare_sampler_agent(self, agent: SharedMemoryAgent) -> None:
        prepare_server_agent(agent, self.affinity)


class AsyncAlternatingActionServer(AsyncActionServer, AlternatingActionServer):
    """The alternating action server, serving from the sampler process's own model."""


class AsyncNoOverlapAlternatingActionServer(
    AsyncAlternatingActionServer, NoOverlapAlternatingActionServer
):
    """The no-overlap alternating action server, serving from the sampler process's own model."""
