"""A2C on Pong: env steps/s of each parallel sampler against the cores' own ceiling, one run.

Box: benchmarks (never part of the test suite). Measures, in one process tree:

- ceiling: ``--workers`` processes, each stepping one ``AtariEnv("pong")`` with random actions
  and nothing else, all at once: "one AtariEnv per core stepped alone, all cores at once", the
  most any sampler on these cores can deliver.
- ours: rlpyt's A2C (``AtariFfAgent``, ``batch_T`` 5, ``--envs-per-worker`` envs per worker)
  with the optimizer on ``--device`` and each of ``--samplers`` (``cpu``: CpuSampler, workers
  run their own agent copy; ``gpu``: GpuSampler, workers only step envs and the master runs one
  batched forward on the device; ``alternating``: two worker groups, inference of one overlaps
  env stepping of the other), ``--workers`` workers. After ``--warmup`` seconds of training,
  whole iterations (sample, then optimize) for ``--seconds``; env steps/s, milliseconds per
  iteration and where they go (``obtain_samples`` vs ``optimize_agent``; for the gpu and
  alternating samplers also the master's part of sampling: waiting for the workers'
  observations, and the agent's batched forward with its copies to and from the device),
  median of ``--repeats`` fresh runs, and the ratio to the ceiling.

Usage::

    python benchmarks/a2c_speed.py [--device cpu|cuda] [--workers N] [--envs-per-worker 4]
        [--samplers cpu gpu alternating] [--seconds 10] [--warmup 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import time
from typing import Any

import numpy as np
import torch
from _learning import cuda_idx_of, cuda_sync, print_rates, print_ratio, short

from rlpyt.agents.pg.atari import AtariFfAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.envs.atari.atari_env import AtariEnv
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.utils.logging import logger

GAME, BATCH_T = "pong", 5
SAMPLERS = {
    "cpu": (CpuSampler, CpuResetCollector, False),
    "gpu": (GpuSampler, GpuResetCollector, False),
    "alternating": (AlternatingSampler, GpuResetCollector, True),
}


def _step_alone(seconds: float, seed: int, out: mp.Queue) -> None:
    env = AtariEnv(game=GAME)
    env.seed(seed)
    env.reset()
    rng = np.random.default_rng(seed)
    n_actions = env.action_space.n
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if env.step(int(rng.integers(n_actions))).done:
            env.reset()
        steps += 1
    out.put(steps / (time.perf_counter() - start))


def ceiling_rate(workers: int, seconds: float) -> float:
    """Env steps/s of ``workers`` processes each stepping one AtariEnv alone, all at once."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_step_alone, args=(seconds, i, out)) for i in range(workers)]
    for p in procs:
        p.start()
    rates = [out.get(timeout=seconds + 120) for _ in procs]
    for p in procs:
        p.join()
    return sum(rates)


def build_runner(sampler: str, args: argparse.Namespace) -> MinibatchRl:
    SamplerCls, CollectorCls, alternating = SAMPLERS[sampler]  # noqa: N806
    workers = list(range(args.workers))
    affinity = dict(
        cuda_idx=cuda_idx_of(args.device),
        workers_cpus=workers,
        master_cpus=workers,
        set_affinity=False,
        alternating=alternating,
    )
    return MinibatchRl(
        algo=A2C(),
        agent=AtariFfAgent(),
        sampler=SamplerCls(
            EnvCls=AtariEnv,
            env_kwargs=dict(game=GAME),
            batch_T=BATCH_T,
            batch_B=args.workers * args.envs_per_worker,
            CollectorCls=CollectorCls,
            max_decorrelation_steps=0,
        ),
        n_steps=1e12,
        log_interval_steps=1e12,
        affinity=affinity,
    )


