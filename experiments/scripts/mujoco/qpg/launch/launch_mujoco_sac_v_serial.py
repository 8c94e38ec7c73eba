"""Launch SAC_V on MuJoCo tasks: one setting per environment; needs the mujoco extra.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/mujoco_sac_v_serial/``)::

    python experiments/scripts/mujoco/qpg/launch/launch_mujoco_sac_v_serial.py

Each run is ``../train/mujoco_sac_v_serial.py`` with config key "sac_serial_bstl" of
``rlpyt.experiments.configs.mujoco.qpg.mujoco_sac_v``; one setting per environment in ``ENV_IDS``,
2 runs (run_IDs, i.e. seeds) each, one run per allowed CPU at a time (1M steps with one update per
step: days per run on a CPU core; pass ``--cuda_idx``-style GPU affinities by changing
``encode_affinity``'s ``n_gpu``). Edit the constants to change the sweep.
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "mujoco_sac_v_serial.py"))
CONFIG_KEY = "sac_serial_bstl"
EXPERIMENT_TITLE = "mujoco_sac_v_serial"
RUNS_PER_SETTING = 2
ENV_IDS = ("Hopper-v5", "HalfCheetah-v5", "Walker2d-v5")


def main():
    # The serial sampler uses one core per run: one run per allowed CPU at a time.
    affinity_code = encode_affinity(
        n_cpu_core=len(allowed_cpus()), cpu_per_run=1, hyperthread_offset=0, n_socket=1
    )
    level = VariantLevel(
        keys=[("env", "id")],
        values=[(value,) for value in ENV_IDS],
        dir_names=[value for value in ENV_IDS],
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
