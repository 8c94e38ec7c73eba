"""Training speed on CartPole-v1: rlpyt (SerialSampler, 8 envs) vs Stable-Baselines3, same run.

Both frameworks train PPO and A2C with RL-zoo's CartPole hyperparameters, for several seeds,
interleaved (rlpyt seed s, SB3 seed s, ...). For every run it records each completed episode's
return with the env-step count and wall time at which it ended, and reports:

- env steps/s over the whole run (sampling + optimization, logging off),
- env steps and wall seconds until the mean return of the last 100 episodes first reaches 475,

as medians over seeds (a seed that never reaches 475 counts as infinitely late), with the
rlpyt/SB3 ratios. SB3 is a benchmark-only dependency: ``pip install stable-baselines3``.

Usage: ``python benchmarks/train_speed.py [--seeds 5] [--algos ppo a2c] [--threads 0]``
(``--threads 0`` keeps torch's default intra-op threads, as SB3 users get).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import deque

import torch
from _learning import run_as_peer, runner_affinity, set_peer_threads  # benchmarks/_learning.py

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger

N_ENVS = 8
TARGET = 475.0
WINDOW = 100
BUDGET = {"ppo": 100_000, "a2c": 300_000}
# SB3's vf_coef 0.5 weighs mean((R - V)^2); rlpyt's value_loss_coeff weighs
# mean(0.5 * (V - R)^2): the same value loss is value_loss_coeff = 2 * vf_coef = 1.0.
VALUE_LOSS_COEFF = 1.0


class EpisodeClock:
    """Collects (env steps, seconds, return) per finished episode; finds the 475 crossing."""

    def __init__(self):
        self.start = time.perf_counter()
        self.window: deque = deque(maxlen=WINDOW)
        self.reached: tuple[int, float] | None = None

    def episode(self, steps: int, episode_return: float) -> None:
        self.window.append(episode_return)
        mean = sum(self.window) / len(self.window)
        if self.reached is None and len(self.window) == WINDOW and mean >= TARGET:
            self.reached = (steps, time.perf_counter() - self.start)


# -- rlpyt ------------------------------------------------------------------------------------


class ClockedRl(MinibatchRl):
    """MinibatchRl that reports every finished trajectory to an EpisodeClock.

    The clock starts when start-up (env and model construction) is done, as SB3's starts
    after its model is built: both time ``learn``/the training loop only.
    """

    clock: EpisodeClock

    def startup(self) -> int:
        n_itr = super().startup()
        self.clock.start = time.perf_counter()
        return n_itr

    def store_diagnostics(self, itr, traj_infos, opt_info):
        steps = (itr + 1) * self.itr_batch_size
        for info in traj_infos:
            self.clock.episode(steps, info["Return"])
        super().store_diagnostics(itr, traj_infos, opt_info)


def rlpyt_run(algo_name: str, seed: int) -> tuple[float, EpisodeClock]:
    if algo_name == "ppo":
        batch_T = 32
        algo = PPO(
            discount=0.98,
            gae_lambda=0.8,
            learning_rate=1e-3,
            value_loss_coeff=VALUE_LOSS_COEFF,
            entropy_loss_coeff=0.0,
            OptimCls=torch.optim.Adam,
            optim_kwargs=dict(eps=1e-5),
            clip_grad_norm=0.5,
            minibatches=1,
            epochs=20,
            ratio_clip=0.2,
            linear_lr_schedule=True,
            normalize_advantage=True,
        )
    else:
        batch_T = 5
        algo = A2C(
            discount=0.99,
            learning_rate=7e-4,
            value_loss_coeff=VALUE_LOSS_COEFF,
            entropy_loss_coeff=0.0,
            OptimCls=torch.optim.RMSprop,
            optim_kwargs=dict(alpha=0.99, eps=1e-5),
            clip_grad_norm=0.5,
        )
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=batch_T,
        batch_B=N_ENVS,
        max_decorrelation_steps=0,
    )
    runner = ClockedRl(
        algo=algo,
        agent=ClassicFfAgent(),
        sampler=sampler,
        n_steps=BUDGET[algo_name],
        log_interval_steps=BUDGET[algo_name],
        seed=seed,
        affinity=runner_affinity(),
    )
    runner.clock = EpisodeClock()
    logger.disable()
    runner.train()
    elapsed = time.perf_counter() - runner.clock.start
    logger.enable()
    return runner.n_itr * runner.itr_batch_size / elapsed, runner.clock


# -- Stable-Baselines3 ------------------------------------------------------------------------


def sb3_run(algo_name: str, seed: int) -> tuple[float, EpisodeClock]:
    import stable_baselines3 as sb3
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env

    run_as_peer()  # SB3 as it runs alone
    clock = EpisodeClock()

    class Clocked(BaseCallback):
        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "episode" in info:
                    clock.episode(self.num_timesteps, info["episode"]["r"])
            return True

    env = make_vec_env("CartPole-v1", n_envs=N_ENVS, seed=seed)
    if algo_name == "ppo":

        def linear(start):
            return lambda progress: progress * start

        model = sb3.PPO(
            "MlpPolicy",
            env,
            n_steps=32,
            batch_size=256,
            gae_lambda=0.8,
            gamma=0.98,
            n_epochs=20,
            ent_coef=0.0,
            learning_rate=linear(1e-3),
            clip_range=linear(0.2),
            seed=seed,
            device="cpu",
        )
    else:
        model = sb3.A2C("MlpPolicy", env, ent_coef=0.0, seed=seed, device="cpu")
    clock.start = time.perf_counter()
    model.learn(total_timesteps=BUDGET[algo_name], callback=Clocked())
    elapsed = time.perf_counter() - clock.start
    return model.num_timesteps / elapsed, clock


# -- report -----------------------------------------------------------------------------------


def median_reached(values: list) -> float | None:
    """Median over all seeds, a seed that never reached the target counting as infinitely late.

    None when that median is itself "not reached" (half the seeds or more missed).
    """
    median = statistics.median(math.inf if v is None else v for v in values)
    return None if math.isinf(median) else median


def summarize(results: list[tuple[float, EpisodeClock]]) -> dict:
    reached = [clock.reached for _, clock in results]
    return {
        "steps_per_s": statistics.median(rate for rate, _ in results),
        "steps_to_475": median_reached([r[0] if r else None for r in reached]),
        "seconds_to_475": median_reached([r[1] if r else None for r in reached]),
        "reached": sum(r is not None for r in reached),
    }


def fmt(value: float | None, spec: str = ",.0f") -> str:
    return "not reached" if value is None else format(value, spec)


def ratio(a: float | None, b: float | None) -> str:
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--algos", nargs="+", default=["ppo", "a2c"], choices=["ppo", "a2c"])
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    args = parser.parse_args()
    if args.threads:
        set_peer_threads(args.threads)
    print(
        f"torch threads: {torch.get_num_threads()}; {args.seeds} seeds; target {TARGET} "
        f"(mean of last {WINDOW} episodes)"
    )
    for algo_name in args.algos:
        ours, theirs = [], []
        for seed in range(args.seeds):
            ours.append(rlpyt_run(algo_name, seed))
            theirs.append(sb3_run(algo_name, seed))
            print(
                f"  {algo_name} seed {seed}: rlpyt {ours[-1][0]:,.0f} steps/s, "
                f"reached {ours[-1][1].reached}; SB3 {theirs[-1][0]:,.0f} steps/s, "
                f"reached {theirs[-1][1].reached}",
                flush=True,
            )
        a, b = summarize(ours), summarize(theirs)
        print(f"{algo_name.upper()} (budget {BUDGET[algo_name]:,} steps, medians over seeds)")
        print(f"  {'':14s}{'steps/s':>12s}{'steps to 475':>15s}{'s to 475':>12s}{'reached':>9s}")
        for name, s in (("rlpyt", a), ("SB3", b)):
            print(
                f"  {name:14s}{s['steps_per_s']:>12,.0f}{fmt(s['steps_to_475']):>15s}"
                f"{fmt(s['seconds_to_475'], '.1f'):>12s}{s['reached']:>6d}/{args.seeds}"
            )
        print(
            f"  {'rlpyt / SB3':14s}{ratio(a['steps_per_s'], b['steps_per_s']):>12s}"
            f"{ratio(a['steps_to_475'], b['steps_to_475']):>15s}"
            f"{ratio(a['seconds_to_475'], b['seconds_to_475']):>12s}"
        )


if __name__ == "__main__":
    main()
