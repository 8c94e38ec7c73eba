"""Launch A2C (feed-forward agent) on Atari with 2 GPUs per run (SyncRl), rlpyt's multi-GPU sweep.

Run from anywhere on a machine with at least 2 GPUs (logs go to
``./data/local/<yyyymmdd>/<HHMMSS>/atari_ff_a2c_multi/``)::

    python experiments/scripts/atari/pg/launch/launch_atari_ff_a2c_gpu_multi.py

Each run is ``../train/atari_ff_a2c_gpu_multi.py`` with config key "2gpu" (16 envs per GPU):
one setting per game, 1 run each, ``gpu_per_run=2`` GPUs and their share of the cores per
run. rlpyt's version passed ``contexts_per_run``, which is not a keyword (a TypeError there).
"""

import os

import torch

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "atari_ff_a2c_gpu_multi.py"))
CONFIG_KEY = "2gpu"
EXPERIMENT_TITLE = "atari_ff_a2c_multi"
RUNS_PER_SETTING = 1
GPU_PER_RUN = 2
GAMES = ("pong",)


def main():
    n_gpu = torch.cuda.device_count() // GPU_PER_RUN * GPU_PER_RUN
    if n_gpu < GPU_PER_RUN:
        raise SystemExit(f"This sweep needs {GPU_PER_RUN} GPUs per run; torch sees {n_gpu}.")
    n_cpu = len(allowed_cpus()) // n_gpu * n_gpu  # equal core blocks per GPU
    affinity_code = encode_affinity(
        n_cpu_core=n_cpu, n_gpu=n_gpu, gpu_per_run=GPU_PER_RUN, hyperthread_offset=0, n_socket=1
    )
    level = VariantLevel(
        keys=[("env", "game")], values=[(game,) for game in GAMES], dir_names=list(GAMES)
    )
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
