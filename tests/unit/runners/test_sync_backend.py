"""SyncRl's backend: NCCL only when every rank has a GPU of its own (NCCL refuses a shared one)."""

import pytest

from rlpyt.runners.sync_rl import SyncRl


def backend_for(affinities, cuda=True):
    runner = SyncRl.__new__(SyncRl)  # the rule reads two attributes; no ranks are started
    runner._cuda = cuda
    if affinities is not None:
        runner.affinities = affinities
    return "nccl" if runner._nccl() else "gloo"


@pytest.mark.parametrize(
    ("affinities", "cuda", "backend"),
    [
        ([dict(cuda_idx=0), dict(cuda_idx=1)], True, "nccl"),
        ([dict(cuda_idx=0), dict(cuda_idx=0)], True, "gloo"),  # two ranks share GPU 0
        ([dict(cuda_idx=0), dict(cuda_idx=None)], True, "gloo"),
        ([dict(), dict()], False, "gloo"),
        (None, True, "nccl"),  # torchrun, one affinity for every rank: each has its GPU
        (None, False, "gloo"),
    ],
)
def test_nccl_only_when_every_rank_has_its_own_gpu(affinities, cuda, backend):
    assert backend_for(affinities, cuda) == backend
