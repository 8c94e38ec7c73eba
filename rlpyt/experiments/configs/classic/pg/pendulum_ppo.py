"""Configs for PPO on Pendulum-v1 with the Gaussian MLP agent (``MujocoFfAgent``).

Read by ``experiments/scripts/classic/pg/train/pendulum_ppo.py`` (sub-dicts splatted into the
constructors; ``env`` goes to ``rlpyt.envs.gym.make``, ``model`` is ``MujocoFfModel``'s
``model_kwargs``). Pendulum needs no MuJoCo: the Gaussian agent only needs a 1-D, symmetric
action space.

Keys:
    "0": RL-zoo's Pendulum PPO without gSDE (not implemented here): 1024 steps x 4 envs per
        batch, 64 minibatches (of 64) x 10 epochs, ratio clip 0.2, lr 1e-3 decayed linearly,
        discount 0.9, GAE lambda 0.95, 64-64 tanh MLPs, 100k steps.
"""

from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.9,
        learning_rate=1e-3,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.0,
        clip_grad_norm=0.5,
        gae_lambda=0.95,
        minibatches=64,
        epochs=10,
        ratio_clip=0.2,
        linear_lr_schedule=True,
        normalize_advantage=True,
    ),
    env=dict(id="Pendulum-v1"),
    model=dict(hidden_sizes=[64, 64]),
    optim=dict(),
    runner=dict(n_steps=100_000, log_interval_steps=8192),
    sampler=dict(batch_T=1024, batch_B=4, max_decorrelation_steps=0),
)
configs["0"] = config
