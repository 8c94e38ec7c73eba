"""AsyncRl and AsyncRlEval: every async sampler, the double buffer, columns, resume, learning.

Everything runs on CPU (no GPU needed): the GPU and alternating async samplers serve actions
from the sampler process's CPU model when their affinity has no ``cuda_idx``.
"""

import copy
import csv
import ctypes
import math
import multiprocessing as mp
import os
import time
import warnings

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.base import Env, EnvStep
from rlpyt.envs.gym import make as gym_make
from rlpyt.envs.traj_info import TrajInfo
from rlpyt.experiments.configs.classic.dqn.cartpole_dqn import configs as sync_configs
from rlpyt.runners.async_rl import PROCESS_NAMES, AsyncRl, AsyncRlEval
from rlpyt.samplers.async_.alternating_sampler import (
    AsyncAlternatingSampler,
    AsyncNoOverlapAlternatingSampler,
)
from rlpyt.samplers.async_.collectors import (
    DbCpuResetCollector,
    DbCpuWaitResetCollector,
    DbGpuResetCollector,
    DbGpuWaitResetCollector,
)
from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
from rlpyt.samplers.async_.gpu_sampler import AsyncGpuSampler
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.buffer import build_samples_buffer
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.int_box import IntBox
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.launching.affinity import make_affinity
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context

T, B = 8, 4
TWO_WORKERS = dict(workers_cpus=[0, 1], set_affinity=False)
SAMPLERS = {
    "serial-reset": (AsyncSerialSampler, DbCpuResetCollector, {}),
    "serial-wait": (AsyncSerialSampler, DbCpuWaitResetCollector, {}),
    "cpu-reset": (AsyncCpuSampler, DbCpuResetCollector, TWO_WORKERS),
    "cpu-wait": (AsyncCpuSampler, DbCpuWaitResetCollector, TWO_WORKERS),
    "gpu-reset": (AsyncGpuSampler, DbGpuResetCollector, TWO_WORKERS),
    "gpu-wait": (AsyncGpuSampler, DbGpuWaitResetCollector, TWO_WORKERS),
    "alternating": (
        AsyncAlternatingSampler,
        DbGpuResetCollector,
        dict(TWO_WORKERS, alternating=True),
    ),
    "no-overlap": (
        AsyncNoOverlapAlternatingSampler,
        DbGpuResetCollector,
        dict(TWO_WORKERS, alternating=True),
    ),
}


def small_runner(RunnerCls, SamplerCls, CollectorCls, sampler_affinity, n_steps=640, **algo_kw):
    eval_kwargs = dict(eval_n_envs=2, eval_max_steps=400) if RunnerCls is AsyncRlEval else {}
    sampler = SamplerCls(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=T,
        batch_B=B,
        CollectorCls=CollectorCls,
        max_decorrelation_steps=10,
        **eval_kwargs,
    )
    settings = dict(batch_size=16, min_steps_learn=64, replay_size=2_000, replay_ratio=4)
    algo = DQN(**dict(settings, **algo_kw))
    affinity = dict(optimizer=[dict()], sampler=sampler_affinity)
    return RunnerCls(
        algo, ClassicDqnAgent(), sampler, n_steps, affinity, seed=3, log_interval_steps=160
    )


