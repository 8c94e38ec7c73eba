"""The sweep demo: PPO on CartPole-v1, 2 learning rates x 2 seeds, one run per CPU, then a plot.

Run from the repository root (``make demo`` does)::

    python experiments/scripts/classic/pg/launch/launch_cartpole_ppo_demo.py [--n_steps N]

``run_experiments`` starts ``../train/cartpole_ppo.py`` (config "0" of
``rlpyt.experiments.configs.classic.pg.cartpole_ppo``) once per learning rate and run_ID, as
many at a time as there are CPUs; each run's console output (its per-iteration tables) goes to
its ``console.log``, and the terminal shows one line per run as it starts, progresses and ends.
Then ``rlpyt.plot.plot_runs`` draws ReturnAverage against
Diagnostics/CumSteps, one curve per learning rate (mean +- std over the seeds), into the
experiment folder, and the script prints where the logs and the PNG are and how to open them
in viskit.
"""

import argparse
import os
import sys

from rlpyt.plot import plot_runs
from rlpyt.utils.launching.affinity import encode_affinity
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "cartpole_ppo.py"))
CONFIG_KEY = "0"
EXPERIMENT_TITLE = "cartpole_ppo_demo"
RUNS_PER_SETTING = 2  # run_ID 0 and 1 of every setting: two seeds each.
LEARNING_RATES = (3e-4, 1e-3)
N_STEPS = 100_000  # About 25 s per run on one core of a 2-core machine.
LOG_INTERVAL_STEPS = 4096  # 25 points per curve.


def make_sweep(n_steps, log_interval_steps):
    """Variants and log dirs: one setting per learning rate, each with the step budget."""
    learning_rates = VariantLevel(
        keys=[("algo", "learning_rate")],
        values=[(lr,) for lr in LEARNING_RATES],
        dir_names=[f"lr_{lr:g}" for lr in LEARNING_RATES],
    )
    variants, log_dirs = make_variants(learning_rates)
    for variant in variants:  # The same budget for all: not a split key, no folder level.
        variant["runner"] = dict(n_steps=n_steps, log_interval_steps=log_interval_steps)
    return variants, log_dirs


def run_demo(n_steps=N_STEPS, log_interval_steps=LOG_INTERVAL_STEPS, root_log_dir=None):
    """Run the sweep, plot it, and return ``(exp_dir, png_path)``."""
    # One run per allowed CPU; hyperthread_offset=0 counts every logical CPU as a core.
    affinity_code = encode_affinity(
        n_cpu_core=len(allowed_cpus()), cpu_per_run=1, hyperthread_offset=0, n_socket=1
    )
    variants, log_dirs = make_sweep(n_steps, log_interval_steps)
    summary = run_experiments(
        script=SCRIPT,
        affinity_code=affinity_code,
        experiment_title=EXPERIMENT_TITLE,
        runs_per_setting=RUNS_PER_SETTING,
        variants=variants,
        log_dirs=log_dirs,
        common_args=(CONFIG_KEY,),
        root_log_dir=root_log_dir,
    )
    if summary.failed:
        raise RuntimeError(f"{len(summary.failed)} runs failed; see {summary.exp_dir}.")
    png = plot_runs(
        [summary.exp_dir],
        x="Diagnostics/CumSteps",
        y="ReturnAverage",
        group="algo.learning_rate",
        out=os.path.join(summary.exp_dir, "return_vs_steps.png"),
        title=f"PPO on CartPole-v1: mean ± std over {RUNS_PER_SETTING} seeds",
    )
    return summary.exp_dir, png


def where_text(exp_dir, png):
    """What the demo made and the commands that open it."""
    return f"""
Logs (one folder per learning rate, run_0 and run_1 inside; each run's console output,
its per-iteration tables, is in its console.log):
    {exp_dir}
Learning curves (ReturnAverage vs Diagnostics/CumSteps, mean ± std over seeds):
    {png}
Open the sweep in viskit (git clone https://github.com/vitchyr/viskit):
    python viskit/frontend.py {exp_dir}
    then pick y = ReturnAverage, x = Diagnostics/CumSteps, split series by algo.learning_rate.
Replot, e.g. another column:
    python -m rlpyt.plot {exp_dir} --y entropyAverage --group algo.learning_rate
TensorBoard: these runs wrote no event files (the train script would need
    logger_context(..., use_summary_writer=True)); with them: tensorboard --logdir {exp_dir}
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n_steps", type=int, default=N_STEPS, help="environment steps per run")
    parser.add_argument("--log_interval_steps", type=int, default=LOG_INTERVAL_STEPS)
    parser.add_argument("--root_log_dir", default=None, help="default: ./data")
    args = parser.parse_args(argv)
    exp_dir, png = run_demo(args.n_steps, args.log_interval_steps, args.root_log_dir)
    print(where_text(exp_dir, png))
    return 0


if __name__ == "__main__":
    sys.exit(main())
