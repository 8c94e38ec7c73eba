"""Launch PPO (Gaussian agent) on MuJoCo tasks; needs the mujoco extra.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/mujoco_ff_ppo/``)::

    python experiments/scripts/mujoco/pg/launch/launch_mujoco_ff_ppo.py

Each run is ``../train/mujoco_ff_ppo.py`` with config key "ppo_1M_serial";
one setting per environment, 2 runs (run_IDs, i.e. seeds) each,
one run per CPU at a time. Edit the constants to change the sweep.
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "mujoco_ff_ppo.py"))
CONFIG_KEY = "ppo_1M_serial"
EXPERIMENT_TITLE = "mujoco_ff_ppo"
RUNS_PER_SETTING = 2
ENV_IDS = ("Hopper-v5", "HalfCheetah-v5", "Swimmer-v5")


def main():
    # The serial sampler uses one core per run; give a parallel sampler more with cpu_per_run.
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
