"""Train TD3 with Td3Agent on MuJoCo (needs the mujoco extra); one run of a sweep.

rlpyt's train-script contract (``run_experiments`` starts it so)::

    python mujoco_td3_serial.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

Config: ``configs[config_key]`` of ``rlpyt.experiments.configs.mujoco.qpg.mujoco_td3``
("td3_1M_serial", "td3_serial_bstl", "td3_halfcheetah_zoo"; "async_cpu" is meant for ``AsyncRl``
and runs synchronously here), updated by the variant in ``<log_dir>/variant_config.json``.
Evaluates on ``env["id"]`` (copied into ``eval_env``, so params.json shows the env evaluated). Logs
to ``<log_dir>/run_<run_ID>/``.
"""

import importlib.util
import sys

from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.envs.gym import make as gym_make
from rlpyt.experiments.configs.mujoco.qpg.mujoco_td3 import configs
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config
from rlpyt.utils.logging.context import logger_context

# One env step per iteration in this process; a parallel sampler is a change of these two names
# (CpuSampler + CpuResetCollector, or GpuSampler + GpuResetCollector): all take the same keywords.
SamplerCls = SerialSampler
CollectorCls = CpuResetCollector


def check_mujoco():
    """Fail early, before any folder is made, when MuJoCo is missing."""
    if importlib.util.find_spec("mujoco") is None:
        raise ImportError('MuJoCo environments need the mujoco extra: pip install "rlpyt[mujoco]"')


def build_runner(config, affinity=None):
    """Sampler, algorithm, agent and runner for one config; nothing starts until train()."""
    sampler = SamplerCls(
        EnvCls=gym_make,
        env_kwargs=config["env"],
        CollectorCls=CollectorCls,
        eval_env_kwargs=config["eval_env"],
        **config["sampler"],
    )
    algo = TD3(optim_kwargs=config["optim"], **config["algo"])
    agent = Td3Agent(**config["agent"])  # Model sizes are the agent's model_kwargs.
    return MinibatchRlEval(
        algo=algo, agent=agent, sampler=sampler, affinity=affinity, **config["runner"]
    )


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    check_mujoco()
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(configs[config_key], load_variant(log_dir))
    config["eval_env"]["id"] = config["env"]["id"]  # params.json: the env evaluated
    runner = build_runner(config, affinity)
    with logger_context(log_dir, run_ID, config["env"]["id"], config):
        runner.train()


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
