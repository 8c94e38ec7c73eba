"""Example 5: DQN on an Atari game with the GPU sampler (parallel env workers, batched actions).

Runs as written::

    python examples/example_5.py [--game pong] [--run_ID 0] [--cuda_idx 0] [--n_parallel 2]
        [--n_steps 50e6]

Worker processes (``--n_parallel``) only step their share of the 32 envs; this process runs
one forward pass per time step for all of them, on the GPU given by ``--cuda_idx`` or on the
CPU without one (often the faster choice on CPU too: one batched forward instead of one per
worker). More envs per batch make that forward pass cheaper per step, and a larger DQN minibatch
makes training's forward and backward passes more efficient; both can change what learning
rate and schedule work best. The wait-reset collector lets an env whose episode ended wait for
the next batch to reset. Evaluation: 10 envs, at most 10k steps or 5 episodes, every 1000 steps.
Logs to ``data/local/<date>/<time>/example_5/run_<ID>/`` under the current directory.
"""

import argparse

from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.parallel.gpu.collectors import GpuWaitResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.utils.logging.context import logger_context


def build_and_train(game="pong", run_ID=0, cuda_idx=None, n_parallel=2, n_steps=50e6):
    config = dict(
        env=dict(game=game),
        algo=dict(batch_size=128),
        sampler=dict(batch_T=2, batch_B=32),  # 32 envs: a bigger batch for each forward pass.
    )
    sampler = GpuSampler(
        EnvCls=AtariEnv,
        TrajInfoCls=AtariTrajInfo,
        env_kwargs=config["env"],
        CollectorCls=GpuWaitResetCollector,
        eval_env_kwargs=config["env"],
        max_decorrelation_steps=0,
        eval_n_envs=10,
        eval_max_steps=int(10e3),
        eval_max_trajectories=5,
        **config["sampler"],
    )
    algo = DQN(**config["algo"])  # Otherwise rlpyt's defaults.
    agent = AtariDqnAgent()
    runner = MinibatchRlEval(
        algo=algo,
        agent=agent,
        sampler=sampler,
        n_steps=n_steps,
        log_interval_steps=1e3,
        affinity=dict(cuda_idx=cuda_idx, workers_cpus=list(range(n_parallel))),
    )
    with logger_context("example_5", run_ID, "dqn_" + game, config):
        runner.train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--game", help="Atari game (snake_case ALE name)", default="pong")
    parser.add_argument("--run_ID", help="run identifier (log folder)", type=int, default=0)
    parser.add_argument("--cuda_idx", help="GPU to use (none: CPU)", type=int, default=None)
    parser.add_argument("--n_parallel", help="number of sampler workers", type=int, default=2)
    parser.add_argument("--n_steps", help="env steps to train", type=float, default=50e6)
    args = parser.parse_args()
    build_and_train(
        game=args.game,
        run_ID=args.run_ID,
        cuda_idx=args.cuda_idx,
        n_parallel=args.n_parallel,
        n_steps=args.n_steps,
    )
