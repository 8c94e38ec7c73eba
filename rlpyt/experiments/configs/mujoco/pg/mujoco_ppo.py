"""Configs for PPO with the Gaussian MuJoCo agent (``MujocoFfAgent``, ``MujocoFfModel``).

Read by ``experiments/scripts/mujoco/pg/train/mujoco_ff_ppo.py`` (sub-dicts splatted into the
constructors; ``env`` goes to ``rlpyt.envs.gym.make``). Needs the mujoco extra
(``pip install "rlpyt[mujoco]"``). The environment is ``Hopper-v5`` (rlpyt used ``Hopper-v3``,
which needs the retired mujoco-py).

Keys:
    "ppo_1M_serial": the PPO paper's MuJoCo settings: 2048 steps x 1 env per batch, 32
        minibatches x 10 epochs, ratio clip 0.2, lr 3e-4 decayed linearly, GAE lambda 0.95,
        normalized advantages, 1M steps.
    "ppo_1M_cpu": the same with 256 steps x 8 envs per batch.
    "ppo_32ep_1mb": "ppo_1M_cpu" with 1 minibatch x 32 epochs. (In rlpyt this entry shared
        its dict with "ppo_1M_cpu", so "ppo_1M_cpu" silently got 1 x 32 too; here each key
        is its own copy.)
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.99,
        learning_rate=3e-4,
        clip_grad_norm=1e6,
        entropy_loss_coeff=0.0,
        gae_lambda=0.95,
        minibatches=32,
        epochs=10,
        ratio_clip=0.2,
        normalize_advantage=True,
        linear_lr_schedule=True,
    ),
    env=dict(id="Hopper-v5"),
    model=dict(),
    optim=dict(),
    runner=dict(n_steps=1e6, log_interval_steps=2048 * 10),
    sampler=dict(batch_T=2048, batch_B=1, max_decorrelation_steps=0),
)
configs["ppo_1M_serial"] = config

config = copy.deepcopy(configs["ppo_1M_serial"])
config["sampler"]["batch_B"] = 8
config["sampler"]["batch_T"] = 256
configs["ppo_1M_cpu"] = config

config = copy.deepcopy(configs["ppo_1M_cpu"])
config["algo"]["minibatches"] = 1
config["algo"]["epochs"] = 32
configs["ppo_32ep_1mb"] = config
