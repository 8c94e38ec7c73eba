"""Train PPO with the feed-forward Atari agent on envpool's Atari; one run of a sweep.

rlpyt's train-script contract (``run_experiments`` starts it so)::

    python atari_ff_ppo_envpool.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

Config: ``configs[config_key]`` of ``rlpyt.experiments.configs.atari.pg.atari_ff_ppo_envpool``,
updated by the variant in ``<log_dir>/variant_config.json``. Logs to ``<log_dir>/run_<run_ID>/``.
The only difference from ``atari_ff_ppo.py`` is ``EnvCls=make`` of ``rlpyt.envs.envpool``
(and its ``env`` keywords): the samplers see a vector-env maker and step all their envs in one
envpool call. Needs the ``envpool`` extra.
"""

import sys

from rlpyt.agents.pg.atari import AtariFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.atari.atari_env import AtariTrajInfo
from rlpyt.envs.envpool import make
from rlpyt.experiments.configs.atari.pg.atari_ff_ppo_envpool import configs
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config
from rlpyt.utils.logging.context import logger_context

# Parallel sampling is a change of these two names (CpuSampler + CpuResetCollector, or
# GpuSampler + GpuResetCollector): each worker then owns one envpool over its slice of batch_B.
SamplerCls = SerialSampler
CollectorCls = CpuResetCollector


def build_runner(config, affinity=None):
    """Sampler, algorithm, agent and runner for one config; nothing starts until train()."""
    sampler = SamplerCls(
        EnvCls=make,
        env_kwargs=config["env"],
        CollectorCls=CollectorCls,
        TrajInfoCls=AtariTrajInfo,
        **config["sampler"],
    )
    algo = PPO(optim_kwargs=config["optim"], **config["algo"])
    agent = AtariFfAgent(model_kwargs=config["model"], **config["agent"])
    return MinibatchRl(
        algo=algo, agent=agent, sampler=sampler, affinity=affinity, **config["runner"]
    )


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(configs[config_key], load_variant(log_dir))
    runner = build_runner(config, affinity)
    with logger_context(log_dir, run_ID, config["env"]["task_id"], config):
        runner.train()


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
