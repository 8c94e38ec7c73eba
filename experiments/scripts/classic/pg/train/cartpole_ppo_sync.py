"""Train PPO on CartPole-v1 with SyncRl: several ranks, DistributedDataParallel (gloo on CPU).

Two ways to start, same script:

rlpyt's train-script contract (``run_experiments`` starts it so; the affinity code holds
``gpu_per_run`` ranks, e.g. ``encode_affinity(n_cpu_core=2, n_gpu=0, cpu_per_run=2,
gpu_per_run=2)``; this process starts the other ranks itself)::

    python cartpole_ppo_sync.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

torchrun (each torchrun process is one rank; one node or many)::

    torchrun --standalone --nproc-per-node 2 cartpole_ppo_sync.py --log_dir /tmp/sync
    torchrun --nnodes 2 --nproc-per-node 4 --rdzv-backend c10d \\
        --rdzv-endpoint HOST:29400 --rdzv-id run1 cartpole_ppo_sync.py --log_dir /shared/sync

Without torchrun, ``--ranks N`` starts N ranks from this process (``--cuda_idx 0``: all of them
train on GPU 0 and reduce with gloo; ranks on GPUs of their own use NCCL)::

    python cartpole_ppo_sync.py --log_dir /tmp/sync --ranks 2 --cuda_idx 0

Config: ``configs[config_key]`` of ``rlpyt.experiments.configs.classic.pg.cartpole_ppo``. Each
rank samples that config's ``batch_T x batch_B`` (weak scaling: the global batch grows with
the ranks; pass ``--batch_B`` to keep it). Only rank 0 writes ``<log_dir>/run_<run_ID>/``.
"""

import argparse
import copy
import sys

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.experiments.configs.classic.pg.cartpole_ppo import configs
from rlpyt.runners.sync_ranks import torchrun_env
from rlpyt.runners.sync_rl import SyncRl, sync_logger_context
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config


def build_runner(config, affinity=None):
    """Sampler, algorithm, agent and SyncRl runner for one config; nothing starts until train()."""
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=config["env"],
        CollectorCls=CpuResetCollector,
        **config["sampler"],
    )
    algo = PPO(optim_kwargs=config["optim"], **config["algo"])
    agent = ClassicFfAgent(model_kwargs=config["model"], **config["agent"])
    return SyncRl(algo=algo, agent=agent, sampler=sampler, affinity=affinity, **config["runner"])


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    """rlpyt's contract: the affinity list from the code, the variant from ``log_dir``."""
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(configs[config_key], load_variant(log_dir))
    runner = build_runner(config, affinity)
    with sync_logger_context(log_dir, run_ID, config["env"]["id"], config):
        runner.train()


def torchrun_main(argv):
    """Under torchrun (or, with ``--ranks``, started here): options instead of a variant."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log_dir", required=True)
    parser.add_argument("--run_ID", default=0)
    parser.add_argument("--config_key", default="0")
    parser.add_argument("--n_steps", type=float, default=None)
    parser.add_argument("--log_interval_steps", type=float, default=None)
    parser.add_argument("--batch_B", type=int, default=None, help="envs per rank")
    parser.add_argument("--ranks", type=int, default=2, help="without torchrun: ranks to start")
    parser.add_argument(
        "--cuda_idx", type=int, default=None, help="GPU of every rank (shared: gloo, not NCCL)"
    )
    args = parser.parse_args(argv)
    config = copy.deepcopy(configs[args.config_key])
    for key in ("n_steps", "log_interval_steps"):
        if getattr(args, key) is not None:
            config["runner"][key] = getattr(args, key)
    if args.batch_B is not None:
        config["sampler"]["batch_B"] = args.batch_B
    # torchrun: one dict for every rank; started here: one per rank. One torch thread each.
    affinity = dict(master_torch_threads=1, set_affinity=False, cuda_idx=args.cuda_idx)
    if torchrun_env() is None:
        affinity = [affinity] * args.ranks
    runner = build_runner(config, affinity)
    with sync_logger_context(
        args.log_dir, args.run_ID, config["env"]["id"], config, override_prefix=True
    ):
        runner.train()


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("--"):
        build_and_train(*sys.argv[1:])
    else:
        torchrun_main(sys.argv[1:])
