"""Train DQN on Atari with AsyncRlEval and AsyncSerialSampler; one run of a sweep.

Sampling, copying into the replay and optimizing run in separate processes:
the sampler process steps every env itself.
rlpyt's train-script contract (``run_experiments`` starts it so)::

    python atari_dqn_async_serial.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

The affinity code must be an asynchronous one (``encode_affinity(..., async_sample=True)``,
also with ``n_gpu=0``). Config: ``configs[config_key]`` of
``rlpyt.experiments.configs.atari.dqn.atari_dqn`` (key "async_serial"), updated by the variant
in ``<log_dir>/variant_config.json``. Logs to ``<log_dir>/run_<run_ID>/``.
"""

import sys

from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.experiments.configs.atari.dqn.atari_dqn import configs
from rlpyt.runners.async_rl import AsyncRlEval
from rlpyt.samplers.async_.collectors import DbCpuResetCollector
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config
from rlpyt.utils.logging.context import logger_context

# The collector policy; launch scripts and tests read it.
CollectorCls = DbCpuResetCollector


def build_runner(config, affinity=None):
    """Sampler, algorithm, agent and runner for one config; nothing starts until train()."""
    sampler = AsyncSerialSampler(
        EnvCls=AtariEnv,
        env_kwargs=config["env"],
        CollectorCls=CollectorCls,
        TrajInfoCls=AtariTrajInfo,
        eval_env_kwargs=dict(config["eval_env"], game=config["env"]["game"]),
        **config["sampler"],
    )
    algo = DQN(optim_kwargs=config["optim"], **config["algo"])
    agent = AtariDqnAgent(model_kwargs=config["model"], **config["agent"])
    return AsyncRlEval(
        algo=algo, agent=agent, sampler=sampler, affinity=affinity, **config["runner"]
    )


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(configs[config_key], load_variant(log_dir))
    config["eval_env"]["game"] = config["env"]["game"]  # params.json: the game evaluated
    runner = build_runner(config, affinity)
    with logger_context(log_dir, run_ID, config["env"]["game"], config):
        runner.train()


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
