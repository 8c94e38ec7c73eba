"""Sampler overlap: where a GPU-style sampler's time goes, and how much stepping hides inference.

CPU proxy of the GPU samplers' A2C-on-Pong setting: ``--workers`` workers x ``--envs-per-worker``
``AtariEnv("pong")`` envs, ``batch_T`` 5, an agent with a near-zero-cost model (uniform
probabilities, as ``sampler_throughput.py`` part a) served in the master, optionally made to
take ``--forward-ms`` longer per forward (a sleep: a stand-in for waiting on a GPU). Lines:

- ``N AtariEnv at once``: ``--workers`` processes each stepping one AtariEnv at the same time
  (what the cores deliver to bare env stepping; the peer of every ratio);
- ``GpuSampler``: one round trip per time step between every worker and the master;
- ``AlternatingSampler``: ``alternating=True``, the same workers (one per core), the agent
  serving the two env groups in turn.

For each sampler the master's sampling time splits into waiting for observations (semaphore
acquires), the agent's forwards, and the rest (buffer writes, resets); the workers' into env
steps and the rest (waiting for actions, bookkeeping). Every repeat runs all lines in turn
(interleaved), and the table shows medians; the ratios are against the ``at once`` line.

Runs the code of whatever commit is checked out the same way (it uses only the samplers'
public classes and the action servers' ``_acquire_all``, both present since the alternating
samplers exist). Numbers on a 2-core machine shared with other work are a proxy only.

``--model atari`` serves A2C's ``AtariFfAgent`` instead (``--cuda-idx 0`` puts it on a GPU);
``--default-layout`` lays the workers out as a train script's ``make_affinity(n_gpu=1, ...)``
does on this machine (one worker per core; two per core for AlternatingSampler), so the
samplers apply their default for a GPU run (one core left to the master).

Usage: python benchmarks/sampler_overlap.py --seconds 2 --repeats 3 [--forward-ms 1]
On a 16-core GPU machine: ... --workers 16 --envs-per-worker 4 --model atari --cuda-idx 0
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time

import numpy as np
import torch

from rlpyt.agents.pg.atari import AtariFfAgent
from rlpyt.envs.atari.atari_env import AtariEnv
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.utils.launching.affinity import make_affinity
from rlpyt.utils.launching.cpus import allowed_cpus

try:  # run as a script (benchmarks/ on sys.path) or as a module
    from sampler_throughput import UniformAgent
except ImportError:  # pragma: no cover
    from benchmarks.sampler_throughput import UniformAgent

GAME = "pong"


class TimedAtariEnv(AtariEnv):
    """AtariEnv that adds its step seconds to ``clock[index]`` (index: seed - base seed 0)."""

    def __init__(self, clock=None, **kwargs):
        super().__init__(**kwargs)
        self.clock = clock
        self.index = 0

    def seed(self, seed=None):
        super().seed(seed)
        self.index = int(seed or 0)

    def step(self, action):
        start = time.perf_counter()
        result = super().step(action)
        if self.clock is not None:
            self.clock[self.index] += time.perf_counter() - start
        return result


class TimedAgent(UniformAgent):
    """UniformAgent that counts its forward seconds, each ``forward_seconds`` longer.

    The extra time is a sleep: the master waits for a GPU that does the work, leaving its core
    to the workers (a GPU forward that spins on synchronisation costs a core too).
    """

    def __init__(self, forward_seconds: float = 0.0):
        super().__init__()
        self.forward_seconds = forward_seconds
        self.seconds = 0.0

    def step(self, observation, prev_action, prev_reward):
        start = time.perf_counter()
        result = super().step(observation, prev_action, prev_reward)
        if self.forward_seconds:
            time.sleep(self.forward_seconds)
        self.seconds += time.perf_counter() - start
        return result


class TimedAtariAgent(AtariFfAgent):
    """A2C's AtariFfAgent (its real model) that counts its forward seconds."""

    seconds = 0.0

    def step(self, observation, prev_action, prev_reward):
        start = time.perf_counter()
        result = super().step(observation, prev_action, prev_reward)
        self.seconds += time.perf_counter() - start
        return result


def timed(SamplerCls):  # noqa: N803
    """``SamplerCls`` whose master adds the seconds spent acquiring observations to ``waited``."""

    class Timed(SamplerCls):
        waited = 0.0

        def _acquire_all(self, semaphores):
            start = time.perf_counter()
            try:
                super()._acquire_all(semaphores)
            finally:
                self.waited += time.perf_counter() - start

    Timed.__name__ = SamplerCls.__name__
    return Timed


def n_workers(SamplerCls, args) -> int:  # noqa: N803
    """Workers of the layout: ``--workers``, or the default layout's (before any master core)."""
    if not args.default_layout:
        return args.workers
    return len(allowed_cpus()) * (2 if SamplerCls is AlternatingSampler else 1)


