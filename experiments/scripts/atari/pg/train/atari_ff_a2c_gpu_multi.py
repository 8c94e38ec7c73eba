"""Train A2C with the feed-forward Atari agent on several GPUs at once (SyncRl, rlpyt's pattern).

rlpyt's train-script contract (``run_experiments`` starts it so; the affinity code has
``gpu_per_run > 1``, e.g. ``encode_affinity(n_cpu_core=8, n_gpu=2, gpu_per_run=2)``, which
gives a list of one affinity per GPU; this process is rank 0 and starts the others)::

    python atari_ff_a2c_gpu_multi.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

Use config "2gpu" (16 envs per rank: the 32-env batch of "0" over two GPUs). Each rank runs a
GpuSampler (env workers on its CPUs, one batched forward on its GPU) and trains on its GPU;
DDP averages the gradients (NCCL). The same script runs without GPUs from a CPU rank list
(``n_gpu=0, gpu_per_run=2``; gloo), which is how it is smoke-tested. torchrun:
docs/distributed.md.
"""

import sys

from rlpyt.agents.pg.atari import AtariFfAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.experiments.configs.atari.pg.atari_ff_a2c import configs
from rlpyt.runners.sync_rl import SyncRl, sync_logger_context
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config


def build_runner(config, affinity=None):
    """GpuSampler, A2C, agent and SyncRl runner for one config; nothing starts until train()."""
    sampler = GpuSampler(
        EnvCls=AtariEnv,
        env_kwargs=config["env"],
        CollectorCls=GpuResetCollector,
        TrajInfoCls=AtariTrajInfo,
        **config["sampler"],
    )
    algo = A2C(optim_kwargs=config["optim"], **config["algo"])
    agent = AtariFfAgent(model_kwargs=config["model"], **config["agent"])
    return SyncRl(algo=algo, agent=agent, sampler=sampler, affinity=affinity, **config["runner"])


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(configs[config_key], load_variant(log_dir))
    runner = build_runner(config, affinity)
    with sync_logger_context(log_dir, run_ID, config["env"]["game"], config):
        runner.train()


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
