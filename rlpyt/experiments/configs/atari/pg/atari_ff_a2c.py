"""Configs for A2C with the feed-forward Atari agent (``AtariFfAgent``, ``AtariFfModel``).

Read by ``experiments/scripts/atari/pg/train/atari_ff_a2c.py``: each entry of ``configs`` is
a nested dict whose sub-dicts are splatted into the constructors (``algo`` into ``A2C``,
``sampler`` into the sampler, ``runner`` into ``MinibatchRl``, ``env`` into ``AtariEnv``,
``model`` as ``model_kwargs``, ``optim`` as ``optim_kwargs``, ``agent`` into the agent).
A launch script overrides single keys per setting with a variant (``update_config``).

Keys:
    "0": rlpyt's Atari A2C: lr 3e-4, 5 steps x 32 envs per batch, 50M steps.
    "low_lr": "0" with lr 4e-4 (rlpyt's key and value, although above "0"'s lr).
    "2gpu": "0" with 16 envs per sampler (half the batch, for two-GPU runs).
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.99,
        learning_rate=3e-4,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.01,
        clip_grad_norm=1.0,
    ),
    env=dict(game="pong"),
    model=dict(),
    optim=dict(),
    runner=dict(n_steps=50e6),
    sampler=dict(batch_T=5, batch_B=32, max_decorrelation_steps=1000),
)
configs["0"] = config

config = copy.deepcopy(configs["0"])
config["algo"]["learning_rate"] = 4e-4
configs["low_lr"] = config

config = copy.deepcopy(configs["0"])
config["sampler"]["batch_B"] = 16
configs["2gpu"] = config
