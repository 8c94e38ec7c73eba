"""Launch PPO (feed-forward agent) on envpool's Atari games.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/atari_ff_ppo_envpool/``)::

    python experiments/scripts/atari/pg/launch/launch_atari_ff_ppo_envpool.py

Each run is ``../train/atari_ff_ppo_envpool.py`` with config key "0";
one setting per game, 2 runs (run_IDs, i.e. seeds) each,
one run per CPU at a time. Edit the constants to change the sweep.
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "atari_ff_ppo_envpool.py"))
CONFIG_KEY = "0"
EXPERIMENT_TITLE = "atari_ff_ppo_envpool"
RUNS_PER_SETTING = 2
GAMES = ("Pong-v5", "Seaquest-v5")  # envpool task ids


def main():
    # The serial sampler uses one core per run; give a parallel sampler more with cpu_per_run.
    affinity_code = encode_affinity(
        n_cpu_core=len(allowed_cpus()), cpu_per_run=1, hyperthread_offset=0, n_socket=1
    )
    level = VariantLevel(
        keys=[("env", "task_id")],
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
