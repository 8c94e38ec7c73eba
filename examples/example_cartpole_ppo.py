"""PPO on CartPole-v1 with the serial sampler, in one process: the smallest complete run.

Runs as written: ``python examples/example_cartpole_ppo.py [--run_ID 0] [--n_steps 100000]``.
Logs to ``data/local/<date>/<time>/example_cartpole_ppo/run_<ID>/`` under the current
directory.
"""

import argparse

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context

# RL-zoo's CartPole PPO settings, in rlpyt's terms.
CONFIG = dict(
    env=dict(id="CartPole-v1"),
    sampler=dict(batch_T=32, batch_B=8, max_decorrelation_steps=0),
    algo=dict(
        discount=0.98,
        gae_lambda=0.8,
        learning_rate=1e-3,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.0,
        clip_grad_norm=0.5,
        minibatches=1,
        epochs=20,
        ratio_clip=0.2,
        normalize_advantage=True,
    ),
    model=dict(hidden_sizes=[64, 64]),
    runner=dict(n_steps=100_000, log_interval_steps=10_240),
)


def build_and_train(run_ID=0, n_steps=None, seed=None, log_dir="example_cartpole_ppo"):
    config = {k: dict(v) for k, v in CONFIG.items()}
    if n_steps is not None:
        config["runner"]["n_steps"] = n_steps
    sampler = SerialSampler(EnvCls=gym_make, env_kwargs=config["env"], **config["sampler"])
    algo = PPO(**config["algo"])
    agent = ClassicFfAgent(model_kwargs=config["model"])
    runner = MinibatchRl(algo=algo, agent=agent, sampler=sampler, seed=seed, **config["runner"])
    with logger_context(log_dir, run_ID, "ppo_cartpole", config, snapshot_mode="last"):
        runner.train()
    return runner


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--run_ID", type=int, default=0)
    parser.add_argument("--n_steps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    build_and_train(run_ID=args.run_ID, n_steps=args.n_steps, seed=args.seed)