def read_rows(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


# -- affinity and double buffer --------------------------------------------------------------


def test_cpu_only_async_affinity():
    affinity = make_affinity(
        n_cpu_core=2, n_gpu=0, async_sample=True, hyperthread_offset=0, n_socket=1
    )
    (optimizer,) = affinity.optimizer
    assert optimizer["cuda_idx"] is None and len(optimizer["cpus"]) == 1
    sampler = affinity.sampler
    assert sampler["cuda_idx"] is None and len(sampler["workers_cpus"]) == 1
    assert set(optimizer["cpus"]).isdisjoint(sampler["master_cpus"])


def test_double_buffer_collector_writes_the_half_db_idx_names():
    env = gym_make(id="CartPole-v1")
    agent = ClassicDqnAgent()
    agent.initialize(env.spaces, share_memory=False, global_B=2, env_ranks=[0, 1])
    halves = []
    for _ in range(2):
        _, samples_np, _ = build_samples_buffer(agent, env, (T, 2), False, False, False)
        halves.append(samples_np)
    db_idx = mp.RawValue(ctypes.c_int, 0)
    envs = [gym_make(id="CartPole-v1") for _ in range(2)]
    collector = DbCpuResetCollector(
        rank=0,
        envs=envs,
        samples_np=tuple(halves),
        batch_T=T,
        TrajInfoCls=TrajInfo,
        agent=agent,
        sync=AttrDict(db_idx=db_idx),
        global_B=2,
        env_ranks=[0, 1],
        seed=0,
    )
    inputs, traj_infos = collector.start_envs(0)
    collector.start_agent()
    for half in halves:
        half.env.observation[:] = np.nan
    inputs, traj_infos, _ = collector.collect_batch(inputs, traj_infos, 0)
    assert np.isfinite(halves[0].env.observation).all()
    assert np.isnan(halves[1].env.observation).all()
    first = np.copy(halves[0].env.observation)
    db_idx.value = 1
    collector.collect_batch(inputs, traj_infos, 1)
    assert np.isfinite(halves[1].env.observation).all()
    np.testing.assert_array_equal(halves[0].env.observation, first)  # untouched
    # The second batch continues the first: its first observation is the state after step T.
    assert not np.array_equal(halves[1].env.observation[0], first[0])


def test_double_buffer_collector_refuses_a_single_buffer():
    env = gym_make(id="CartPole-v1")
    agent = ClassicDqnAgent()
    agent.initialize(env.spaces)
    _, samples_np, _ = build_samples_buffer(agent, env, (T, 1), False, False, False)
    with pytest.raises(TypeError, match="pair of halves"):
        DbCpuResetCollector(0, [env], samples_np, T, dict, agent)


def test_async_rl_refuses_a_synchronous_sampler_or_algorithm():
    from rlpyt.algos.pg.ppo import PPO
    from rlpyt.samplers.serial.sampler import SerialSampler

    sampler = SerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=T, batch_B=B
    )
    with pytest.raises(TypeError, match="asynchronous sampler"):
        AsyncRl(DQN(), ClassicDqnAgent(), sampler, 1000)
    async_sampler = AsyncSerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=T, batch_B=B
    )
    with pytest.raises(TypeError, match="replay algorithms"):
        AsyncRl(PPO(), ClassicDqnAgent(), async_sampler, 1000)


# -- every sampler -----------------------------------------------------------------------------


def test_the_sampler_process_is_spawned_when_it_serves_on_a_gpu():
    from rlpyt.runners.async_rl import children_start_method, children_start_reason
    from rlpyt.samplers.parallel.base import default_start_method

    assert children_start_method(dict(cuda_idx=0, workers_cpus=[0, 1])) == "spawn"
    assert children_start_method(dict(cuda_idx=None)) == default_start_method()
    assert children_start_method({}) == default_start_method()
    # What an error about arguments that do not pickle says of the spawn.
    reason = children_start_reason(dict(cuda_idx=1, workers_cpus=[0, 1]))
    assert "GPU 1" in reason and "forked" in reason
    assert children_start_reason(dict(cuda_idx=None)) is None
    assert children_start_reason({}) is None


def test_an_env_class_that_does_not_pickle_stops_a_spawned_start_with_the_reason(monkeypatch):
    """AsyncRl hands its start reason (GPU sampler: CUDA does not survive a fork) to the
    error for arguments that do not pickle; forced here on the CPU, with a marker reason."""
    from rlpyt.runners import async_rl

    monkeypatch.setattr(async_rl, "children_start_method", lambda sampler_affinity: "spawn")
    monkeypatch.setattr(async_rl, "children_start_reason", lambda sampler_affinity: "MARK.")
    runner = small_runner(AsyncRl, AsyncSerialSampler, DbCpuResetCollector, {})
    runner.sampler.EnvCls = lambda **kwargs: gym_make(**kwargs)  # noqa: PLW0108 (a lambda on purpose: it does not pickle)
    logger.disable()
    try:
        with pytest.raises(TypeError) as info:
            runner.train()
    finally:
        logger.enable()
    message = str(info.value)
    assert "'spawn' start method" in message and "MARK." in message and "lambda" in message
    assert "Could not start rlpyt-async-sampler:" in message  # the child's role, not "worker-0"
    assert "start_method='fork'" not in message  # the reason replaces the sampler advice
    assert not [p for p in mp.active_children() if p.name in PROCESS_NAMES]


