"""The divergence guard end to end: a huge learning rate stops PPO and DQN (sync and async) at
the iteration that diverged, the snapshot on disk is the last one with finite parameters, the
last log line says so, ``rlpyt play`` refuses a diverged snapshot; ``check_finite=False`` runs on.
"""

import os

import pytest

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.pg.ppo import PPO
from rlpyt.cli.play import PlayError, read_snapshot
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.async_rl import AsyncRl
from rlpyt.runners.divergence import DivergenceError
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.runners.snapshot import load_snapshot, nonfinite_tensor
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context

T, B = 16, 4  # 64 steps per iteration, a row (and a snapshot) after every one
HUGE = 1e38


class LateHugeLrPPO(PPO):
    """PPO whose learning rate becomes ``HUGE`` from iteration ``huge_from`` on."""

    huge_from = 2

    def optimize_agent(self, itr, samples):
        if itr == self.huge_from:
            for group in self.optimizer.param_groups:
                group["lr"] = HUGE
        return super().optimize_agent(itr, samples)


def sampler(SamplerCls=SerialSampler):
    return SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=T,
        batch_B=B,
        max_decorrelation_steps=10,
    )


def dqn(**kwargs):
    # Learning starts at iteration 2: the snapshots of iterations 0 and 1 are finite.
    return DQN(learning_rate=HUGE, min_steps_learn=128, batch_size=32, replay_size=1000, **kwargs)


def train(tmp_path, algo, agent, check_finite=True):
    """Train 6 iterations; returns (the exception raised or None, run folder, debug.log lines)."""
    runner = MinibatchRl(
        algo,
        agent,
        sampler(),
        n_steps=6 * T * B,
        log_interval_steps=T * B,
        seed=1,
        check_finite=check_finite,
    )
    error = None
    with logger_context(str(tmp_path), 0, "div", {}, "last", override_prefix=True) as run_dir:
        try:
            runner.train()
        except DivergenceError as exc:
            error = exc
    with open(os.path.join(run_dir, "debug.log")) as f:
        lines = f.read().strip().splitlines()
    return error, run_dir, lines


def assert_stopped_with_finite_snapshot(error, run_dir, lines, itr, quantity):
    assert error is not None, "the run did not stop"
    message = str(error)
    assert f"diverged in iteration {itr}:" in message
    assert quantity in message
    assert error.itr == itr
    path = os.path.join(run_dir, "params.pkl")
    assert f"Last snapshot with finite parameters: {path} (iteration {itr - 1})" in message
    snapshot = load_snapshot(path)
    assert snapshot["itr"] == itr - 1  # the diverged iteration saved nothing
    assert nonfinite_tensor(snapshot["agent_state_dict"]) is None
    assert "Training diverged" in lines[-1] and "Training complete" not in lines[-1]
    read_snapshot(run_dir)  # play accepts it


def test_ppo_with_a_huge_learning_rate_stops_and_keeps_the_last_finite_snapshot(tmp_path):
    algo = LateHugeLrPPO(minibatches=1, epochs=1, linear_lr_schedule=False)
    error, run_dir, lines = train(tmp_path, algo, ClassicFfAgent())
    assert_stopped_with_finite_snapshot(error, run_dir, lines, 2, "agent parameter")


def test_ppo_diverging_at_its_first_update_leaves_no_snapshot(tmp_path):
    error, run_dir, lines = train(tmp_path, PPO(learning_rate=HUGE), ClassicFfAgent())
    assert error is not None and error.itr == 0
    assert "No snapshot in" in str(error)
    assert not os.path.exists(os.path.join(run_dir, "params.pkl"))
    assert "Training diverged in iteration 0" in lines[-1]


def test_dqn_with_a_huge_learning_rate_stops_and_keeps_the_last_finite_snapshot(tmp_path):
    error, run_dir, lines = train(tmp_path, dqn(), ClassicDqnAgent())
    assert_stopped_with_finite_snapshot(error, run_dir, lines, 2, "OptInfo field 'loss'")


def test_without_the_check_a_diverging_run_goes_on_and_play_refuses_it(tmp_path):
    error, run_dir, lines = train(tmp_path, dqn(), ClassicDqnAgent(), check_finite=False)
    assert error is None
    assert "Training complete." in lines[-1]
    snapshot = load_snapshot(run_dir)
    assert snapshot["itr"] == 5
    assert nonfinite_tensor(snapshot["agent_state_dict"]) is not None
    with pytest.raises(PlayError, match="non-finite parameters"):
        read_snapshot(run_dir)


# With a row logged at every iteration, the sampler's reports came faster than the optimizer
# logged them, and the optimizer drained the report queue for the whole run without one update
# (the run then ended without diverging); the runner now stops draining once the throttle opens.
def test_async_rl_stops_at_the_optimization_that_diverged(tmp_path):
    runner = AsyncRl(
        dqn(replay_ratio=4),
        ClassicDqnAgent(),
        sampler(AsyncSerialSampler),
        # Far more steps than the first update needs: the sampler process is not held back by
        # the optimizer. Divergence ends the run early anyway.
        n_steps=200 * T * B,
        affinity=dict(optimizer=[dict()], sampler={}),
        seed=3,
        log_interval_steps=T * B,
    )
    with (
        logger_context(str(tmp_path), 0, "async", {}, "last", override_prefix=True) as run_dir,
        pytest.raises(DivergenceError, match=r"optimizer iteration \d+ \(sampler iteration"),
    ):
        runner.train()
    if os.path.exists(os.path.join(run_dir, "params.pkl")):
        assert nonfinite_tensor(load_snapshot(run_dir)["agent_state_dict"]) is None


# -- under the command line --------------------------------------------------------------------


def rlpyt_command(*args, cwd):
    """``python -m rlpyt ARGS`` in ``cwd`` (the command-line tests' runner)."""
    from tests.integration.test_cli import rlpyt  # noqa: PLC0415 (a test module's helper)

    return rlpyt(*args, cwd=cwd)


@pytest.mark.parametrize("verbose", [False, True])
def test_rlpyt_train_that_diverges_ends_in_its_message_and_the_traceback_goes_to_debug_log(
    tmp_path, verbose
):
    """The divergence message and rc 1; the traceback in debug.log (and with --verbose, here)."""
    args = ["train", "ppo", "--env", "CartPole-v1", "--steps", "1024", "--seed", "0"]
    args += ["--set", f"algo.learning_rate={HUGE}", "--log-dir", tmp_path / "runs"]
    result = rlpyt_command(*args, *(["--verbose"] if verbose else []), cwd=tmp_path)
    output = result.stdout
    assert result.returncode == 1, output
    assert output.count("Training diverged in iteration 0") == 1 + verbose, output  # + traceback
    debug_log = tmp_path / "runs" / "run_0" / "debug.log"
    assert f"The traceback is in {debug_log}" in " ".join(output.split()), output
    assert ("Traceback (most recent call last)" in output) == verbose, output
    logged = debug_log.read_text()
    assert "Traceback (most recent call last)" in logged
    assert "DivergenceError: Training diverged in iteration 0" in logged
