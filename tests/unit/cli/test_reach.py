"""What each CLI flag composes: runner kinds, env backends, configs written for them, flags."""

import dataclasses

import pytest

from rlpyt.cli.compose import build_components
from rlpyt.cli.spec import RunSpec


def test_a_config_written_for_the_async_runner_runs_under_it():
    components = build_components(RunSpec("dqn", config="classic.dqn.cartpole_dqn_async:async"))
    assert components.runner_cls.__name__ == "AsyncRlEval"
    assert type(components.sampler).__name__ == "AsyncSerialSampler"
    assert components.runner_kwargs["affinity"] == {"optimizer": [{}], "sampler": {}}
    explicit = build_components(
        RunSpec("dqn", config="classic.dqn.cartpole_dqn_async:async", runner="minibatch")
    )
    assert explicit.runner_cls.__name__ == "MinibatchRlEval"


@pytest.mark.parametrize(
    "spec",
    [
        RunSpec("dqn", "CartPole-v1", runner="async"),
        RunSpec("dqn", config="classic.dqn.cartpole_dqn_async:async"),
    ],
)
def test_async_runs_get_the_default_throttle_and_may_run_free(spec):
    """The config's runner section names no max_sampler_lead: the runner's default (1) holds
    the replay ratio; ``--set runner.max_sampler_lead=None`` reaches the runner as None."""
    assert build_components(spec).make_runner().max_sampler_lead == 1
    free = dataclasses.replace(spec, overrides={"runner.max_sampler_lead": None})
    assert build_components(free).make_runner().max_sampler_lead is None


@pytest.mark.parametrize(
    "spec, maker",
    [
        (RunSpec("ppo", config="classic.pg.cartpole_ppo_vec:0"), "make_vec"),
        (RunSpec("ppo", "CartPole-v1", vector="gymnasium"), "make_vec"),
        (RunSpec("ppo", "pong", vector="envpool"), "rlpyt.envs.envpool"),
        (RunSpec("ppo", config="atari.pg.atari_ff_ppo_envpool:0"), "rlpyt.envs.envpool"),
    ],
)
def test_vector_backends_and_configs_written_for_them(spec, maker):
    components = build_components(spec)
    assert maker in (components.EnvCls.__name__, components.EnvCls.__module__)
    assert components.sampler.EnvCls is components.EnvCls
    if spec.vector == "envpool" and spec.env == "pong":
        assert components.env_kwargs == {"task_id": "Pong-v5"}  # AtariEnv's keys dropped


def test_sync_runner_starts_ranks_with_one_affinity_each():
    components = build_components(RunSpec("ppo", "CartPole-v1", runner="sync", ranks=3))
    assert components.runner_cls.__name__ == "SyncRl" and components.runner_kind == "sync"
    assert len(components.runner_kwargs["affinity"]) == 3


def test_flags_reach_their_keywords():
    dqn = build_components(RunSpec("dqn", "CartPole-v1", snapshot_replay=True, check_finite=False))
    assert dqn.algo.snapshot_replay is True and dqn.config["algo"]["snapshot_replay"] is True
    assert dqn.make_runner().check_finite is False
    assert "check_finite" not in build_components(RunSpec("dqn", "CartPole-v1")).runner_kwargs


@pytest.mark.parametrize(
    "spec, message",
    [
        (RunSpec("ppo", "CartPole-v1", runner="async"), "replay algorithms only"),
        (RunSpec("ppo", "CartPole-v1", ranks=2), "--ranks starts data-parallel ranks"),
        (RunSpec("ppo", "CartPole-v1", snapshot_replay=True), "--snapshot-replay: PPO has no"),
        (RunSpec("ppo", "pong", vector="gymnasium"), "for Atari games use --vector envpool"),
        (RunSpec("dqn", "CartPole-v1", runner="async", target_reward=1), "--target-reward"),
    ],
)
def test_combinations_that_cannot_run_say_why(spec, message):
    with pytest.raises(ValueError, match=message.replace("-", "\\-")):
        build_components(spec)


def test_only_the_rank_that_writes_the_run_folder_reports_it(monkeypatch):
    """Under torchrun every rank runs ``rlpyt train``; the ranks other than 0 get no run folder
    from ``run_training`` and print nothing (they printed "Run folder: None" before)."""
    from click.testing import CliRunner

    from rlpyt.cli import train as train_module
    from rlpyt.cli.main import rlpyt

    for run_dir, printed in ((None, False), ("/runs/ppo/run_0", True)):
        monkeypatch.setattr(
            train_module, "run_training", lambda *a, _d=run_dir, **k: (_d, {"ReturnAverage": 1.0})
        )
        result = CliRunner().invoke(
            rlpyt, ["train", "ppo", "--env", "CartPole-v1", "--steps", "1000", "--run-id", "0"]
        )
        assert result.exit_code == 0, result.output
        assert ("Run folder:" in result.output) is printed, result.output
        assert "None" not in result.output
