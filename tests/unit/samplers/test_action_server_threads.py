"""The action server serves with one torch thread and gives the runner's threads back after.

Under load, a second intra-op thread in the master made every small forward of the GPU and
alternating samplers wait for a core (the samplers fell from ~1,400 to ~50 steps/s on a busy
2-core machine); these tests pin the behaviour that fixed it.
"""

from __future__ import annotations

import pytest
import torch

from rlpyt.samplers.parallel.gpu.action_server import ActionServer, torch_threads
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler


@pytest.fixture
def two_threads():
    """Two torch threads in this process for the test (the runner's setting), then restore."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


class RecordingServer(ActionServer):
    """Records the torch threads seen while serving a batch and an evaluation."""

    def __init__(self, fail: bool = False):
        self.seen: list[tuple[str, int]] = []
        self.fail = fail

    def serve_actions(self, itr: int) -> None:
        self.seen.append(("batch", torch.get_num_threads()))
        if self.fail:
            raise RuntimeError("worker died")

    def serve_actions_evaluation(self, itr: int) -> None:
        self.seen.append(("eval", torch.get_num_threads()))


def test_serving_uses_one_thread_and_restores(two_threads):
    server = RecordingServer()
    server._serve_batch(0)
    assert torch.get_num_threads() == 2
    server._serve_evaluation(0)
    assert torch.get_num_threads() == 2
    assert server.seen == [("batch", 1), ("eval", 1)]


def test_threads_restored_when_serving_raises(two_threads):
    server = RecordingServer(fail=True)
    with pytest.raises(RuntimeError, match="worker died"):
        server._serve_batch(0)
    assert torch.get_num_threads() == 2


def test_none_keeps_the_runners_threads(two_threads):
    server = RecordingServer()
    server.serve_torch_threads = None
    server._serve_batch(0)
    assert server.seen == [("batch", 2)]
    with torch_threads(None):
        assert torch.get_num_threads() == 2


def test_samplers_serve_through_the_hooks():
    """The GPU and alternating samplers use the server's hooks (not their own copies)."""
    for cls in (GpuSampler, AlternatingSampler):
        assert cls._serve_batch is ActionServer._serve_batch
        assert cls._serve_evaluation is ActionServer._serve_evaluation
        assert cls.serve_torch_threads == 1
