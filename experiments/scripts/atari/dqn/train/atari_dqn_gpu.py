"""Train DQN on Atari with the GPU sampler (wait-reset collector); one run of a sweep.

rlpyt's train-script contract (``run_experiments`` starts it so)::

    python atari_dqn_gpu.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

Config: ``configs[config_key]`` of ``rlpyt.experiments.configs.atari.dqn.atari_dqn``,
updated by the variant in ``<log_dir>/variant_config.json``; the evaluation envs play the
training game. Logs to ``<log_dir>/run_<run_ID>/``.
"""

import sys

from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.experiments.configs.atari.dqn.atari_dqn import configs
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.parallel.gpu.collectors import GpuWaitResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config
from rlpyt.utils.logging.context import logger_context

# Workers only step envs; this process runs one batched forward for all of them (on the
# affinity's GPU, or on the CPU without one).
# Wait-reset, as rlpyt's script: an env whose episode ends waits for the next batch to
# reset (DQN learns from such batches here; rlpyt's DQN raised NotImplementedError).
SamplerCls = GpuSampler
CollectorCls = GpuWaitResetCollector


def build_runner(config, affinity=None):
    """Sampler, algorithm, agent and runner for one config; nothing starts until train()."""
    sampler = SamplerCls(
        EnvCls=AtariEnv,
        env_kwargs=config["env"],
        CollectorCls=CollectorCls,
        TrajInfoCls=AtariTrajInfo,
        eval_env_kwargs=dict(config["eval_env"], game=config["env"]["game"]),
        **config["sampler"],
    )
    algo = DQN(optim_kwargs=config["optim"], **config["algo"])
    agent = AtariDqnAgent(model_kwargs=config["model"], **config["agent"])
    return MinibatchRlEval(
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
