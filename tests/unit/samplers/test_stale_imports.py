"""The sampler module names of rlpyt's early train scripts import today's classes.

rlpyt's own scripts (atari_dqn_serial, atari_dqn_gpu_noeval, atari_lstm_ppo_gpu,
mujoco_ff_ppo_gpu, mujoco_ddpg_cpu, mujoco_sac_async_gpu, mujoco_td3_async_cpu) import from
module paths that later moved; each path here is a thin alias of the module that holds the class.
"""

import importlib

import pytest

from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
from rlpyt.samplers.async_.gpu_sampler import AsyncGpuSampler
from rlpyt.samplers.parallel.cpu.collectors import (
    CpuEvalCollector,
    CpuResetCollector,
    CpuWaitResetCollector,
)
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.collectors import (
    GpuEvalCollector,
    GpuResetCollector,
    GpuWaitResetCollector,
)
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler

# (stale module, name in it) -> today's class.
ALIASES = {
    ("rlpyt.samplers.serial_sampler", "SerialSampler"): SerialSampler,
    ("rlpyt.samplers.paralell.gpu.collectors", "GpuWaitResetCollector"): GpuWaitResetCollector,
    ("rlpyt.samplers.paralell.gpu.collectors", "GpuResetCollector"): GpuResetCollector,
    ("rlpyt.samplers.paralell.gpu.collectors", "GpuEvalCollector"): GpuEvalCollector,
    ("rlpyt.samplers.gpu.sampler", "GpuSampler"): GpuSampler,
    ("rlpyt.samplers.gpu.parallel_sampler", "GpuParallelSampler"): GpuSampler,
    ("rlpyt.samplers.gpu.collectors", "ResetCollector"): GpuResetCollector,
    ("rlpyt.samplers.gpu.collectors", "WaitResetCollector"): GpuWaitResetCollector,
    ("rlpyt.samplers.gpu.collectors", "EvalCollector"): GpuEvalCollector,
    ("rlpyt.samplers.gpu.collectors", "GpuWaitResetCollector"): GpuWaitResetCollector,
    ("rlpyt.samplers.cpu.parallel_sampler", "CpuParallelSampler"): CpuSampler,
    ("rlpyt.samplers.cpu.collectors", "ResetCollector"): CpuResetCollector,
    ("rlpyt.samplers.cpu.collectors", "WaitResetCollector"): CpuWaitResetCollector,
    ("rlpyt.samplers.cpu.collectors", "EvalCollector"): CpuEvalCollector,
    ("rlpyt.samplers.async_.async_gpu_sampler", "AsyncGpuSampler"): AsyncGpuSampler,
    ("rlpyt.samplers.async_.async_cpu_sampler", "AsyncCpuSampler"): AsyncCpuSampler,
}


@pytest.mark.parametrize(("module", "name"), sorted(ALIASES), ids=lambda v: v)
def test_stale_path_imports_todays_class(module, name):
    assert getattr(importlib.import_module(module), name) is ALIASES[module, name]


@pytest.mark.parametrize("module", sorted({module for module, _ in ALIASES}))
def test_alias_module_says_what_it_aliases_and_exports_only_classes(module):
    imported = importlib.import_module(module)
    assert "Alias" in (imported.__doc__ or ""), f"{module} needs a docstring naming its target"
    assert all(isinstance(getattr(imported, name), type) for name in imported.__all__)


def test_atari_dqn_serial_builds_and_samples_through_the_stale_path():
    """rlpyt's atari_dqn_serial.py imports, with a one-env sampler: build, one batch."""
    from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent  # noqa: PLC0415
    from rlpyt.algos.dqn.dqn import DQN  # noqa: PLC0415
    from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo  # noqa: PLC0415
    from rlpyt.runners.minibatch_rl import MinibatchRlEval  # noqa: PLC0415
    from rlpyt.samplers.parallel.cpu.collectors import (  # noqa: PLC0415
        CpuResetCollector as Collector,
    )
    from rlpyt.samplers.serial_sampler import SerialSampler as StaleSerialSampler  # noqa: PLC0415

    sampler = StaleSerialSampler(
        EnvCls=AtariEnv,
        env_kwargs=dict(game="pong"),
        CollectorCls=Collector,
        TrajInfoCls=AtariTrajInfo,
        eval_env_kwargs=dict(game="pong", horizon=100),
        batch_T=2,
        batch_B=1,
        max_decorrelation_steps=0,
        eval_n_envs=1,
        eval_max_steps=100,
    )
    agent = AtariDqnAgent()
    runner = MinibatchRlEval(
        algo=DQN(min_steps_learn=100, replay_size=1000),
        agent=agent,
        sampler=sampler,
        n_steps=4,
        log_interval_steps=2,
    )
    assert runner.sampler is sampler
    sampler.initialize(agent=agent, seed=0)
    samples, _ = sampler.obtain_samples(0)
    assert tuple(samples.env.observation.shape) == (2, 1, 4, 104, 80)
    sampler.shutdown()
