"""--cuda-idx: the GPU reaches every runner's affinity; a GPU the machine lacks is a usage error."""

import sys

import pytest
import torch

from rlpyt.cli.compose import build_components
from rlpyt.cli.spec import RunSpec
from tests import warm_python


@pytest.fixture
def two_gpus(monkeypatch):
    """Pretend this machine has two CUDA GPUs (only the CLI's check asks)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)


def test_every_runner_kind_trains_on_the_gpu_asked(two_gpus):
    minibatch = build_components(RunSpec("ppo", "CartPole-v1", sampler="gpu", cuda_idx=1))
    assert minibatch.runner_kwargs["affinity"]["cuda_idx"] == 1
    sync = build_components(RunSpec("ppo", "CartPole-v1", runner="sync", ranks=2, cuda_idx=0))
    assert [rank["cuda_idx"] for rank in sync.runner_kwargs["affinity"]] == [0, 0]
    config = "classic.dqn.cartpole_dqn_async:async"
    async_ = build_components(RunSpec("dqn", config=config, cuda_idx=1))
    assert async_.runner_kwargs["affinity"]["optimizer"] == [{"cuda_idx": 1}]
    assert (
        "cuda_idx" not in build_components(RunSpec("ppo", "CartPole-v1")).runner_kwargs["affinity"]
    )


def test_a_gpu_the_machine_lacks_is_a_usage_error(two_gpus):
    with pytest.raises(ValueError, match="--cuda-idx 2: this machine has GPUs 0-1"):
        build_components(RunSpec("ppo", "CartPole-v1", cuda_idx=2))


def test_cli_without_cuda_exits_2_and_writes_nothing(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    command = [sys.executable, "-m", "rlpyt", "train", "ppo", "--env", "CartPole-v1"]
    command += ["--steps", "64", "--cuda-idx", "0", "--log-dir", str(tmp_path / "runs")]
    result = warm_python.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2, result.stderr
    assert "--cuda-idx 0: this machine has no CUDA GPU" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "runs").exists()
