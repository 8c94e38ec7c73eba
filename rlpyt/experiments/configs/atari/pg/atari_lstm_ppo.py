"""Configs for PPO with the recurrent Atari agent (``AtariLstmAgent``, ``AtariLstmModel``).

Read by ``experiments/scripts/atari/pg/train/atari_lstm_ppo.py`` (sub-dicts splatted into the
constructors as in :mod:`rlpyt.experiments.configs.atari.pg.atari_ff_a2c`).

Keys:
    "0": the feed-forward PPO config ("0" of ``atari_ff_ppo``) on one frame per observation.
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
    env=dict(game="pong", num_img_obs=1),
    model=dict(),
    optim=dict(),
    runner=dict(n_steps=50e6),
    sampler=dict(batch_T=64, batch_B=32, max_decorrelation_steps=1000),
)
configs["0"] = config
