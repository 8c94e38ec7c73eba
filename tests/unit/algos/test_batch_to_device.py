"""``batch_to_device``: the one call that moves a training batch to the agent's device."""

from __future__ import annotations

import torch

from rlpyt.algos.base import PIN_MIN_BYTES, batch_to_device
from rlpyt.utils.collections import namedarraytuple
from tests.fake_cuda import FakeCuda, on_fake_cuda

Batch = namedarraytuple("Batch", ["observation", "action", "extra"])
Inner = namedarraytuple("Inner", ["h", "c"])
CUDA = torch.device("cuda", 0)


class CountingFakeCuda(FakeCuda):
    """FakeCuda that counts the host tensors pinned before their copy."""

    pinned = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: D105
        if getattr(func, "__name__", "") == "pin_memory":
            self.pinned += 1
        return super().__torch_function__(func, types, args, kwargs)


def make_batch(rows: int) -> Batch:
    return Batch(
        observation=torch.randn(rows, 4),
        action=torch.arange(rows),
        extra=Inner(h=torch.zeros(1, rows, 3), c=None),
    )


def test_the_cpu_gets_the_batch_back_as_it_is():
    batch = make_batch(8)
    assert batch_to_device(batch, torch.device("cpu")) is batch
    assert batch_to_device(batch, None) is batch


def test_every_tensor_reaches_the_device_and_none_fields_pass():
    batch = make_batch(8)
    with CountingFakeCuda() as mode:
        moved = batch_to_device(batch, CUDA)
        assert on_fake_cuda(moved.observation) and on_fake_cuda(moved.action)
        assert on_fake_cuda(moved.extra.h) and moved.extra.c is None
        assert torch.equal(moved.action.cpu(), batch.action)
        # A small batch is copied straight: pinning it would cost more than it saves.
        assert mode.pinned == 0
    assert not on_fake_cuda(batch.observation)  # the host batch is left as it was


def test_a_large_batch_goes_through_pinned_memory():
    rows = PIN_MIN_BYTES // 16 + 1  # observation alone: rows * 4 floats * 4 bytes
    batch = make_batch(rows)
    with CountingFakeCuda() as mode:
        moved = batch_to_device(batch, CUDA)
        assert mode.pinned == 3  # every host tensor of the batch
        assert on_fake_cuda(moved.observation)
        assert torch.equal(moved.observation.cpu(), batch.observation)
