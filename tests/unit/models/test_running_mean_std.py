import numpy as np
import torch
import torch.distributed as dist

from rlpyt.models.running_mean_std import RunningMeanStdModel


def test_running_stats_equal_numpy_over_concatenated_batches():
    rng = np.random.default_rng(0)
    batches = [
        rng.normal(3.0, 2.0, size=(5, 4, 3)),  # [T, B, *shape]
        rng.normal(-1.0, 0.5, size=(7, 3)),  # [B, *shape]
        rng.normal(10.0, 4.0, size=(3,)),  # [*shape]
        rng.normal(0.0, 1.0, size=(2, 6, 3)),
    ]
    rms = RunningMeanStdModel((3,))
    for batch in batches:
        rms.update(torch.as_tensor(batch, dtype=torch.float64))
    data = np.concatenate([b.reshape(-1, 3) for b in batches])
    assert rms.count.item() == len(data)
    np.testing.assert_allclose(rms.mean.numpy(), data.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(rms.var.numpy(), data.var(axis=0), rtol=1e-5)


def test_initial_stats_and_buffers_in_state_dict():
    rms = RunningMeanStdModel((2, 2))
    assert torch.equal(rms.mean, torch.zeros(2, 2)) and torch.equal(rms.var, torch.ones(2, 2))
    assert set(rms.state_dict()) == {"mean", "var", "count"}


def test_update_all_reduces_under_torch_distributed(gloo_world_of_one, monkeypatch):
    calls = []
    real_all_reduce = dist.all_reduce

    def spy(tensor, *args, **kwargs):
        calls.append(tensor.clone())
        return real_all_reduce(tensor, *args, **kwargs)

    monkeypatch.setattr(dist, "all_reduce", spy)
    data = torch.randn(4, 5, 2, dtype=torch.float64)
    rms = RunningMeanStdModel((2,))
    rms.update(data)
    assert len(calls) == 1
    flat = data.reshape(-1, 2)
    assert rms.count.item() == 20
    assert torch.allclose(rms.mean, flat.mean(0).float(), atol=1e-6)
    assert torch.allclose(rms.var, flat.var(0, unbiased=False).float(), atol=1e-5)


def test_all_reduced_stats_are_exact_for_unequal_worker_batches(monkeypatch):
    """Simulate a second process whose batch (of another size) the all-reduce adds in."""
    rng = np.random.default_rng(1)
    mine, theirs = rng.normal(1, 2, size=(6, 2)), rng.normal(5, 1, size=(3, 2))
    n = len(theirs)
    their_packed = torch.as_tensor(
        np.concatenate([theirs.sum(0), (theirs**2).sum(0), [n]]), dtype=torch.float32
    )

    def fake_all_reduce(tensor, *args, **kwargs):
        tensor += their_packed

    monkeypatch.setattr(dist, "is_initialized", lambda: True)
    monkeypatch.setattr(dist, "all_reduce", fake_all_reduce)
    rms = RunningMeanStdModel((2,))
    rms.update(torch.as_tensor(mine))
    both = np.concatenate([mine, theirs])
    assert rms.count.item() == 9
    np.testing.assert_allclose(rms.mean.numpy(), both.mean(0), rtol=1e-5)
    np.testing.assert_allclose(rms.var.numpy(), both.var(0), rtol=1e-4)
