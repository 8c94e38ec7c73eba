"""Configs for A2C with the recurrent Atari agent (``AtariLstmAgent``, ``AtariLstmModel``).

Read by ``experiments/scripts/atari/pg/train/atari_lstm_a2c.py`` (sub-dicts splatted into the
constructors as in :mod:`rlpyt.experiments.configs.atari.pg.atari_ff_a2c`).

Keys:
    "0": one frame per observation (the LSTM carries the history), lr 7e-4, 20 steps x 32 envs.
    "4frame": four stacked frames, lr 1e-4, 5 steps x 16 envs.
    "like_ff": "4frame" with the feed-forward config's batch (5 x 32) and lr 7e-4.
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.99,
        learning_rate=7e-4,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.01,
        clip_grad_norm=1.0,
    ),
    env=dict(game="pong", num_img_obs=1),
    model=dict(),
    optim=dict(),
    runner=dict(n_steps=50e6),
    sampler=dict(batch_T=20, batch_B=32, max_decorrelation_steps=1000),
)
configs["0"] = config

config = copy.deepcopy(configs["0"])
config["env"]["num_img_obs"] = 4
config["sampler"]["batch_T"] = 5
config["sampler"]["batch_B"] = 16
config["algo"]["learning_rate"] = 1e-4
configs["4frame"] = config

config = copy.deepcopy(configs["4frame"])
config["algo"]["learning_rate"] = 7e-4
config["sampler"]["batch_B"] = 32
config["algo"]["clip_grad_norm"] = 1.0
configs["like_ff"] = config
