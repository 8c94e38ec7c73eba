"""Launch asynchronous DQN (AsyncRlEval) on CartPole-v1: a few seeds, one after the other.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/cartpole_dqn_async/``)::

    python experiments/scripts/classic/dqn/launch/launch_cartpole_dqn_async.py

Each run is ``../train/cartpole_dqn_async.py`` with config key "async" and takes every allowed
CPU: the optimizer the first, the sampler the rest (an asynchronous affinity without a GPU).
"""

import os

from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "cartpole_dqn_async.py"))
CONFIG_KEY = "async"
EXPERIMENT_TITLE = "cartpole_dqn_async"
RUNS_PER_SETTING = 3


def main():
    affinity_code = encode_affinity(
        n_cpu_core=max(2, len(allowed_cpus())), async_sample=True, hyperthread_offset=0, n_socket=1
    )
    level = VariantLevel(keys=[("env", "id")], values=[("CartPole-v1",)], dir_names=["async"])
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
