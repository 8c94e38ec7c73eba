"""Train R2D1 on Atari with AsyncRlEval and AsyncGpuSampler; one run of a sweep.

Sampling, copying into the replay and optimizing run in separate processes: the sampler
process serves the recurrent agent's actions (on its GPU, or on CPU without one) to env
workers; the memory copiers append batches, with R2D1's input priorities
(``algo.samples_to_buffer``), to the shared sequence replay. rlpyt's train-script contract::

    python atari_r2d1_async_gpu.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

The affinity code must be an asynchronous one (``encode_affinity(..., async_sample=True)``,
also with ``n_gpu=0``). Config: ``configs[config_key]`` of
``rlpyt.experiments.configs.atari.dqn.atari_r2d1`` (keys "async_gpu", "async_gpu_dgx"),
updated by the variant in ``<log_dir>/variant_config.json``. Logs to
``<log_dir>/run_<run_ID>/``. ``atari_r2d1_async_alt.py`` is this script with the alternating
sampler and agent.
"""

import sys

from rlpyt.agents.dqn.atari.atari_r2d1_agent import AtariR2d1Agent
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.experiments.configs.atari.dqn.atari_r2d1 import configs
from rlpyt.runners.async_rl import AsyncRlEval
from rlpyt.samplers.async_.collectors import DbGpuResetCollector
from rlpyt.samplers.async_.gpu_sampler import AsyncGpuSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config
from rlpyt.utils.logging.context import logger_context


def build_runner(config, affinity=None, SamplerCls=AsyncGpuSampler, AgentCls=AtariR2d1Agent):
    """Sampler, algorithm, agent and runner for one config; nothing starts until train()."""
    sampler = SamplerCls(
        EnvCls=AtariEnv,
        env_kwargs=config["env"],
        CollectorCls=DbGpuResetCollector,
        TrajInfoCls=AtariTrajInfo,
        eval_env_kwargs=dict(config["eval_env"], game=config["env"]["game"]),
        **config["sampler"],
    )
    algo = R2D1(optim_kwargs=config["optim"], **config["algo"])
    agent = AgentCls(model_kwargs=config["model"], **config["agent"])
    return AsyncRlEval(
        algo=algo, agent=agent, sampler=sampler, affinity=affinity, **config["runner"]
    )


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key, **classes):
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(configs[config_key], load_variant(log_dir))
    config["eval_env"]["game"] = config["env"]["game"]  # params.json: the game evaluated
    runner = build_runner(config, affinity, **classes)
    with logger_context(log_dir, run_ID, "r2d1_" + config["env"]["game"], config):
        runner.train()


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
