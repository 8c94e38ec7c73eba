"""Exact resume includes evaluation: MinibatchRlEval stopped half way and resumed logs the rows
of the uninterrupted run, evaluation columns included. Every evaluation seeds its envs and
generators from the run's seed and its iteration, so neither a crash nor an extra row logged
where a run stopped changes the evaluations after it.
"""

import copy
import csv
import os

import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context

T, B, LOG_STEPS, N_ITR = 16, 4, 128, 6  # 2 iterations per log interval, 3 rows + itr 0's
EVAL_KEYS = ("Diagnostics/StepsInEval", "Diagnostics/TrajsInEval", "ReturnAverage", "LengthMax")
TRAIN_KEYS = ("Diagnostics/CumSteps", "Diagnostics/CumUpdates", "lossAverage")


class CrashError(Exception):
    pass


class CrashingRlEval(MinibatchRlEval):
    """Dies at the start of iteration 4 (after the snapshot and evaluation of iteration 3)."""

    def sample_and_optimize(self, itr):
        if itr == 4:
            raise CrashError()
        return super().sample_and_optimize(itr)


def make_runner(family, SamplerCls, RunnerCls=MinibatchRlEval, n_itr=N_ITR, seed=11):  # noqa: N803
    parallel = SamplerCls is not SerialSampler
    affinity = dict(workers_cpus=[0, 0], set_affinity=False) if parallel else None
    sampler = SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=T,
        batch_B=B,
        max_decorrelation_steps=10,
        eval_n_envs=2,
        eval_max_steps=240,
    )
    if family == "dqn":
        algo = DQN(min_steps_learn=128, batch_size=32, replay_size=1000, snapshot_replay=True)
        agent = ClassicDqnAgent(eps_eval=0.2)  # evaluation draws random actions too
    else:  # a constant learning rate: runs with different budgets train alike
        algo, agent = PPO(minibatches=2, epochs=2, linear_lr_schedule=False), ClassicFfAgent()
    n_steps = n_itr * T * B
    return RunnerCls(
        algo, agent, sampler, n_steps, seed=seed, affinity=affinity, log_interval_steps=LOG_STEPS
    )


def read_rows(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(
    ("family", "SamplerCls"),
    [("dqn", SerialSampler), ("ppo", SerialSampler), ("ppo", CpuSampler), ("ppo", GpuSampler)],
    ids=["dqn-serial", "ppo-serial", "ppo-cpu", "ppo-gpu"],
)
def test_resumed_evaluations_equal_the_uninterrupted_ones(tmp_path, family, SamplerCls):  # noqa: N803
    straight = make_runner(family, SamplerCls)
    with logger_context(str(tmp_path / "a"), 0, "r", {}, "last", override_prefix=True) as d:
        straight.train()
    straight_rows = read_rows(d)

    log_dir = str(tmp_path / "b")
    with (
        pytest.raises(CrashError),
        logger_context(log_dir, 0, "r", {}, "last", override_prefix=True),
    ):
        make_runner(family, SamplerCls, CrashingRlEval).train()
    resumed = make_runner(family, SamplerCls)
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True, resume=True) as d:
        resumed.train(resume_from=True)
    resumed_rows = read_rows(d)

    assert len(straight_rows) == len(resumed_rows) == 4
    assert int(resumed_rows[-1]["Diagnostics/TrajsInEval"]) > 2  # episodes end mid-evaluation
    for a, b in zip(straight_rows, resumed_rows, strict=True):
        for key in EVAL_KEYS + TRAIN_KEYS:
            assert a[key] == b[key], (key, a[key], b[key])
    for p, q in zip(straight.agent.parameters(), resumed.agent.parameters(), strict=True):
        assert torch.equal(p, q)


def is_timing(column):
    """Wall-clock columns: CumTime (s), CumEvalTime, StepsPerSecond, ..."""
    return "Time" in column or "PerSecond" in column