@pytest.mark.parametrize(
    ("name", "start"),
    [(name, "default") for name in sorted(SAMPLERS)]
    + [("serial-reset", "spawn"), ("gpu-reset", "spawn")],
)
def test_every_async_sampler_trains_a_few_iterations(name, start, monkeypatch):
    """``start="spawn"`` forces spawned children on the CPU (AsyncRl spawns them when its
    sampler process serves on a GPU, since CUDA does not survive a fork): everything they get
    must pickle and stay shared, the double buffer and the replay included."""
    from rlpyt.runners import async_rl

    if start == "spawn":
        monkeypatch.setattr(async_rl, "children_start_method", lambda sampler_affinity: "spawn")
    SamplerCls, CollectorCls, sampler_affinity = SAMPLERS[name]
    runner = small_runner(AsyncRl, SamplerCls, CollectorCls, sampler_affinity)
    logger.disable()
    try:
        rows = list(runner.iter_train())
    finally:
        logger.enable()
    if start == "spawn":
        assert runner.group.ctx.get_start_method() == "spawn"
    n_itr = 640 // (T * B)
    assert [int(r["Diagnostics/SamplerIteration"]) for r in rows] == [4, 9, 14, 19]
    assert rows[-1]["Diagnostics/CumSteps"] == 640 and rows[-1]["Diagnostics/CumUpdates"] > 0
    assert sum(r["Diagnostics/NewCompletedTrajs"] for r in rows) > 0
    replay = runner.algo.replay_buffer
    # The copiers put (nearly) every batch into the replay: the last may be cut by the end.
    assert replay.t >= (n_itr - 2) * T
    observations = np.asarray(replay.samples.observation[: replay.t])
    assert np.isfinite(observations).all() and np.abs(observations).sum() > 0
    # Weights are published after every optimization (on CPU too): the shared model (what
    # the sampler copies from) holds the optimizer's current weights.
    agent = runner.agent
    assert agent.shared_model is not agent.model
    for shared, trained in zip(
        agent.shared_model.parameters(), agent.model.parameters(), strict=True
    ):
        torch.testing.assert_close(shared, trained)


class CountingEnv(Env):
    """Observation ``[1]``: how many steps this env has taken; never done."""

    def __init__(self):
        self._action_space = IntBox(0, 2)
        self._observation_space = FloatBox(0, 1e9, shape=(1,))
        self._count = 0

    def reset(self):
        return np.array([self._count], np.float32)

    def step(self, action):
        self._count += 1
        return EnvStep(np.array([self._count], np.float32), np.float32(0), False, None)


class SlowEvenBatchDQN(DQN):
    """Copies of even-numbered batches take 0.3 s: the odd copier would overtake them."""

    def samples_to_buffer(self, samples):
        if int(samples.env.observation[0, 0, 0]) // T % 2 == 0:
            time.sleep(0.3)
        return super().samples_to_buffer(samples)


def test_copiers_append_batches_in_sampling_order():
    sampler = AsyncSerialSampler(
        EnvCls=CountingEnv, env_kwargs={}, batch_T=T, batch_B=1, max_decorrelation_steps=0
    )
    algo = SlowEvenBatchDQN(batch_size=4, min_steps_learn=10**6, replay_size=1_000)
    affinity = dict(optimizer=[dict()], sampler={})
    runner = AsyncRl(
        algo, ClassicDqnAgent(), sampler, 8 * T, affinity, seed=0, log_interval_steps=T
    )
    logger.disable()
    try:
        list(runner.iter_train())
    finally:
        logger.enable()
    replay = runner.algo.replay_buffer
    counts = np.asarray(replay.samples.observation[: replay.t, 0, 0])
    assert replay.t >= 6 * T
    np.testing.assert_array_equal(counts, np.arange(replay.t))


