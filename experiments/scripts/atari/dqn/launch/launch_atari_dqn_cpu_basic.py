"""Launch DQN (CPU sampler) on Atari games.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/atari_dqn_cpu_basic/``)::

    python experiments/scripts/atari/dqn/launch/launch_atari_dqn_cpu_basic.py

Each run is ``../train/atari_dqn_cpu.py`` with config key "cpu"; one setting per game, 2 runs
(run_IDs, i.e. seeds) each. Two CPUs (sampler workers) per run, as many runs at a time as pairs
of CPUs fit. Edit the constants to change the sweep.
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "atari_dqn_cpu.py"))
CONFIG_KEY = "cpu"
EXPERIMENT_TITLE = "atari_dqn_cpu_basic"
RUNS_PER_SETTING = 2
GAMES = ("pong", "seaquest", "qbert", "chopper_command")


def main():
    # Two CPUs per run (two sampler workers), as many runs at a time as pairs of CPUs fit.
    n_cpu_core = len(allowed_cpus())
    affinity_code = encode_affinity(
        n_cpu_core=n_cpu_core, cpu_per_run=min(2, n_cpu_core), hyperthread_offset=0, n_socket=1
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
