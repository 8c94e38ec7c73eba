"""Train R2D1 on Atari with the GPU sampler; one run of a sweep.

rlpyt's train-script contract (``run_experiments`` starts it so)::

    python atari_r2d1_gpu.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

Config: ``configs[config_key]`` of ``rlpyt.experiments.configs.atari.dqn.atari_r2d1``
(e.g. "r2d1", "r2d1_long", "r2d1_test"), updated by the variant in
``<log_dir>/variant_config.json``; the evaluation envs play the training game. Logs to
``<log_dir>/run_<run_ID>/``.

Workers only step envs; this process runs one batched forward of the recurrent agent for all
of them (on the affinity's GPU, or on the CPU without one), carrying the agent's recurrent
state. Reset collector: an env whose episode ends resets at once (its state is zeroed), so no
step of a batch is padding. For ``AlternatingSampler`` set the two names below to it and
``AtariR2d1AlternatingAgent`` (and pass ``alternating=True`` in the affinity).
"""

import sys

from rlpyt.agents.dqn.atari.atari_r2d1_agent import AtariR2d1Agent
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.experiments.configs.atari.dqn.atari_r2d1 import configs
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config
from rlpyt.utils.logging.context import logger_context

SamplerCls = GpuSampler
AgentCls = AtariR2d1Agent


def build_runner(config, affinity=None):
    """Sampler, algorithm, agent and runner for one config; nothing starts until train()."""
    sampler = SamplerCls(
        EnvCls=AtariEnv,
        env_kwargs=config["env"],
        CollectorCls=GpuResetCollector,
        TrajInfoCls=AtariTrajInfo,
        eval_env_kwargs=dict(config["eval_env"], game=config["env"]["game"]),
        **config["sampler"],
    )
    algo = R2D1(optim_kwargs=config["optim"], **config["algo"])
    agent = AgentCls(model_kwargs=config["model"], **config["agent"])
    return MinibatchRlEval(
        algo=algo, agent=agent, sampler=sampler, affinity=affinity, **config["runner"]
    )


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(configs[config_key], load_variant(log_dir))
    config["eval_env"]["game"] = config["env"]["game"]  # params.json: the game evaluated
    runner = build_runner(config, affinity)
    with logger_context(log_dir, run_ID, "r2d1_" + config["env"]["game"], config):
        runner.train()


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