class SlowDQN(DQN):
    """An optimizer far slower than the sampler: each call sleeps 4 ms (8 calls per batch)."""

    def optimize_agent(self, itr, samples=None, sampler_itr=None):
        time.sleep(0.004)
        return super().optimize_agent(itr, samples, sampler_itr=sampler_itr)


def slow_optimizer_run(**runner_kw):
    """40 batches of 32 CartPole steps under SlowDQN; the rows and the warnings raised."""
    sampler = AsyncSerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=T,
        batch_B=B,
        CollectorCls=DbCpuResetCollector,
        max_decorrelation_steps=10,
    )
    algo = SlowDQN(batch_size=16, min_steps_learn=64, replay_size=2_000, replay_ratio=4)
    runner = AsyncRl(
        algo, ClassicDqnAgent(), sampler, 40 * T * B, seed=3, log_interval_steps=160, **runner_kw
    )
    logger.disable()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rows = list(runner.iter_train())
    finally:
        logger.enable()
    return runner, rows, [str(w.message) for w in caught]


@pytest.mark.timeout(60)  # a sampler and optimizer waiting for each other would hang here
@pytest.mark.parametrize("runner_kw", [{}, dict(max_sampler_lead=0)], ids=["default", "lead0"])
def test_the_default_throttle_holds_the_replay_ratio_against_a_slow_optimizer(runner_kw):
    """The sampler waits for the optimizer by default: the data reuse reaches replay_ratio
    less the batches before learning started and the lead, however slow the optimizer, and
    nothing warns. Lead 0 (fractional throttle points, 1/8 batch per call) ends too."""
    runner, rows, warned = slow_optimizer_run(**runner_kw)
    n_itr, lead = 40, runner_kw.get("max_sampler_lead", 1)
    # Batch n_itr - 1 started only once the optimizer's throttle point, from learning_itr on
    # 1/8 batch per call, passed n_itr - 2 - lead.
    learning_itr = 1 + 64 // (T * B)
    floor = 4 * (n_itr - 2 - lead - learning_itr) / n_itr
    reached = rows[-1]["Diagnostics/CumReplayRatio"]
    assert floor <= reached <= 4, (floor, reached)
    assert not [m for m in warned if "max_sampler_lead" in m]
    assert runner.max_sampler_lead == lead


def test_a_free_running_sampler_warns_that_the_ratio_falls_behind():
    """max_sampler_lead=None: the optimizer (one call per report, 4 ms each) falls behind a
    sampler that never waits; every row after learning starts says so, naming the knob."""
    runner, rows, warned = slow_optimizer_run(max_sampler_lead=None)
    assert rows[-1]["Diagnostics/CumReplayRatio"] < 2  # half the configured 4
    notes = [m for m in warned if "max_sampler_lead" in m]
    assert len(notes) == len(rows) and len(rows) == 8  # every row (the first after learning)
    assert "replay_ratio=4 " in notes[-1] and "max_sampler_lead=None" in notes[-1]
    assert f"CumReplayRatio {rows[-1]['Diagnostics/CumReplayRatio']:.3g} " in notes[-1]


def test_max_sampler_lead_is_checked():
    sampler = AsyncSerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=1, batch_B=1
    )
    with pytest.raises(ValueError, match="max_sampler_lead"):
        AsyncRl(DQN(), ClassicDqnAgent(), sampler, 100, max_sampler_lead=-1)


# -- logged columns --------------------------------------------------------------------------

COMMON = [
    "Diagnostics/Iteration",
    "Diagnostics/SamplerIteration",
    "Diagnostics/CumTime (s)",
    "Diagnostics/CumSteps",
    "Diagnostics/CumUpdates",
    "Diagnostics/ReplayRatio",
    "Diagnostics/CumReplayRatio",
    "Diagnostics/StepsPerSecond",
]


