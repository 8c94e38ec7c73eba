"""Example 2: SAC on a MuJoCo task with the serial sampler: one process, one env.

Runs as written (needs the mujoco extra: ``pip install "rlpyt[mujoco]"``)::

    python examples/example_2.py [--env_id Hopper-v5] [--run_ID 0] [--cuda_idx 0] [--n_steps 1e6]

rlpyt's ``--env_id Hopper-v3`` works too: the retired id maps to ``Hopper-v5`` with a warning.
SAC and its agent run with their defaults (the SAC paper's settings: one update of 256 per env
step, learning from 10k steps); the sampler steps one env one step per iteration. A row of
statistics every 10k steps, after an evaluation on 10 envs (at most 50 episodes or 51k steps in
all). Logs to ``data/local/<date>/<time>/example_2/run_<ID>/`` under the current directory;
``snapshot_mode="last"`` keeps the latest agent and optimizer state in ``params.pkl`` there.
``--cuda_idx`` puts the agent (acting and learning) on that GPU.
"""

import argparse

from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.algos.qpg.sac import SAC
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRlEval
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context


def build_and_train(env_id="Hopper-v5", run_ID=0, cuda_idx=None, n_steps=1e6):
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id=env_id),
        eval_env_kwargs=dict(id=env_id),
        batch_T=1,  # One step of one env per iteration.
        batch_B=1,
        max_decorrelation_steps=0,
        eval_n_envs=10,
        eval_max_steps=int(51e3),
        eval_max_trajectories=50,
    )
    algo = SAC()
    agent = SacAgent()
    runner = MinibatchRlEval(
        algo=algo,
        agent=agent,
        sampler=sampler,
        n_steps=n_steps,
        log_interval_steps=1e4,
        affinity=dict(cuda_idx=cuda_idx),
    )
    config = dict(env_id=env_id)
    with logger_context("example_2", run_ID, "sac_" + env_id, config, snapshot_mode="last"):
        runner.train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--env_id", help="gymnasium MuJoCo env id", default="Hopper-v5")
    parser.add_argument("--run_ID", help="run identifier (log folder)", type=int, default=0)
    parser.add_argument("--cuda_idx", help="GPU to use (none: CPU)", type=int, default=None)
    parser.add_argument("--n_steps", help="env steps to train", type=float, default=1e6)
    args = parser.parse_args()
    build_and_train(
        env_id=args.env_id, run_ID=args.run_ID, cuda_idx=args.cuda_idx, n_steps=args.n_steps
    )
