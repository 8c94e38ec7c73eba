"""The runner loop: hooks called at each log point, rows yielded as logged, explicit keywords."""

import csv
import inspect
import os

import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.base import RlAlgorithm
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.protocols import Algorithm, Runner
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlBase, MinibatchRlEval
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context

BATCH_T, BATCH_B, LOG_STEPS = 16, 4, 128  # 64 steps per itr, logs after itr 1, 3, 5
N_STEPS = 6 * BATCH_T * BATCH_B


def make_runner(RunnerCls=MinibatchRl, **sampler_kwargs):
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=BATCH_T,
        batch_B=BATCH_B,
        **sampler_kwargs,
    )
    return RunnerCls(
        algo=PPO(minibatches=1, epochs=1),
        agent=ClassicFfAgent(),
        sampler=sampler,
        n_steps=N_STEPS,
        log_interval_steps=LOG_STEPS,
        seed=5,
    )


def read_progress(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


class SnapshotCountingRl(MinibatchRl):
    """Overrides one hook; the loop must call it at every log point and nowhere else."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.snapshot_itrs = []

    def save_itr_snapshot(self, itr):
        self.snapshot_itrs.append(itr)
        super().save_itr_snapshot(itr)


def test_an_overridden_hook_is_called_at_each_log_point(tmp_path):
    runner = make_runner(SnapshotCountingRl)
    with logger_context(str(tmp_path), 0, "hook", {}, override_prefix=True) as run_dir:
        runner.train()
    assert runner.snapshot_itrs == [1, 3, 5]
    rows = read_progress(run_dir)
    assert [int(r["Diagnostics/Iteration"]) for r in rows] == runner.snapshot_itrs


@pytest.mark.parametrize(
    "RunnerCls, sampler_kwargs, iterations",
    [
        (MinibatchRl, {}, [1, 3, 5]),
        (MinibatchRlEval, dict(eval_n_envs=2, eval_max_steps=200), [0, 1, 3, 5]),
    ],
    ids=["MinibatchRl", "MinibatchRlEval"],
)
def test_iter_train_yields_the_rows_written_to_progress_csv(
    tmp_path, RunnerCls, sampler_kwargs, iterations
):
    runner = make_runner(RunnerCls, **sampler_kwargs)
    with logger_context(str(tmp_path), 0, "rows", {}, override_prefix=True) as run_dir:
        yielded = list(runner.iter_train())
    written = read_progress(run_dir)
    assert [row["Diagnostics/Iteration"] for row in yielded] == iterations
    assert len(written) == len(yielded)
    assert list(written[-1]) == list(yielded[-1])  # the final header: every column, in order
    for row, csv_row in zip(yielded, written, strict=True):
        assert {key: str(value) for key, value in row.items()} == {key: csv_row[key] for key in row}


def test_stopping_iter_train_early_shuts_the_sampler_down(tmp_path):
    runner = make_runner()
    shutdowns = []
    sampler_shutdown = runner.sampler.shutdown
    runner.sampler.shutdown = lambda: shutdowns.append(1) or sampler_shutdown()
    with logger_context(str(tmp_path), 0, "early", {}, override_prefix=True) as run_dir:
        rows = runner.iter_train()
        first = next(rows)
        assert not shutdowns
        rows.close()
    assert shutdowns == [1]
    assert first["Diagnostics/Iteration"] == 1
    assert len(read_progress(run_dir)) == 1


def test_breaking_out_of_iter_train_shuts_the_sampler_down(tmp_path):
    runner = make_runner()
    shutdowns = []
    sampler_shutdown = runner.sampler.shutdown
    runner.sampler.shutdown = lambda: shutdowns.append(1) or sampler_shutdown()
    with logger_context(str(tmp_path), 0, "break", {}, override_prefix=True) as run_dir:
        for row in runner.iter_train():
            if row["Diagnostics/Iteration"] == 3:
                break
        assert shutdowns == [1]  # as soon as the loop is left, not at exit
    assert len(read_progress(run_dir)) == 2


RLPYT_KEYWORDS = {
    "algo": inspect.Parameter.empty,
    "agent": inspect.Parameter.empty,
    "sampler": inspect.Parameter.empty,
    "n_steps": inspect.Parameter.empty,
    "seed": None,
    "affinity": None,
    "log_interval_steps": 1e5,
}


@pytest.mark.parametrize(
    "RunnerCls, extra",
    [(MinibatchRlBase, {}), (MinibatchRl, {"log_traj_window": 100}), (MinibatchRlEval, {})],
)
def test_runner_constructors_spell_out_rlpyt_keywords(RunnerCls, extra):
    parameters = inspect.signature(RunnerCls).parameters
    # Added keywords: early stop on the trailing return, the divergence guard.
    added = {"target_reward": None, "check_finite": True}
    assert {name: p.default for name, p in parameters.items()} == {
        **RLPYT_KEYWORDS,
        **extra,
        **added,
    }
    kinds = {p.kind for p in parameters.values()}
    assert kinds == {inspect.Parameter.POSITIONAL_OR_KEYWORD}  # no *args / **kwargs
    assert all(p.annotation is not inspect.Parameter.empty for p in parameters.values())


@pytest.mark.parametrize("RunnerCls", [MinibatchRl, MinibatchRlEval])
def test_a_misspelt_runner_keyword_fails_at_construction(RunnerCls):
    sampler = SerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=BATCH_T, batch_B=BATCH_B
    )
    with pytest.raises(TypeError, match="n_stepz"):
        RunnerCls(algo=PPO(), agent=ClassicFfAgent(), sampler=sampler, n_stepz=5)


def test_runners_fit_the_runner_protocol():
    assert isinstance(make_runner(), Runner)
    assert isinstance(make_runner(MinibatchRlEval), Runner)


def test_rl_algorithm_defaults_are_class_attributes():
    # The runner reads these directly; an algorithm that does not set them gets these values.
    defaults = dict(
        opt_info_fields=(), bootstrap_value=False, discount=1.0, min_itr_learn=0, update_counter=0
    )
    for name, value in defaults.items():
        assert name in vars(RlAlgorithm), name
        assert getattr(RlAlgorithm, name) == value, name
    algo = RlAlgorithm()
    assert algo.batch_size == 0  # no replay-ratio diagnostics until initialize sets it
    assert isinstance(algo, Algorithm)


def test_async_initialize_names_its_arguments_and_says_what_is_missing():
    parameters = list(inspect.signature(RlAlgorithm.async_initialize).parameters)
    assert parameters == [
        "self",
        "agent",
        "sampler_n_itr",
        "batch_spec",
        "mid_batch_reset",
        "examples",
        "world_size",
    ]
    with pytest.raises(NotImplementedError, match="PPO does not support asynchronous runners"):
        PPO().async_initialize(None, 1, None, True, None)
