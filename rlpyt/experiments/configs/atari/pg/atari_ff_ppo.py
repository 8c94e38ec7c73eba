"""Configs for PPO with the feed-forward Atari agent (``AtariFfAgent``, ``AtariFfModel``).

Read by ``experiments/scripts/atari/pg/train/atari_ff_ppo.py`` (sub-dicts splatted into the
constructors as in :mod:`rlpyt.experiments.configs.atari.pg.atari_ff_a2c`).

Keys:
    "0": rlpyt's Atari PPO: lr 1e-3 decayed linearly, GAE lambda 0.98, 64 steps x 32 envs per
        batch (PPO's default 4 minibatches x 4 epochs, ratio clip 0.1), 50M steps.
"""

from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.99,
        learning_rate=1e-3,
        value_loss_coeff=1.0,
        entropy_loss_coeff=0.01,
        clip_grad_norm=1.0,
        gae_lambda=0.98,
        linear_lr_schedule=True,
    ),
    env=dict(game="pong"),
    model=dict(),
    optim=dict(),
    runner=dict(n_steps=50e6),
    sampler=dict(batch_T=64, batch_B=32, max_decorrelation_steps=1000),
)
configs["0"] = config