class Stopwatch:
    """Seconds spent in wrapped calls, counted only while ``on``."""

    def __init__(self) -> None:
        self.on, self.seconds = False, 0.0

    def wrap(self, fn):  # noqa: ANN001, ANN201 (any callable)
        def timed(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            if not self.on:
                return fn(*args, **kwargs)
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0

        return timed


def ours(sampler: str, args: argparse.Namespace) -> dict[str, float]:
    """A fresh A2C run with ``sampler``: steps/s and ms per iteration (total, sample, optim).

    For the action-server samplers (gpu, alternating) also the master's waits for the workers'
    observations and its agent forwards (``step`` per time step, ``value`` per batch); the rest
    of sampling is the server's own work (resets, copies into the samples, releases).
    """
    runner = build_runner(sampler, args)
    runner.startup()
    agent, algo, sync = runner.agent, runner.algo, cuda_sync(args.device)
    served = sampler != "cpu"
    wait, forward = Stopwatch(), Stopwatch()
    if served:  # instance attributes: this run's server and agent only
        server: Any = runner.sampler
        server._acquire_all = wait.wrap(server._acquire_all)
        agent.step = forward.wrap(agent.step)
        agent.value = forward.wrap(agent.value)  # the bootstrap value, once per batch
    sample_s = optim_s = 0.0
    itr, n, start, timing = 0, 0, time.perf_counter(), False
    try:
        while True:
            t0 = time.perf_counter()
            agent.sample_mode(itr)
            samples, _ = runner.sampler.obtain_samples(itr)
            t1 = time.perf_counter()
            agent.train_mode(itr)
            algo.optimize_agent(itr, samples)
            sync()
            t2 = time.perf_counter()
            itr += 1
            if not timing and t2 - start >= args.warmup:
                timing, n, start, sample_s, optim_s = True, 0, time.perf_counter(), 0.0, 0.0
                wait.on = forward.on = True
                continue
            if timing:
                n, sample_s, optim_s = n + 1, sample_s + t1 - t0, optim_s + t2 - t1
                if t2 - start >= args.seconds:
                    break
    finally:
        runner.shutdown()
    elapsed = t2 - start
    steps = n * BATCH_T * runner.sampler.batch_spec.B
    result = {
        "steps/s": steps / elapsed,
        "ms/itr": 1e3 * elapsed / n,
        "sample ms": 1e3 * sample_s / n,
        "optim ms": 1e3 * optim_s / n,
    }
    if served:
        result["sample: waiting for workers ms"] = 1e3 * wait.seconds / n
        result["sample: agent forwards ms"] = 1e3 * forward.seconds / n
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--envs-per-worker", type=int, default=4)
    parser.add_argument("--samplers", nargs="+", default=list(SAMPLERS), choices=list(SAMPLERS))
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    logger.disable()
    print(
        f"torch {torch.__version__}, device {args.device}, {args.workers} workers x "
        f"{args.envs_per_worker} Pong envs, batch_T {BATCH_T}, load {os.getloadavg()[0]:.2f}"
    )
    rates: dict[str, list[float]] = {"ceiling: 1 AtariEnv per worker core, all at once": []}
    parts: dict[str, list[float]] = {}
    for repeat in range(args.repeats):
        rates["ceiling: 1 AtariEnv per worker core, all at once"].append(
            ceiling_rate(args.workers, args.seconds)
        )
        for sampler in args.samplers:
            result = ours(sampler, args)
            rates.setdefault(f"A2C {sampler} sampler, env steps/s", []).append(result["steps/s"])
            for key, value in result.items():
                if key != "steps/s":
                    parts.setdefault(f"A2C {sampler} sampler, {key}", []).append(value)
        print(f"  repeat {repeat}: " + short(rates), flush=True)
    print_rates("A2C on Pong, env steps/s", rates)
    print_rates("A2C on Pong, milliseconds per iteration (where they go)", parts)
    ceiling = statistics.median(rates["ceiling: 1 AtariEnv per worker core, all at once"])
    for sampler in args.samplers:
        median = statistics.median(rates[f"A2C {sampler} sampler, env steps/s"])
        print_ratio(f"A2C {sampler} sampler / ceiling (target >= 0.3)", median, ceiling)


if __name__ == "__main__":
    main()