def sampler_line(SamplerCls, args) -> dict:  # noqa: N803
    """Env steps/s and the master's and workers' time split of one sampler run."""
    n_envs = n_workers(SamplerCls, args) * args.envs_per_worker
    clock = multiprocessing.get_context("fork").RawArray("d", n_envs)
    alternating = SamplerCls is AlternatingSampler
    sampler = timed(SamplerCls)(
        EnvCls=TimedAtariEnv,
        env_kwargs=dict(game=GAME, clock=clock),
        batch_T=args.batch_T,
        batch_B=n_envs,
        max_decorrelation_steps=0,
        start_method="fork",
    )
    agent = TimedAtariAgent() if args.model == "atari" else TimedAgent(args.forward_ms / 1000)
    affinity = dict(
        cuda_idx=args.cuda_idx, alternating=alternating, workers_cpus=list(range(args.workers))
    )
    if args.default_layout:  # a train script's layout for this machine with one GPU
        n_cpu = len(allowed_cpus())
        code = dict(n_cpu_core=n_cpu, n_gpu=1, hyperthread_offset=0, n_socket=1)
        affinity = dict(make_affinity(**code, alternating=alternating), cuda_idx=args.cuda_idx)
    sampler.initialize(agent, affinity=affinity, seed=0)
    try:
        if args.cuda_idx is not None:
            agent.to_device(args.cuda_idx)
        agent.sample_mode(0)
        end = time.perf_counter() + 0.3
        while time.perf_counter() < end:  # warm-up
            sampler.obtain_samples(0)
        sampler.waited, agent.seconds = 0.0, 0.0
        clock[:] = [0.0] * n_envs
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            sampler.obtain_samples(0)
            n += args.batch_T * n_envs
        wall = time.perf_counter() - start
    finally:
        sampler.shutdown()
    env_seconds = float(np.sum(clock)) / sampler.n_worker
    return dict(
        rate=n / wall,
        wait=sampler.waited / wall,
        forward=agent.seconds / wall,
        env=env_seconds / wall,
    )


def one_env_rate(seconds: float) -> float:
    """One AtariEnv stepped with random actions in this process; steps/s."""
    torch.set_num_threads(1)
    env = AtariEnv(GAME)
    env.reset()
    actions = np.random.default_rng(0).integers(0, 6, 4096)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _obs, _reward, _done, env_info = env.step(actions[n % 4096])
        n += 1
        if env_info.traj_done:
            env.reset()
    return n / (time.perf_counter() - start)


def at_once_line(args) -> dict:
    """``--workers`` processes stepping one AtariEnv each at the same time."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.workers) as pool:
        rate = sum(pool.map(one_env_rate, [args.seconds] * args.workers))
    return dict(rate=rate, wait=float("nan"), forward=float("nan"), env=1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--envs-per-worker", type=int, default=4)
    parser.add_argument("--batch_T", type=int, default=5)
    parser.add_argument("--forward-ms", type=float, default=0.0)
    parser.add_argument("--model", choices=["uniform", "atari"], default="uniform")
    parser.add_argument("--cuda-idx", type=int, default=None)
    parser.add_argument(
        "--default-layout",
        action="store_true",
        help="workers from make_affinity(n_cpu_core=<allowed CPUs>, n_gpu=1, ...) (needs a "
        "GPU), not --workers; the batch then has that many workers x --envs-per-worker envs",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    lines = {
        f"{args.workers} AtariEnv at once": lambda: at_once_line(args),
        "GpuSampler": lambda: sampler_line(GpuSampler, args),
        "AlternatingSampler": lambda: sampler_line(AlternatingSampler, args),
    }
    runs: dict[str, list[dict]] = {name: [] for name in lines}
    for _ in range(args.repeats):
        for name, run in lines.items():
            runs[name].append(run())
    peer = statistics.median(r["rate"] for r in runs[f"{args.workers} AtariEnv at once"])
    print(
        f"{args.workers} workers x {args.envs_per_worker} Pong envs, batch_T {args.batch_T}, "
        f"model {args.model}, extra forward {args.forward_ms} ms, cuda_idx {args.cuda_idx}, "
        f"{'default' if args.default_layout else 'explicit'} worker layout, "
        f"medians of {args.repeats} x {args.seconds} s"
    )
    header = "line", "steps/s", "/ at once", "master wait", "forward", "master other", "env step"
    print("{:<22} {:>9} {:>9} {:>12} {:>8} {:>13} {:>9}".format(*header))
    for name, results in runs.items():
        med = {k: statistics.median(r[k] for r in results) for k in results[0]}
        other = 1 - med["wait"] - med["forward"]
        print(
            f"{name:<22} {med['rate']:>9,.0f} {med['rate'] / peer:>9.2f} {med['wait']:>12.2f} "
            f"{med['forward']:>8.2f} {other:>13.2f} {med['env']:>9.2f}"
        )
    print(
        "(master columns: fractions of the master's wall time; env step: fraction of each "
        "worker's wall time spent in env.step)"
    )


if __name__ == "__main__":
    main()