@pytest.mark.parametrize(
    ("family", "SamplerCls"),
    [("dqn", SerialSampler), ("ppo", CpuSampler), ("dqn", GpuSampler)],
    ids=["dqn-serial", "ppo-cpu", "dqn-gpu"],
)
def test_a_run_stopped_between_log_points_and_resumed_logs_the_uninterrupted_rows(
    tmp_path,
    family,
    SamplerCls,  # noqa: N803
):
    """5 iterations log an extra row at itr 4 (not a log point); resumed to 8, every row of an
    iteration both runs log equals the uninterrupted run's, column by column.
    """
    straight = make_runner(family, SamplerCls, n_itr=8)
    with logger_context(str(tmp_path / "a"), 0, "r", {}, "last", override_prefix=True) as d:
        straight.train()
    straight_rows = {row["Diagnostics/Iteration"]: row for row in read_rows(d)}

    log_dir = str(tmp_path / "b")
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True):
        make_runner(family, SamplerCls, n_itr=5).train()
    resumed = make_runner(family, SamplerCls, n_itr=8)
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True, resume=True) as d:
        resumed.train(resume_from=True)
    resumed_rows = {row["Diagnostics/Iteration"]: row for row in read_rows(d)}

    assert sorted(straight_rows, key=int) == ["0", "1", "3", "5", "7"]
    assert sorted(resumed_rows, key=int) == ["0", "1", "3", "4", "5", "7"]  # 4: where it stopped
    assert int(resumed_rows["7"]["Diagnostics/TrajsInEval"]) > 2
    for itr, a in straight_rows.items():
        b = resumed_rows[itr]
        assert a.keys() == b.keys()
        for column in a:
            if not is_timing(column):
                assert a[column] == b[column], (itr, column, a[column], b[column])
    for p, q in zip(straight.agent.parameters(), resumed.agent.parameters(), strict=True):
        assert torch.equal(p, q)


def eval_episodes(runner, itr):
    traj_infos, _ = runner.evaluate_agent(itr)
    return [(t["Length"], t["Return"]) for t in traj_infos]


@pytest.mark.parametrize("SamplerCls", [CpuSampler, GpuSampler], ids=["cpu", "gpu"])
@pytest.mark.parametrize("family", ["dqn", "ppo"])
def test_parallel_evaluations_depend_on_the_iteration_not_on_the_history(family, SamplerCls):  # noqa: N803
    """Eval workers (CPU: their own agents; GPU: the master's) give the same episodes at an
    iteration whether or not batches and evaluations ran before it (same weights).
    """
    fresh = make_runner(family, SamplerCls)
    fresh.startup()
    try:
        weights = copy.deepcopy(fresh.agent.state_dict())
        wanted = eval_episodes(fresh, 2)
    finally:
        fresh.shutdown()

    used = make_runner(family, SamplerCls)
    used.startup()
    try:
        for itr in range(2):  # batches and evaluations move the envs and the generators
            used.sample_and_optimize(itr)
            eval_episodes(used, itr)
        used.agent.load_state_dict(weights)
        got = eval_episodes(used, 2)
    finally:
        used.shutdown()
    assert len(wanted) > 2
    assert got == wanted


def test_a_run_without_a_seed_resumes_with_the_seed_of_its_snapshot(tmp_path):
    log_dir = str(tmp_path / "b")
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True):
        stopped = make_runner("dqn", SerialSampler, n_itr=5, seed=None)
        stopped.train()
    resumed = make_runner("dqn", SerialSampler, n_itr=8, seed=None)
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True, resume=True) as d:
        resumed.train(resume_from=True)
    resumed_rows = {row["Diagnostics/Iteration"]: row for row in read_rows(d)}
    assert resumed.seed == stopped.seed

    straight = make_runner("dqn", SerialSampler, n_itr=8, seed=stopped.seed)
    with logger_context(str(tmp_path / "a"), 0, "r", {}, "last", override_prefix=True) as d:
        straight.train()
    for row in read_rows(d)[-2:]:  # the rows after the resume
        other = resumed_rows[row["Diagnostics/Iteration"]]
        for key in EVAL_KEYS + TRAIN_KEYS:
            assert row[key] == other[key], (key, row[key], other[key])
