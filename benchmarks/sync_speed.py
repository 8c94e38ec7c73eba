"""SyncRl speed: PPO on CartPole-v1 with 2 ranks against 1 rank (env steps/s, time to 475).

Box: benchmarks (never part of the test suite). Each run is a SyncRl run (one rank is the same
runner with a one-entry affinity list), PPO with RL-zoo's CartPole settings as the learning
test, trained until the trailing average return (the last 100 training trajectories of all
ranks) reaches ``--solved`` or ``--n_steps`` run out. Printed per setting and seed: env
steps/s over the run and the wall time and env steps to the threshold, then the 2-rank/1-rank
ratios of the medians. Wall time counts from ``train()``, so it includes starting the ranks
(a spawned process per rank: a few seconds; noticeable only in short runs).

``--scaling strong`` (default) keeps the global batch: 8 envs on 1 rank, 4 envs on each of 2
ranks, so both learn from the same number of samples per update. ``--scaling weak`` gives each
rank 8 envs (rlpyt's weak scaling: the global batch doubles with 2 ranks).

Run on an idle machine with at least 2 free cores::

    python benchmarks/sync_speed.py --seeds 3
    python benchmarks/sync_speed.py --n_steps 4096 --seeds 1   # smoke run (seconds)

``run_sync_ppo`` is importable (``benchmarks/async_speed.py`` may call it).
"""

from __future__ import annotations

import argparse
import copy
import math
import statistics
import time

import torch

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.experiments.configs.classic.pg.cartpole_ppo import configs
from rlpyt.runners.sync_rl import SyncRl
from rlpyt.samplers.serial.sampler import SerialSampler

ENVS = 8  # RL-zoo's CartPole PPO: 8 envs x 32 steps per batch


def run_sync_ppo(
    ranks: int, seed: int, n_steps: int, solved: float = 475.0, scaling: str = "strong"
) -> dict[str, float]:
    """Train PPO on CartPole-v1 with SyncRl over ``ranks`` CPU ranks until ``solved``.

    Args:
        ranks: Number of ranks (processes), one torch thread each.
        seed: Run seed (rank r uses ``seed + 100 * r``).
        n_steps: Env-step budget over all ranks.
        solved: Trailing average return that ends the run.
        scaling: "strong" (8 envs split over the ranks) or "weak" (8 envs per rank).

    Returns:
        ``steps_per_second`` (env steps over wall time, all ranks), ``seconds_to_solved``
        and ``steps_to_solved`` (inf if never reached), ``seconds`` and ``steps`` of the run.
    """
    batch_B = ENVS // ranks if scaling == "strong" else ENVS
    config = copy.deepcopy(configs["0"])  # RL-zoo's CartPole PPO, 8 envs x 32 steps
    config["sampler"]["batch_B"] = batch_B
    algo = PPO(optim_kwargs=config["optim"], **config["algo"])
    sampler = SerialSampler(EnvCls=gym_make, env_kwargs=config["env"], **config["sampler"])
    affinity = [dict(master_torch_threads=1, set_affinity=False)] * ranks
    runner = SyncRl(
        algo=algo,
        agent=ClassicFfAgent(model_kwargs=config["model"]),
        sampler=sampler,
        n_steps=n_steps,
        seed=seed,
        affinity=affinity,
        log_interval_steps=32 * ENVS * 2,
    )
    start = time.perf_counter()
    result = dict(seconds_to_solved=math.inf, steps_to_solved=math.inf, steps=0.0)
    for row in runner.iter_train():  # leaving the loop early stops every rank
        result["steps"] = row["Diagnostics/CumSteps"]
        if row.get("ReturnAverage", -math.inf) >= solved:
            result["seconds_to_solved"] = time.perf_counter() - start
            result["steps_to_solved"] = row["Diagnostics/CumSteps"]
            break
    result["seconds"] = time.perf_counter() - start
    result["steps_per_second"] = result["steps"] / result["seconds"]
    return result


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else math.nan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--n_steps", type=int, default=200_000)
    parser.add_argument("--solved", type=float, default=475.0)
    parser.add_argument("--scaling", choices=("strong", "weak"), default="strong")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"PPO CartPole-v1, SyncRl, {args.scaling} scaling, budget {args.n_steps} steps")
    medians = {}
    for ranks in (1, 2):
        runs = [
            run_sync_ppo(ranks, seed, args.n_steps, args.solved, args.scaling)
            for seed in range(args.seeds)
        ]
        for seed, run in enumerate(runs):
            print(
                f"ranks={ranks} seed={seed}: {run['steps_per_second']:,.0f} steps/s, "
                f"solved after {run['seconds_to_solved']:.1f} s / {run['steps_to_solved']:,} "
                f"steps (run: {run['seconds']:.1f} s, {run['steps']:,.0f} steps)"
            )
        medians[ranks] = {
            key: _median([run[key] for run in runs])
            for key in ("steps_per_second", "seconds_to_solved", "steps_to_solved")
        }
    one, two = medians[1], medians[2]
    speedup = two["steps_per_second"] / one["steps_per_second"]
    print(
        f"2 ranks / 1 rank (medians): steps/s x{speedup:.2f}, "
        f"time to {args.solved:g}: {two['seconds_to_solved']:.1f} s vs "
        f"{one['seconds_to_solved']:.1f} s, steps to it: {two['steps_to_solved']:,} vs "
        f"{one['steps_to_solved']:,}"
    )


if __name__ == "__main__":
    main()
