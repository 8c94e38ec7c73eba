"""Example 1: DQN on an Atari game with the serial sampler: one process, one env.

Runs as written::

    python examples/example_1.py [--game pong] [--run_ID 0] [--cuda_idx 0] [--n_steps 50e6]

Sampling, training and evaluation all happen in this process, which makes it the easiest
setup to step through in a debugger; ``--cuda_idx`` puts the agent (acting and learning) on
that GPU. DQN runs with rlpyt's defaults except that learning starts after 1000 steps. A row
of statistics every 1000 steps, after an evaluation on 10 envs (at most 10k steps or 5
episodes). Logs to ``data/local/<date>/<time>/example_1/run_<ID>/`` under the current
directory; ``snapshot_mode="last"`` keeps the latest agent and optimizer state in
``params.pkl`` there. Every key of ``config`` becomes a column viskit can split or filter by.
"""

import argparse

from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context


def build_and_train(game="pong", run_ID=0, cuda_idx=None, n_steps=50e6):
    sampler = SerialSampler(
        EnvCls=AtariEnv,
        TrajInfoCls=AtariTrajInfo,  # Adds GameScore (unclipped) to the trajectory statistics.
        env_kwargs=dict(game=game),
        eval_env_kwargs=dict(game=game),
        batch_T=4,  # 4 steps of 1 env per iteration.
        batch_B=1,
        max_decorrelation_steps=0,
        eval_n_envs=10,
        eval_max_steps=int(10e3),
        eval_max_trajectories=5,
    )
    algo = DQN(min_steps_learn=1e3)
    agent = AtariDqnAgent()
    runner = MinibatchRlEval(
        algo=algo,
        agent=agent,
        sampler=sampler,
        n_steps=n_steps,
        log_interval_steps=1e3,
        affinity=dict(cuda_idx=cuda_idx),
    )
    config = dict(game=game)
    with logger_context("example_1", run_ID, "dqn_" + game, config, snapshot_mode="last"):
        runner.train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--game", help="Atari game (snake_case ALE name)", default="pong")
    parser.add_argument("--run_ID", help="run identifier (log folder)", type=int, default=0)
    parser.add_argument("--cuda_idx", help="GPU to use (none: CPU)", type=int, default=None)
    parser.add_argument("--n_steps", help="env steps to train", type=float, default=50e6)
    args = parser.parse_args()
    build_and_train(
        game=args.game, run_ID=args.run_ID, cuda_idx=args.cuda_idx, n_steps=args.n_steps
    )
