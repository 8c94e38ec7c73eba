"""Fake train script: follows the CLI contract, records what it received, exits with a code.

Called as ``python train_record.py <slot_affinity_code> <log_dir> <run_ID> <config_key>``.
"""

import json
import os
import sys

from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config

DEFAULT_CONFIG = {"algo": {"learning_rate": 1e-3}, "exit_code": 0}


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(DEFAULT_CONFIG, load_variant(log_dir))
    run_dir = os.path.join(log_dir, f"run_{run_ID}")
    os.makedirs(run_dir, exist_ok=True)
    pinned = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    record = dict(
        argv=sys.argv[1:],
        config_key=config_key,
        config=config,
        master_cpus=list(affinity["master_cpus"]),
        pinned=pinned,
    )
    with open(os.path.join(run_dir, "result.json"), "w", encoding="utf-8") as f:
        json.dump(record, f)
    sys.exit(config["exit_code"])


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
