"""--torch-threads and --cpus: they reach every runner's affinity; bad values are usage errors."""

import os
import sys

import pytest
from click.testing import CliRunner

from rlpyt.cli.compose import build_components, with_torch_threads
from rlpyt.cli.main import rlpyt
from rlpyt.cli.spec import RunSpec
from rlpyt.utils.launching.cpus import ALLOWED_CPUS_ENV, allowed_cpus
from tests import warm_python


def test_torch_threads_reach_every_runner_kind():
    minibatch = build_components(RunSpec("ppo", "CartPole-v1", sampler="cpu", torch_threads=3))
    assert minibatch.runner_kwargs["affinity"]["master_torch_threads"] == 3
    sync = build_components(RunSpec("ppo", "CartPole-v1", runner="sync", ranks=2, torch_threads=2))
    assert [rank["master_torch_threads"] for rank in sync.runner_kwargs["affinity"]] == [2, 2]
    config = "classic.dqn.cartpole_dqn_async:async"
    async_ = build_components(RunSpec("dqn", config=config, torch_threads=2))
    assert async_.runner_kwargs["affinity"]["optimizer"] == [{"torch_threads": 2}]


def test_without_torch_threads_every_process_decides():
    minibatch = build_components(RunSpec("ppo", "CartPole-v1"))
    assert "master_torch_threads" not in minibatch.runner_kwargs["affinity"]
    sync = build_components(RunSpec("ppo", "CartPole-v1", runner="sync", ranks=2))
    assert all("master_torch_threads" not in rank for rank in sync.runner_kwargs["affinity"])


def test_a_sweep_slot_affinity_takes_the_threads():
    slot = dict(master_cpus=(0,), workers_cpus=((0,),), master_torch_threads=None)
    assert with_torch_threads(slot, 2)["master_torch_threads"] == 2
    assert with_torch_threads(slot, None) is slot


def test_cpus_restrict_the_run(monkeypatch):
    cpu = allowed_cpus()[-1]
    monkeypatch.setenv(ALLOWED_CPUS_ENV, os.environ[ALLOWED_CPUS_ENV])  # restored afterwards
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        built = build_components(RunSpec("ppo", "CartPole-v1", sampler="cpu", cpus=[cpu]))
        assert built.runner_kwargs["affinity"]["workers_cpus"] == [cpu]  # one worker per CPU
        assert allowed_cpus() == (cpu,)
        if before is not None:
            assert os.sched_getaffinity(0) == {cpu}
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cpus", "a-b"], "is not a CPU list"),
        (["--cpus", "100000"], "are not available to this process"),
        (["--torch-threads", "0"], "0 is not in the range x>=1"),
    ],
)
def test_bad_values_are_usage_errors(args, message, tmp_path):
    result = CliRunner().invoke(
        rlpyt, ["train", "ppo", "--env", "CartPole-v1", "--log-dir", str(tmp_path), *args]
    )
    assert result.exit_code == 2, result.output
    assert message in result.output and not list(tmp_path.iterdir())


def test_help_shows_both_options():
    for command in ("train", "sweep", "tune"):
        result = CliRunner().invoke(rlpyt, [command, "--help"])
        assert "--torch-threads N" in result.output and "--cpus LIST" in result.output


def test_the_startup_line_says_what_was_decided(tmp_path):
    command = [sys.executable, "-m", "rlpyt", "train", "dqn", "--env", "CartPole-v1"]
    command += ["--steps", "300", "--log-interval", "300", "--log-dir", str(tmp_path)]
    command += ["--torch-threads", "1", "--set", "algo.min_steps_learn=100"]
    result = warm_python.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert "torch threads: 1 (as asked); denormals" in result.stdout
