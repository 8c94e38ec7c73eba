"""Torch threads and OpenMP's wait policy: update rates of rlpyt's model sizes, idle and loaded.

The figures behind the thread decision (``rlpyt/utils/launching/threads.py``): for each model
(the CartPole MLP, a Pendulum-size 256x256 critic, a 1024x1024 MLP, the Nature CNN training on 32
Atari frames and serving 8), gradient steps (forward, backward, Adam) or forwards per second on
1 thread and on every CPU, with OpenMP's idle threads spinning (the default) or sleeping
(``OMP_WAIT_POLICY=PASSIVE``, what importing rlpyt sets), on an idle machine and beside one
CPU-bound competing process (a Python busy loop the benchmark starts and stops, not pinned).

Each setting runs in a fresh process (OpenMP reads the policy when torch loads); settings are
interleaved over ``--repeats`` rounds and the medians printed, with each row's ratio to the one
thread idle figure.

Usage: ``python benchmarks/torch_threads.py [--repeats 3] [--seconds 1.5]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CASES = ("mlp64_b64", "mlp256_b256", "mlp1024_b256", "nature_b32", "nature_forward_b8")

CHILD = r"""
import json, sys, time, torch
from torch import nn
threads, seconds = int(sys.argv[1]), float(sys.argv[2])
torch.set_num_threads(threads)

def mlp(n_in, hidden, n_out):
    layers, d = [], n_in
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU()]
        d = h
    return nn.Sequential(*layers, nn.Linear(d, n_out))

def nature():
    return nn.Sequential(
        nn.Conv2d(4, 32, 8, 4), nn.ReLU(), nn.Conv2d(32, 64, 4, 2), nn.ReLU(),
        nn.Conv2d(64, 64, 3, 1), nn.ReLU(), nn.Flatten(), nn.Linear(64 * 9 * 6, 512), nn.ReLU(),
        nn.Linear(512, 6))

cases = {
    "mlp64_b64": (mlp(4, [64, 64], 2), (64, 4), True),
    "mlp256_b256": (mlp(20, [256, 256], 1), (256, 20), True),
    "mlp1024_b256": (mlp(20, [1024, 1024], 1), (256, 20), True),
    "nature_b32": (nature(), (32, 4, 104, 80), True),
    "nature_forward_b8": (nature(), (8, 4, 104, 80), False),
}
rates = {}
for name, (model, shape, train) in cases.items():
    optimizer, x = torch.optim.Adam(model.parameters()), torch.randn(shape)
    def step():
        if train:
            optimizer.zero_grad()
            model(x).pow(2).mean().backward()
            optimizer.step()
        else:
            with torch.no_grad():
                model(x)
    for _ in range(3):
        step()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        step()
        n += 1
    rates[name] = n / (time.perf_counter() - t0)
print(json.dumps(rates))
"""


def measure(threads: int, policy: str, seconds: float) -> dict[str, float]:
    """Rates of every case in a fresh process with ``threads`` and the wait ``policy``."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy == "sleep":
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(threads), str(seconds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def busy_loop() -> subprocess.Popen:
    """One CPU-bound competing process, not pinned; already spinning when this returns."""
    process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    time.sleep(0.5)
    return process


def python_loop_seconds() -> float:
    """Seconds of a 10M-iteration pure Python loop (the host's speed of the day)."""
    t0 = time.perf_counter()
    for _ in range(10_000_000):
        pass
    return time.perf_counter() - t0


def run(repeats: int, seconds: float) -> dict[tuple, list[dict[str, float]]]:
    """Every (load, policy, threads) setting, interleaved over ``repeats`` rounds."""
    n_cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    settings = [
        (load, policy, threads)
        for load in ("idle", "loaded")
        for policy in ("spin", "sleep")
        for threads in sorted({1, n_cpus or 1})
    ]
    results: dict[tuple, list[dict[str, float]]] = {s: [] for s in settings}
    for _ in range(repeats):
        for setting in settings:
            load, policy, threads = setting
            competitor = busy_loop() if load == "loaded" else None
            try:
                results[setting].append(measure(threads, policy, seconds))
            finally:
                if competitor is not None:
                    competitor.kill()
                    competitor.wait()
    return results


def report(results: dict[tuple, list[dict[str, float]]]) -> None:
    """One row per setting: median rate per case and its ratio to one thread, idle, spinning."""
    medians = {
        setting: {case: statistics.median(r[case] for r in runs) for case in CASES}
        for setting, runs in results.items()
    }
    base = medians[("idle", "spin", 1)]
    print(f"{'load':<7}{'wait':<6}{'threads':>8}  " + "".join(f"{c:>22}" for c in CASES))
    for (load, policy, threads), rates in medians.items():
        cells = "".join(f"{rates[c]:>12,.0f} ({rates[c] / base[c]:.2f}x)" for c in CASES)
        print(f"{load:<7}{policy:<6}{threads:>8}  {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.5, help="per case and setting")
    args = parser.parse_args()
    print(
        f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, 10M-iteration "
        f"Python loop {python_loop_seconds():.2f} s; medians of {args.repeats}; "
        "updates/s (forwards/s for nature_forward_b8), ratio to 1 thread idle spinning"
    )
    report(run(args.repeats, args.seconds))


if __name__ == "__main__":
    main()
