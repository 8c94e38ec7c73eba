"""Small DQN configs on Atari for checking a setup in minutes, not for results.

Read by ``experiments/scripts/atari/dqn/train/atari_dqn_cpu_debug.py`` (``CpuSampler`` with
the wait-reset collector, ``DQN``, ``AtariDqnAgent``, ``MinibatchRlEval``); the sections go
where ``atari_dqn``'s do.

Keys:
    "dqn": ``atari_dqn["dqn"]`` cut down: 8 steps x 2 envs per batch, minibatches of 32,
        learning from 5k steps, epsilon down by 10k, replay of 10k transitions, target every
        100 updates, 20k steps, a row every 5k, evaluation on 2 envs (at most 4k steps, 2
        trajectories).
    "double_pri_duel": "dqn" with double DQN, prioritized replay and dueling heads.
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.99,
        batch_size=32,
        learning_rate=1e-4,
        target_update_interval=100,
        clip_grad_norm=10.0,
        min_steps_learn=5000,
        eps_steps=10_000,
        double_dqn=False,
        prioritized_replay=False,
        n_step_return=1,
        replay_size=10_000,
    ),
    env=dict(game="pong", episodic_lives=True),
    eval_env=dict(game="pong", episodic_lives=False, horizon=int(27e3)),
    model=dict(dueling=False),
    optim=dict(),
    runner=dict(n_steps=20_000, log_interval_steps=5000),
    sampler=dict(
        batch_T=8,
        batch_B=2,
        max_decorrelation_steps=20,
        eval_n_envs=2,
        eval_max_steps=4000,
        eval_max_trajectories=2,
    ),
)
configs["dqn"] = config

config = copy.deepcopy(configs["dqn"])
config["algo"]["double_dqn"] = True
config["algo"]["prioritized_replay"] = True
config["model"]["dueling"] = True
configs["double_pri_duel"] = config