def test_async_rl_columns(tmp_path):
    runner = small_runner(AsyncRl, AsyncSerialSampler, DbCpuResetCollector, {})
    with logger_context(str(tmp_path), 0, "a", {}, override_prefix=True) as run_dir:
        runner.train()
    rows = read_rows(run_dir)
    header = list(rows[0])
    own = ["Diagnostics/CumCompletedTrajs", "Diagnostics/NewCompletedTrajs"]
    own.append("Diagnostics/StepsInTrajWindow")
    tail = ["Diagnostics/UpdatesPerSecond", "Diagnostics/OptThrottle"]
    assert header[: len(own) + len(COMMON) + 2] == own + COMMON + tail
    assert "ReturnAverage" in header and "lossAverage" in header
    assert float(rows[-1]["Diagnostics/OptThrottle"]) > 0  # it waited for the sampler
    steps = [int(float(r["Diagnostics/CumSteps"])) for r in rows]
    assert steps == [160, 320, 480, 640]


def test_async_rl_eval_columns(tmp_path):
    runner = small_runner(AsyncRlEval, AsyncCpuSampler, DbCpuResetCollector, TWO_WORKERS)
    with logger_context(str(tmp_path), 0, "e", {}, override_prefix=True) as run_dir:
        runner.train()
    rows = read_rows(run_dir)
    header = list(rows[0])
    own = ["Diagnostics/StepsInEval", "Diagnostics/TrajsInEval", "Diagnostics/CumEvalTime"]
    tail = [
        "Diagnostics/NonEvalSamplesPerSecond",
        "Diagnostics/UpdatesPerSecond",
        "Diagnostics/OptThrottle",
    ]
    assert header[: len(own) + len(COMMON) + 3] == own + COMMON + tail
    steps = [int(float(r["Diagnostics/CumSteps"])) for r in rows]
    assert steps == [0, 160, 320, 480, 640]  # an evaluation before training, then each log
    assert all(int(r["Diagnostics/TrajsInEval"]) > 0 for r in rows)


@pytest.mark.parametrize("RunnerCls", [AsyncRl, AsyncRlEval])
def test_async_runs_train_whole_batches_and_log_their_last_one(tmp_path, RunnerCls):  # noqa: N803
    runner = small_runner(RunnerCls, AsyncSerialSampler, DbCpuResetCollector, {}, n_steps=220)
    with (
        warnings.catch_warnings(),
        logger_context(str(tmp_path), 0, "b", {}, override_prefix=True) as run_dir,
    ):
        warnings.simplefilter("error", UserWarning)  # the notice is a log line, not a warning
        runner.train()
    with open(os.path.join(run_dir, "debug.log"), encoding="utf-8") as f:
        assert "n_steps=220 is not a whole number of sampler batches" in f.read()
    rows = read_rows(run_dir)
    steps = [int(float(r["Diagnostics/CumSteps"])) for r in rows]
    first = [0] if RunnerCls is AsyncRlEval else []  # the evaluation before training
    assert steps == [*first, 160, 224]  # 7 batches of 32; a row at the end, not at 320
    assert int(rows[-1]["Diagnostics/SamplerIteration"]) == 6


# -- resume ----------------------------------------------------------------------------------


