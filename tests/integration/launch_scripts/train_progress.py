"""Fake train script that prints a table per iteration and writes progress.csv rows.

Called as ``python train_progress.py <slot_affinity_code> <log_dir> <run_ID> <config_key>``;
the variant's ``exit_code`` ends it (non-zero after printing to stderr).
"""

import os
import sys
import time

from rlpyt.utils.launching.variant import load_variant, update_config

DEFAULT_CONFIG = {"algo": {"learning_rate": 1e-3}, "exit_code": 0, "n_itr": 3}


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    config = update_config(DEFAULT_CONFIG, load_variant(log_dir))
    run_dir = os.path.join(log_dir, f"run_{run_ID}")
    os.makedirs(run_dir, exist_ok=True)
    with open(os.path.join(run_dir, "progress.csv"), "w", encoding="utf-8") as f:
        f.write("Diagnostics/Iteration,Diagnostics/CumSteps,ReturnAverage\n")
        for itr in range(config["n_itr"]):
            ret = 10.0 * (itr + 1) + config["algo"]["learning_rate"]
            print(f"TABLE-ROW itr {itr} ReturnAverage {ret}", flush=True)
            f.write(f"{itr},{(itr + 1) * 512},{ret}\n")
            f.flush()
            time.sleep(0.3)
    if config["exit_code"]:
        print("TRACEBACK-LIKE failure text", file=sys.stderr, flush=True)
    sys.exit(config["exit_code"])


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
