"""Example 2: A2C on Atari (AtariEnv on ale-py), in rlpyt's style.

``python examples/example_2.py --game pong --n_steps 50e6 [--sampler serial] [--cuda_idx 0]``.
Uses the configuration of rlpyt's Atari A2C experiments (batch_T=5, batch_B=16 here).
"""

import argparse

from rlpyt.agents.pg.atari import AtariFfAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context


def build_and_train(game="pong", run_ID=0, cuda_idx=None, n_steps=50e6, batch_B=16):
    sampler = SerialSampler(
        EnvCls=AtariEnv,
        TrajInfoCls=AtariTrajInfo,
        env_kwargs=dict(game=game),
        batch_T=5,
        batch_B=batch_B,
        max_decorrelation_steps=400,
    )
    algo = A2C(learning_rate=7e-4, clip_grad_norm=0.5)
    agent = AtariFfAgent()
    runner = MinibatchRl(
        algo=algo,
        agent=agent,
        sampler=sampler,
        n_steps=n_steps,
        log_interval_steps=1e5,
        affinity=dict(cuda_idx=cuda_idx),
    )
    config = dict(game=game, batch_B=batch_B)
    with logger_context("example_2", run_ID, "a2c_" + game, config):
        runner.train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="pong")
    parser.add_argument("--run_ID", type=int, default=0)
    parser.add_argument("--cuda_idx", type=int, default=None)
    parser.add_argument("--n_steps", type=float, default=50e6)
    parser.add_argument("--batch_B", type=int, default=16)
    args = parser.parse_args()
    build_and_train(args.game, args.run_ID, args.cuda_idx, args.n_steps, args.batch_B)
