"""Asynchronous and synchronous multi-process training against the one-process runner.

Box: benchmarks (never part of the test suite). Two parts, run on the same machine in one go:

(a) DQN on CartPole-v1, wall seconds (evaluation excluded) and env steps to the first
    evaluation averaging ``--solved`` (475): ``AsyncRlEval`` with ``AsyncSerialSampler`` and
    with ``AsyncCpuSampler`` against ``MinibatchRlEval`` (``SerialSampler``) at the same
    settings and the same ``replay_ratio`` (``--config``: ``cartpole_dqn`` "dqn", RL-Zoo's
    settings, by default). The async runners keep the ratio from both sides with
    ``max_sampler_lead=1`` (``--max-sampler-lead -1``: rlpyt's unthrottled sampler, whose
    data reuse on CartPole falls to a few percent of the setting). Median over ``--seeds``;
    prints sync/async ratios.
(b) PPO on CartPole-v1 (``configs.classic.pg.cartpole_ppo``), ``SyncRl`` with 2 ranks against
    1 rank (weak scaling: each rank samples the config's batch): env steps per second and
    wall seconds to a training-window average return of ``--solved``. Skipped with a message
    when ``rlpyt.runners.sync_rl`` is missing.

Usage::

    python benchmarks/async_speed.py                # the real run (minutes)
    python benchmarks/async_speed.py --smoke        # seconds: tiny budgets, a low threshold
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import math
import statistics
import time

from _learning import ClockedEvalRl, fmt, median_reached, ratio

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.gym import make as gym_make
from rlpyt.experiments.configs.classic.dqn.cartpole_dqn import configs as zoo_configs
from rlpyt.experiments.configs.classic.dqn.cartpole_dqn_async import configs as dqn_configs
from rlpyt.runners.async_rl import AsyncRlEval
from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.launching.affinity import make_affinity
from rlpyt.utils.logging import logger

# -- (a) DQN: AsyncRl against MinibatchRl ------------------------------------------------------


def dqn_config(args: argparse.Namespace) -> dict:
    configs = zoo_configs if args.config == "dqn" else dqn_configs
    config = copy.deepcopy(configs[args.config])
    config["runner"]["n_steps"] = args.max_steps
    if args.smoke:
        config["runner"]["log_interval_steps"] = 1024
        config["algo"]["min_steps_learn"] = 256
        config["sampler"]["eval_max_steps"] = 500
        config["algo"]["eps_steps"] = 1024
    return config


def dqn_parts(config: dict, SamplerCls: type) -> dict:  # noqa: N803
    sampler = SamplerCls(
        EnvCls=gym_make,
        env_kwargs=config["env"],
        eval_env_kwargs=config["eval_env"],
        **config["sampler"],
    )
    return dict(
        algo=DQN(optim_kwargs=config["optim"], **config["algo"]),
        agent=ClassicDqnAgent(model_kwargs=config["model"], **config["agent"]),
        sampler=sampler,
        **config["runner"],
    )


def async_solve(args: argparse.Namespace, SamplerCls: type, seed: int) -> tuple:  # noqa: N803
    """``(steps, seconds, CumReplayRatio)`` at the first solving evaluation (None, None, r)."""
    affinity = make_affinity(n_cpu_core=2, n_gpu=0, async_sample=True, set_affinity=False)
    affinity.optimizer[0]["torch_threads"] = args.optimizer_threads
    config = dqn_config(args)
    config["algo"]["updates_per_sync"] = args.updates_per_sync
    runner = AsyncRlEval(
        seed=seed,
        affinity=affinity,
        max_sampler_lead=args.max_sampler_lead,
        **dqn_parts(config, SamplerCls),
    )
    start, row = time.perf_counter(), {}
    for row in runner.iter_train():
        if row["Diagnostics/CumSteps"] > 0 and row["ReturnAverage"] >= args.solved:
            seconds = time.perf_counter() - start - row["Diagnostics/CumEvalTime"]
            return row["Diagnostics/CumSteps"], seconds, row["Diagnostics/CumReplayRatio"]
    return None, None, row.get("Diagnostics/CumReplayRatio", math.nan)


def sync_solve(args: argparse.Namespace, seed: int) -> tuple:
    """The same for ``MinibatchRlEval`` (evaluation time excluded by its clock)."""
    runner = ClockedEvalRl(
        solved=args.solved, seed=seed, **dqn_parts(dqn_config(args), SerialSampler)
    )
    for row in runner.iter_train():
        if runner.clock.reached is not None:
            steps, seconds = runner.clock.reached
            return steps, seconds, row["Diagnostics/CumReplayRatio"]
    return None, None, math.nan


def part_a(args: argparse.Namespace) -> None:
    contenders = {
        "MinibatchRlEval + SerialSampler": lambda seed: sync_solve(args, seed),
        "AsyncRlEval + AsyncSerialSampler": lambda seed: async_solve(
            args, AsyncSerialSampler, seed
        ),
        "AsyncRlEval + AsyncCpuSampler": lambda seed: async_solve(args, AsyncCpuSampler, seed),
    }
    results: dict[str, list[tuple]] = {name: [] for name in contenders}
    for seed in range(args.seeds):
        for name, solve in contenders.items():
            results[name].append(solve(seed))
            steps, seconds, replay_ratio = results[name][-1]
            print(
                f"seed {seed} {name:34s} steps {fmt(steps)}  seconds {fmt(seconds, '.1f')}  "
                f"CumReplayRatio {replay_ratio:.2f}",
                flush=True,
            )
    print(f"\n== (a) DQN CartPole-v1 to {args.solved:g}: median over {args.seeds} seeds ==")
    medians = {}
    for name, rows in results.items():
        medians[name] = median_reached([r[1] for r in rows])
        steps = median_reached([r[0] for r in rows])
        per_k = [1000 * r[1] / r[0] for r in rows if r[0]]
        per_k_text = f"{statistics.median(per_k):.2f}" if per_k else "n/a"
        print(
            f"{name:34s} seconds {fmt(medians[name], '.1f'):>12s}  steps {fmt(steps):>10s}  "
            f"seconds per 1k steps {per_k_text}"
        )
    sync = medians["MinibatchRlEval + SerialSampler"]
    for name in list(contenders)[1:]:
        print(f"wall-time speed-up of {name} over MinibatchRlEval: {ratio(sync, medians[name])}x")


# -- (b) PPO: SyncRl 2 ranks against 1 ---------------------------------------------------------


def part_b(args: argparse.Namespace) -> None:
    if importlib.util.find_spec("rlpyt.runners.sync_rl") is None:
        print("\n(b) skipped: rlpyt.runners.sync_rl (SyncRl) is not in this tree.")
        return
    from rlpyt.agents.pg.classic import ClassicFfAgent
    from rlpyt.algos.pg.ppo import PPO
    from rlpyt.experiments.configs.classic.pg.cartpole_ppo import configs as ppo_configs
    from rlpyt.runners.sync_rl import SyncRl

    print(f"\n== (b) PPO CartPole-v1, SyncRl: training-window average to {args.solved:g} ==")
    rates: dict[int, list[float]] = {1: [], 2: []}
    times: dict[int, list[float | None]] = {1: [], 2: []}
    for seed in range(args.seeds):
        for world_size in (1, 2):
            config = copy.deepcopy(ppo_configs["0"])
            if args.smoke:
                config["runner"].update(n_steps=4096 * world_size, log_interval_steps=1024)
            runner = SyncRl(
                algo=PPO(optim_kwargs=config["optim"], **config["algo"]),
                agent=ClassicFfAgent(model_kwargs=config["model"], **config["agent"]),
                sampler=SerialSampler(
                    EnvCls=gym_make, env_kwargs=config["env"], **config["sampler"]
                ),
                seed=seed,
                affinity=[dict(master_torch_threads=1, set_affinity=False)] * world_size,
                **config["runner"],
            )
            start, reached, marks = time.perf_counter(), None, []
            for row in runner.iter_train():
                marks.append((row["Diagnostics/CumSteps"], time.perf_counter()))
                if reached is None and row.get("ReturnAverage", 0) >= args.solved:
                    reached = time.perf_counter() - start  # start-up of the ranks included
            # Steps per second between the first and the last row: without the start-up.
            (steps0, t0), (steps1, t1) = marks[0], marks[-1]
            rates[world_size].append((steps1 - steps0) / (t1 - t0) if t1 > t0 else math.nan)
            times[world_size].append(reached)
            print(
                f"seed {seed} ranks {world_size}: {rates[world_size][-1]:,.0f} steps/s, "
                f"seconds to {args.solved:g}: {fmt(reached, '.1f')}",
                flush=True,
            )
    for world_size in (1, 2):
        print(
            f"ranks {world_size}: steps/s {statistics.median(rates[world_size]):,.0f}, seconds "
            f"to solve {fmt(median_reached(times[world_size]), '.1f')}"
        )
    two, one = statistics.median(rates[2]), statistics.median(rates[1])
    print(f"steps/s, 2 ranks / 1 rank: {ratio(two, one)}")
    print(
        "seconds to solve, 1 rank / 2 ranks: "
        f"{ratio(median_reached(times[1]), median_reached(times[2]))}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--config",
        choices=("dqn", "async"),
        default="dqn",
        help="DQN settings for every runner: cartpole_dqn 'dqn' (RL-Zoo, 8 envs, replay ratio "
        "32) or cartpole_dqn_async 'async' (1 env, replay ratio 8)",
    )
    parser.add_argument(
        "--max-sampler-lead",
        type=int,
        default=1,
        help="AsyncRl's max_sampler_lead (-1: None, rlpyt's unthrottled sampler)",
    )
    parser.add_argument(
        "--updates-per-sync",
        type=int,
        default=16,
        help="AsyncRl: gradient steps per optimize_agent call, between weight publications",
    )
    parser.add_argument(
        "--optimizer-threads",
        type=int,
        default=2,
        help="AsyncRl optimizer's torch threads (the synchronous runner uses torch's default)",
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=150_000, help="DQN env-step budget")
    parser.add_argument("--solved", type=float, default=475.0)
    parser.add_argument("--smoke", action="store_true", help="tiny budgets, threshold 20")
    parser.add_argument("--part", choices=("a", "b", "all"), default="all")
    args = parser.parse_args()
    if args.max_sampler_lead < 0:
        args.max_sampler_lead = None
    if args.smoke:
        args.seeds, args.max_steps, args.solved = 1, 4096, 20.0
    logger.disable()
    if args.part in ("a", "all"):
        part_a(args)
    if args.part in ("b", "all"):
        part_b(args)


if __name__ == "__main__":
    main()
