"""Launch R2D1 (GPU sampler) on Atari games.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/atari_r2d1_gpu_basic/``)::

    python experiments/scripts/atari/dqn/launch/launch_atari_r2d1_gpu_basic.py

Each run is ``../train/atari_r2d1_gpu.py`` with config key "r2d1" of ``atari_r2d1`` (100M
steps); one setting per game, 1 run (run_ID, i.e. seed) each. One run per GPU at a time
(its sampler workers on that GPU's share of the CPUs), or one at a time on all CPUs without a
GPU. Edit the constants to change the sweep.
"""

import os

import torch

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "atari_r2d1_gpu.py"))
CONFIG_KEY = "r2d1"
EXPERIMENT_TITLE = "atari_r2d1_gpu_basic"
RUNS_PER_SETTING = 1
GAMES = ("pong", "seaquest", "qbert", "chopper_command")


def main():
    # One run per GPU, its sampler workers on that GPU's share of the CPUs; without a GPU, one
    # run at a time on all CPUs (the master's batched forward then runs on the CPU).
    n_cpu_core = len(allowed_cpus())
    n_gpu = torch.cuda.device_count()
    affinity_code = encode_affinity(
        n_cpu_core=n_cpu_core,
        n_gpu=n_gpu,
        cpu_per_run=n_cpu_core,
        hyperthread_offset=0,
        n_socket=1,
    )
    level = VariantLevel(
        keys=[("env", "game")],
        values=[(value,) for value in GAMES],
        dir_names=[value for value in GAMES],
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
