"""Launch PPO on CartPole-v1 with SyncRl: 2 CPU ranks per run, one run per 2 cores.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/cartpole_ppo_sync/``)::

    python experiments/scripts/classic/pg/launch/launch_cartpole_ppo_sync.py

Each run is ``../train/cartpole_ppo_sync.py`` with config key "0": its process is rank 0 and
starts rank 1 itself (``gpu_per_run=2`` with ``n_gpu=0`` makes the affinity a list of two CPU
ranks; with GPUs, ``n_gpu=2, gpu_per_run=2`` gives one GPU per rank). Each rank samples the
config's batch (weak scaling: twice the env steps per iteration of the single-process run).

The same train script runs under torchrun, one node or many (docs/distributed.md)::

    torchrun --standalone --nproc-per-node 2 \\
        experiments/scripts/classic/pg/train/cartpole_ppo_sync.py --log_dir /tmp/sync
    # on each of 2 nodes (HOST: the first node's address; same --rdzv-id on both):
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint HOST:29400 \\
        --rdzv-id cartpole_sync experiments/scripts/classic/pg/train/cartpole_ppo_sync.py \\
        --log_dir /shared/cartpole_sync
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "cartpole_ppo_sync.py"))
CONFIG_KEY = "0"
EXPERIMENT_TITLE = "cartpole_ppo_sync"
RUNS_PER_SETTING = 1
RANKS = 2


def main():
    n_cpu = max(RANKS, len(allowed_cpus()) // RANKS * RANKS)
    affinity_code = encode_affinity(
        n_cpu_core=n_cpu,
        n_gpu=0,
        cpu_per_run=RANKS,
        gpu_per_run=RANKS,  # with n_gpu=0: CPU ranks per run
        hyperthread_offset=0,
        n_socket=1,
    )
    level = VariantLevel(keys=[("sampler", "batch_B")], values=[(4,)], dir_names=["B_4"])
    variants, log_dirs = make_variants(level)
    run_experiments(
        script=SCRIPT,
        affinity_code=affinity_code,
        experiment_title=EXPERIMENT_TITLE,
        runs_per_setting=RUNS_PER_SETTING,
        variants=variants,
        log_dirs=log_dirs,
        common_args=(CONFIG_KEY,),
    )


if __name__ == "__main__":
    main()
