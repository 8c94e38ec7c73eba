"""Launcher process for the interrupt test: runs a two-run sweep of ``train_sleep.py``.

Called as ``python launch_sweep.py <root_log_dir> <train_script> <report.json>``; when
``run_experiments`` raises it writes how it ended and which child processes it still has.
"""

import json
import sys

import psutil

from rlpyt.utils.launching.exp_launcher import run_experiments
from rlpyt.utils.launching.variant import VariantLevel, make_variants


def main(root_log_dir, train_script, report_path):
    level = VariantLevel([("stubborn",)], [(False,), (True,)], ["polite", "stubborn"])
    variants, log_dirs = make_variants(level)
    try:
        run_experiments(
            train_script,
            "2cpu_0gpu_1cpr_0hto_0saf",  # Two slots, no pinning: runs on any machine.
            "interrupted_sweep",
            1,
            variants,
            log_dirs,
            common_args=("default",),
            root_log_dir=root_log_dir,
            stop_timeout=1.0,
        )
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "KeyboardInterrupt"
    except SystemExit as exit_:
        outcome = f"SystemExit({exit_.code})"
    children = [p.pid for p in psutil.Process().children(recursive=True)]
    with open(report_path, "w", encoding="utf-8") as f:
        json.dump(dict(outcome=outcome, children=children), f)


if __name__ == "__main__":
    main(*sys.argv[1:])
