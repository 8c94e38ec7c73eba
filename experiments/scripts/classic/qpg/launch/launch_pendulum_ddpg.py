"""Launch DDPG on Pendulum-v1: a few seeds across this machine's CPUs.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/pendulum_ddpg/``)::

    python experiments/scripts/classic/qpg/launch/launch_pendulum_ddpg.py

Each run is ``../train/pendulum_ddpg.py`` with config key "ddpg" of
``rlpyt.experiments.configs.classic.qpg.pendulum_ddpg``; RL-Zoo's settings, 30k steps; one setting,
4 runs (run_IDs, i.e. seeds), one run per allowed CPU at a time (one update of 256 per env step).
The evaluation's ReturnAverage in each run's progress.csv should rise from about -1200 towards
-200. Edit the constants to change the sweep.
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "pendulum_ddpg.py"))
CONFIG_KEY = "ddpg"
EXPERIMENT_TITLE = "pendulum_ddpg"
RUNS_PER_SETTING = 4


def main():
    # The serial sampler uses one core per run: one run per allowed CPU at a time.
    affinity_code = encode_affinity(
        n_cpu_core=len(allowed_cpus()), cpu_per_run=1, hyperthread_offset=0, n_socket=1
    )
    variants, log_dirs = [dict()], ["ddpg"]  # One setting: the config as it is.
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
