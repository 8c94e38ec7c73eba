"""Train R2D1 on CartPole-v1 without velocities (ClassicR2d1Agent); one run of a sweep.

rlpyt's train-script contract (``run_experiments`` starts it so)::

    python cartpole_r2d1.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

Config: ``configs[config_key]`` of ``rlpyt.experiments.configs.classic.dqn.cartpole_r2d1``
(key "r2d1": the learning test's settings; the env observes the cart position and pole angle
only), updated by the variant in ``<log_dir>/variant_config.json``. Logs to
``<log_dir>/run_<run_ID>/``.
"""

import sys

from rlpyt.agents.dqn.classic import ClassicR2d1Agent
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.experiments.configs.classic.dqn.cartpole_r2d1 import (
    configs,
    make_cartpole_without_velocity,
)
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config
from rlpyt.utils.logging.context import logger_context

# Parallel sampling is a change of these two names (CpuSampler + CpuResetCollector, or
# GpuSampler + GpuResetCollector); AlternatingSampler also needs ClassicR2d1AlternatingAgent.
SamplerCls = SerialSampler
CollectorCls = CpuResetCollector


def build_runner(config, affinity=None):
    """Sampler, algorithm, agent and runner for one config; nothing starts until train()."""
    sampler = SamplerCls(
        EnvCls=make_cartpole_without_velocity,
        env_kwargs=config["env"],
        CollectorCls=CollectorCls,
        eval_env_kwargs=config["eval_env"],
        **config["sampler"],
    )
    algo = R2D1(optim_kwargs=config["optim"], **config["algo"])
    agent = ClassicR2d1Agent(model_kwargs=config["model"], **config["agent"])
    return MinibatchRlEval(
        algo=algo, agent=agent, sampler=sampler, affinity=affinity, **config["runner"]
    )


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(configs[config_key], load_variant(log_dir))
    runner = build_runner(config, affinity)
    with logger_context(log_dir, run_ID, "cartpole_r2d1", config):
        runner.train()


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
