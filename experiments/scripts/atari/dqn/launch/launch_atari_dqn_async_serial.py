"""Launch asynchronous DQN on Atari with one of the async samplers (serial by default).

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/atari_dqn_async_<kind>/``)::

    python experiments/scripts/atari/dqn/launch/launch_atari_dqn_async_serial.py

Each run is ``../train/atari_dqn_async_<kind>.py`` with config key "async_<kind>", one setting
per game, 2 runs (run_IDs, i.e. seeds) each. A run takes all allowed CPUs: the optimizer gets
the first core, the sampler the others (``encode_affinity(..., async_sample=True)``, which
works without a GPU); with GPUs the optimizer takes one. ``launch_atari_dqn_async_cpu.py`` and
``..._gpu.py`` call :func:`main` with their sampler kind.
"""

import os
import sys

import torch

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "atari_dqn_async_serial.py"))
CONFIG_KEY = "async_serial"
RUNS_PER_SETTING = 2
GAMES = ("pong", "seaquest", "qbert", "chopper_command")


def visible_gpus() -> int:
    """CUDA devices torch sees (0 without CUDA)."""
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def main(kind="serial"):
    """Launch the sweep with the async sampler ``kind`` ("serial", "cpu" or "gpu")."""
    n_gpu = visible_gpus() if kind == "gpu" else 0
    affinity_code = encode_affinity(
        n_cpu_core=len(allowed_cpus()),
        n_gpu=n_gpu,
        async_sample=True,
        sample_gpu_per_run=1 if n_gpu > 1 else 0,
        optim_sample_share_gpu=n_gpu == 1,
        hyperthread_offset=0,
        n_socket=1,
    )
    level = VariantLevel(
        keys=[("env", "game")], values=[(game,) for game in GAMES], dir_names=list(GAMES)
    )
    variants, log_dirs = make_variants(level)
    run_experiments(
        script=os.path.normpath(os.path.join(HERE, "..", "train", f"atari_dqn_async_{kind}.py")),
        affinity_code=affinity_code,
        experiment_title=f"atari_dqn_async_{kind}",
        runs_per_setting=RUNS_PER_SETTING,
        variants=variants,
        log_dirs=log_dirs,
        common_args=(f"async_{kind}",),
    )


if __name__ == "__main__":
    sys.exit(main())
