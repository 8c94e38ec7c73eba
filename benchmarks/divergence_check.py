"""What the runners' divergence guard costs per iteration (CartPole PPO and DQN, real configs).

Not a test and not a comparison with a peer: it times ``check_divergence`` (the guarded OptInfo
values plus the parameter check) against the iteration it follows, in one process, on the
configs the CLI uses (``classic.pg.cartpole_ppo`` and ``classic.dqn.cartpole_dqn``).

    python benchmarks/divergence_check.py [--iterations 20] [--device cpu|cuda]

Prints, per algorithm, the mean iteration time (sampling + optimization), the mean time of one
check, and the check's share of the iteration.
"""

from __future__ import annotations

import argparse
import time

import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.experiments.configs.classic.dqn.cartpole_dqn import configs as dqn_configs
from rlpyt.experiments.configs.classic.pg.cartpole_ppo import configs as ppo_configs
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger

CASES = {
    "PPO": (ppo_configs["0"], PPO, ClassicFfAgent),
    "DQN": (dqn_configs["dqn"], DQN, ClassicDqnAgent),
}


def build(name: str, cuda_idx: int | None) -> MinibatchRl:
    config, AlgoCls, AgentCls = CASES[name]  # noqa: N806
    sampler_kwargs = {k: v for k, v in config["sampler"].items() if not k.startswith("eval_")}
    sampler = SerialSampler(EnvCls=gym_make, env_kwargs=config["env"], **sampler_kwargs)
    algo_kwargs = dict(config["algo"])
    if name == "DQN":
        algo_kwargs["min_steps_learn"] = 0  # time the iterations that learn
    algo = AlgoCls(**algo_kwargs, optim_kwargs=config["optim"])
    agent = AgentCls(model_kwargs=config["model"], **config["agent"])
    return MinibatchRl(
        algo, agent, sampler, n_steps=256 * 4000, seed=0, affinity=dict(cuda_idx=cuda_idx)
    )


def measure(name: str, iterations: int, cuda_idx: int | None) -> tuple[float, float]:
    """Mean seconds of one iteration and of one check after it."""
    runner = build(name, cuda_idx)
    runner.startup()
    iteration_time = check_time = 0.0
    try:
        for itr in range(iterations + 2):  # the first two warm up
            t0 = time.perf_counter()
            _, opt_info = runner.sample_and_optimize(itr)
            t1 = time.perf_counter()
            runner.check_divergence(itr, opt_info)
            t2 = time.perf_counter()
            if itr >= 2:
                iteration_time += t1 - t0
                check_time += t2 - t1
    finally:
        runner.shutdown()
    return iteration_time / iterations, check_time / iterations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = parser.parse_args()
    cuda_idx = 0 if args.device == "cuda" else None
    torch.set_num_threads(1)
    logger.disable()
    print(f"device {args.device}, torch threads {torch.get_num_threads()}")
    for name in CASES:
        iteration, check = measure(name, args.iterations, cuda_idx)
        print(
            f"{name}: iteration {iteration * 1e3:.1f} ms, check {check * 1e6:.0f} us "
            f"({100 * check / iteration:.2f}% of the iteration)"
        )


if __name__ == "__main__":
    main()
