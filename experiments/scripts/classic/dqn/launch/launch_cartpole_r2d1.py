"""Launch R2D1 on CartPole-v1 without velocities: a few seeds across this machine's CPUs.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/cartpole_r2d1/``)::

    python experiments/scripts/classic/dqn/launch/launch_cartpole_r2d1.py

Each run is ``../train/cartpole_r2d1.py`` with config key "r2d1" of
``rlpyt.experiments.configs.classic.dqn.cartpole_r2d1`` (the learning test's settings, 100k
steps); one setting, 4 runs (run_IDs, i.e. seeds), one run per allowed CPU at a time (one to
two minutes per run on one core). The evaluation's ReturnAverage in each run's progress.csv
should pass 400 before the end in most runs (the learning test needs 2 of 3 seeds). Edit the
constants to change the sweep.
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "cartpole_r2d1.py"))
CONFIG_KEY = "r2d1"
EXPERIMENT_TITLE = "cartpole_r2d1"
RUNS_PER_SETTING = 4


def main():
    # The serial sampler uses one core per run: one run per allowed CPU at a time.
    affinity_code = encode_affinity(
        n_cpu_core=len(allowed_cpus()), cpu_per_run=1, hyperthread_offset=0, n_socket=1
    )
    run_experiments(
        script=SCRIPT,
        affinity_code=affinity_code,
        experiment_title=EXPERIMENT_TITLE,
        runs_per_setting=RUNS_PER_SETTING,
        variants=[dict()],  # One setting: the config as it is.
        log_dirs=["r2d1"],
        common_args=(CONFIG_KEY,),
    )


if __name__ == "__main__":
    main()
