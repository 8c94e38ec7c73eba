"""Fake train script that starts a grandchild and sleeps until stopped.

With ``stubborn`` in its variant it ignores SIGINT and SIGTERM (and so does its grandchild,
which inherits the ignored signals), so only SIGKILL ends them. Writes ``run_<ID>/pids.json``.
"""

import json
import os
import signal
import subprocess
import sys
import time

from rlpyt.utils.launching.variant import load_variant, update_config


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    config = update_config({"stubborn": False}, load_variant(log_dir))
    if config["stubborn"]:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    run_dir = os.path.join(log_dir, f"run_{run_ID}")
    os.makedirs(run_dir, exist_ok=True)
    partial = os.path.join(run_dir, "pids.json.partial")
    with open(partial, "w", encoding="utf-8") as f:
        json.dump(dict(child=os.getpid(), grandchild=grandchild.pid), f)
    os.replace(partial, os.path.join(run_dir, "pids.json"))
    time.sleep(300)


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
