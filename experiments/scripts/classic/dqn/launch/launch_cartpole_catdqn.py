"""Launch CategoricalDQN on CartPole-v1: a few seeds across this machine's CPUs.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/cartpole_catdqn/``)::

    python experiments/scripts/classic/dqn/launch/launch_cartpole_catdqn.py

Each run is ``../train/cartpole_catdqn.py`` with config key "catdqn" of
``rlpyt.experiments.configs.classic.dqn.cartpole_dqn`` (RL-Zoo's tuned settings, 50k steps);
one setting, 4 runs (run_IDs, i.e. seeds), one run per allowed CPU at a time (about a minute
per run on one core). The evaluation's ReturnAverage in each run's progress.csv should pass 475,
CartPole's threshold, before the end. Edit the constants to change the sweep.
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "cartpole_catdqn.py"))
CONFIG_KEY = "catdqn"
EXPERIMENT_TITLE = "cartpole_catdqn"
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
        log_dirs=["catdqn"],
        common_args=(CONFIG_KEY,),
    )


if __name__ == "__main__":
    main()