def test_resume_continues_counters_weights_and_replay(tmp_path):
    log_dir = str(tmp_path / "run")
    first = small_runner(AsyncRl, AsyncSerialSampler, DbCpuResetCollector, {}, snapshot_replay=True)
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True):
        for row in first.iter_train():
            if row["Diagnostics/SamplerIteration"] == 9:
                break  # stop after the second log point (a snapshot was saved there)
    snapshot = torch.load(os.path.join(log_dir, "run_0", "params.pkl"), weights_only=False)
    assert snapshot["sampler_itr"] == 9 and snapshot["cum_updates"] > 0
    assert snapshot["itr"] == int(row["Diagnostics/Iteration"])

    resumed = small_runner(
        AsyncRl, AsyncSerialSampler, DbCpuResetCollector, {}, snapshot_replay=True
    )
    seen = {}
    original_resume = resumed.resume

    def recording_resume(state):
        original_resume(state)
        seen["t"] = resumed.algo.replay_buffer.t
        seen["updates"] = resumed.algo.update_counter
        seen["shared"] = copy.deepcopy(resumed.agent.shared_model.state_dict())

    resumed.resume = recording_resume
    with logger_context(log_dir, 0, "r", {}, "last", override_prefix=True, resume=True) as d:
        resumed.train(resume_from=True)
    assert seen["t"] == snapshot["algo_state_dict"]["replay"]["t"]
    assert seen["updates"] == snapshot["cum_updates"]
    for key, value in snapshot["agent_state_dict"][
        "model"
    ].items():  # the sampler starts from these
        torch.testing.assert_close(seen["shared"][key], value)
    rows = read_rows(d)
    assert [int(r["Diagnostics/SamplerIteration"]) for r in rows] == [4, 9, 14, 19]
    updates = [int(float(r["Diagnostics/CumUpdates"])) for r in rows]
    assert updates == sorted(updates) and updates[2] > snapshot["cum_updates"]


# -- learning --------------------------------------------------------------------------------

TARGET = 475.0
LEAD = 1  # batches the sampler may run ahead of the optimizer's consumption


def steps_to_target(seed):
    """Env steps at the first evaluation averaging >= TARGET (None within the budget)."""
    config = copy.deepcopy(sync_configs["dqn"])  # RL-Zoo's tuned CartPole DQN, 50k steps
    sampler = AsyncSerialSampler(
        EnvCls=gym_make,
        env_kwargs=config["env"],
        eval_env_kwargs=config["eval_env"],
        **config["sampler"],
    )
    runner = AsyncRlEval(
        algo=DQN(optim_kwargs=config["optim"], **config["algo"]),
        agent=ClassicDqnAgent(model_kwargs=config["model"], **config["agent"]),
        sampler=sampler,
        seed=seed,
        affinity=make_affinity(n_cpu_core=2, n_gpu=0, async_sample=True, set_affinity=False),
        max_sampler_lead=LEAD,
        **config["runner"],
    )
    ratios = []
    for row in runner.iter_train():
        ratios.append(row["Diagnostics/CumReplayRatio"])
        if row["ReturnAverage"] >= TARGET:
            return int(row["Diagnostics/CumSteps"]), ratios
    return None, ratios


# Up to three runs of 25k updates, budgeted in steps; the timeout only guards against a hang.
@pytest.mark.timeout(900)
@pytest.mark.learning
def test_async_dqn_learns_cartpole_within_the_replay_ratio():
    """Within 50k env steps one of up to three seeds evaluates >= 475 (10 episodes); CumReplayRatio
    stays below 110% of the configured replay_ratio (32) in every logged row and ends above
    80% of it.

    CartPole steps cost far less than an update, so without a lead limit the sampler would
    outrun the optimizer (more so on a loaded machine: the CI run that failed here logged
    ratios of 8 to 14) and the run would not be the synchronous config's. ``max_sampler_lead``
    holds the ratio from below while sampling still overlaps optimization. The synchronous
    config solves about 2 seeds in 3 within the budget (test_dqn_classic asks 2 of 3); the
    asynchronous run, whose updates lag the data by up to a batch and whose timing varies,
    solved 2 of seeds 0-2 on a quiet machine (seed 1 at 34,048 steps, seed 2 at 48,640), so
    seed 0 is tried last: the same one-of-three, without a failing 50k run first.
    """
    ratio = sync_configs["dqn"]["algo"]["replay_ratio"]
    logger.disable()
    try:
        results = {}
        for seed in (1, 2, 0):
            results[seed] = steps_to_target(seed)
            if results[seed][0] is not None:
                break
    finally:
        logger.enable()
    for _, ratios in results.values():
        assert all(r <= ratio * 1.1 for r in ratios if not math.isnan(r)), ratios
        assert ratios[-1] >= ratio * 0.8, ratios
    assert any(steps is not None for steps, _ in results.values()), results
