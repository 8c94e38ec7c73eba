"""Launch PPO on gymnasium's vectorized CartPole-v1 over vector backends.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/cartpole_ppo_vec/``)::

    python experiments/scripts/classic/pg/launch/launch_cartpole_ppo_vec.py

Each run is ``../train/cartpole_ppo_vec.py`` with config key "0"; one setting per
``vectorization_mode`` (the native numpy CartPole, and gymnasium's SyncVectorEnv over per-env
CartPoles), 2 runs (run_IDs, i.e. seeds) each, one run per CPU at a time. Edit the constants to
change the sweep.
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "cartpole_ppo_vec.py"))
CONFIG_KEY = "0"
EXPERIMENT_TITLE = "cartpole_ppo_vec"
RUNS_PER_SETTING = 2
VECTORIZATION_MODES = ("vector_entry_point", "sync")


def main():
    # The serial sampler uses one core per run; give a parallel sampler more with cpu_per_run.
    affinity_code = encode_affinity(
        n_cpu_core=len(allowed_cpus()), cpu_per_run=1, hyperthread_offset=0, n_socket=1
    )
    level = VariantLevel(
        keys=[("env", "vectorization_mode")],
        values=[(mode,) for mode in VECTORIZATION_MODES],
        dir_names=list(VECTORIZATION_MODES),
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
