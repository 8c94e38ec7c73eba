"""Runner x collector x agent x algorithm: a few iterations each, with the serial sampler."""

import math
import re
import warnings

import numpy as np
import pytest
import torch

from rlpyt.agents.pg.atari import AtariFfAgent, AtariLstmAgent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicLstmAgent
from rlpyt.agents.pg.mujoco import MujocoFfAgent, MujocoLstmAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlEval
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector, CpuWaitResetCollector
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.launching.threads import process_cpus
from rlpyt.utils.logging import logger

ENVS = {
    "cartpole": (gym_make, dict(id="CartPole-v1"), ClassicFfAgent, ClassicLstmAgent, {}),
    "pendulum": (
        gym_make,
        dict(id="Pendulum-v1"),
        MujocoFfAgent,
        MujocoLstmAgent,
        dict(hidden_sizes=[16]),
    ),
}


@pytest.fixture(autouse=True)
def quiet_logger():
    logger.disable()
    yield
    logger.enable()


def run(
    EnvCls,
    env_kwargs,
    agent,
    algo,
    collector,
    RunnerCls=MinibatchRl,
    T=8,
    B=3,
    n_itr=3,
    TrajInfoCls=None,
    **sampler_kwargs,
):
    if TrajInfoCls is not None:
        sampler_kwargs["TrajInfoCls"] = TrajInfoCls
    sampler = SerialSampler(
        EnvCls=EnvCls,
        env_kwargs=env_kwargs,
        batch_T=T,
        batch_B=B,
        CollectorCls=collector,
        max_decorrelation_steps=5,
        **sampler_kwargs,
    )
    runner = RunnerCls(
        algo=algo,
        agent=agent,
        sampler=sampler,
        n_steps=n_itr * T * B,
        log_interval_steps=T * B,
        seed=0,
    )
    runner.train()
    return runner


@pytest.mark.parametrize("env", ["cartpole", "pendulum"])
@pytest.mark.parametrize("recurrent", [False, True], ids=["ff", "rnn"])
@pytest.mark.parametrize(
    "collector", [CpuResetCollector, CpuWaitResetCollector], ids=["reset", "wait_reset"]
)
@pytest.mark.parametrize("AlgoCls", [A2C, PPO])
def test_matrix_trains_and_changes_parameters(env, recurrent, collector, AlgoCls):
    EnvCls, env_kwargs, FfAgent, RnnAgent, model_kwargs = ENVS[env]
    agent = (RnnAgent if recurrent else FfAgent)(model_kwargs=model_kwargs or None)
    algo = AlgoCls(minibatches=1, epochs=1) if AlgoCls is PPO else AlgoCls()
    runner = run(EnvCls, env_kwargs, agent, algo, collector)
    samples = runner.sampler.samples_np
    # Every slot of the batch was written: no sentinel (NaN / -1) is left anywhere.
    assert (
        not np.isnan(samples.env.reward).any()
        and not np.isnan(samples.agent.agent_info.value).any()
    )
    assert not np.isnan(samples.agent.bootstrap_value).any()
    assert algo.update_counter >= 3
    assert all(torch.isfinite(p).all() for p in agent.parameters())


def test_atari_ff_and_lstm_run(tmp_path):
    for agent in (AtariFfAgent(), AtariLstmAgent(model_kwargs=dict(lstm_size=32))):
        runner = run(
            AtariEnv,
            dict(game="pong"),
            agent,
            A2C(),
            CpuResetCollector,
            T=4,
            B=2,
            n_itr=2,
            TrajInfoCls=AtariTrajInfo,
        )
        assert runner.sampler.samples_np.env.observation.dtype == np.uint8


def test_eval_runner_evaluates_complete_trajectories():
    runner = run(
        gym_make,
        dict(id="CartPole-v1"),
        ClassicFfAgent(),
        A2C(),
        CpuResetCollector,
        RunnerCls=MinibatchRlEval,
        eval_n_envs=2,
        eval_max_steps=2000,
        eval_max_trajectories=4,
    )
    traj_infos = runner.sampler.evaluate_agent(0)
    assert len(traj_infos) == 4  # quota of 2 per env, all complete within 1000 steps each
    assert all(info.Length >= 8 for info in traj_infos)


def test_n_itr_rounds_up_to_whole_batches_and_says_so(monkeypatch):
    sampler = SerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=5, batch_B=2
    )
    runner = MinibatchRl(
        algo=A2C(), agent=ClassicFfAgent(), sampler=sampler, n_steps=105, log_interval_steps=30
    )
    runner.itr_batch_size = 10
    logged = []
    monkeypatch.setattr(logger, "log", lambda message, *args, **kwargs: logged.append(message))

    def notices():
        found = [m for m in logged if "whole number of sampler batches" in m]
        logged.clear()
        return found

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the notice is a log line, not a warning
        assert runner.get_n_itr() == 11  # 10.5 batches -> 11, not whole log intervals (12)
        rounded = r"n_steps=105 .*\(10 env steps each\): training 110 steps"
        assert [bool(re.search(rounded, m)) for m in notices()] == [True]
        assert runner.log_interval_itrs == 3
        assert [itr for itr in range(11) if runner.is_log_itr(itr)] == [2, 5, 8, 10]  # and the end
        runner.n_steps = 1
        assert runner.get_n_itr() == 1
        assert ["training 10 steps" in m for m in notices()] == [True]
        runner.n_steps = 30
        assert runner.get_n_itr() == 3
        assert notices() == []  # whole batches: no notice
    assert math.isclose(runner.n_itr, 3)


def test_startup_decides_torch_threads_from_the_model():
    """A small MLP trains on one thread; a convolutional model on up to every CPU the process
    may use, fewer while other processes keep CPUs busy (its governor follows the load)."""
    threads = torch.get_num_threads()
    n_cpus = len(process_cpus())
    try:
        torch.set_num_threads(2)
        runner = run(
            gym_make, dict(id="CartPole-v1"), ClassicFfAgent(), A2C(), CpuResetCollector, n_itr=1
        )
        assert torch.get_num_threads() == 1 and not runner.thread_governor.active
        pong = dict(game="pong", num_img_obs=2)
        runner = run(AtariEnv, pong, AtariFfAgent(), A2C(), CpuResetCollector, T=2, B=1, n_itr=1)
        assert runner.thread_governor.most == n_cpus
        assert runner.thread_governor.active == (n_cpus > 1)
    finally:
        torch.set_num_threads(threads)


def test_the_loop_asks_the_thread_governor_before_every_optimization(monkeypatch):
    from rlpyt.utils.launching.threads import ThreadGovernor

    asked = []
    monkeypatch.setattr(ThreadGovernor, "adapt", lambda self: asked.append(self) or 1)
    runner = run(gym_make, dict(id="CartPole-v1"), ClassicFfAgent(), A2C(), CpuResetCollector)
    assert len(asked) == runner.n_itr == 3
    assert all(governor is runner.thread_governor for governor in asked)


def test_affinity_torch_threads_are_used_as_given_within_the_cpus():
    threads = torch.get_num_threads()
    try:
        runner = run(gym_make, dict(id="CartPole-v1"), ClassicFfAgent(), A2C(), CpuResetCollector)
        runner.affinity = dict(master_torch_threads=2, set_affinity=False)
        decision = runner._set_master_threads()
        assert torch.get_num_threads() == decision.threads == min(2, len(process_cpus()))
        runner.affinity = dict(master_cpus=[process_cpus()[0]], master_torch_threads=4)
        assert runner._set_master_threads().threads == torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
