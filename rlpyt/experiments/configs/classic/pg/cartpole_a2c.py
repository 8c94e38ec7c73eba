"""Configs for A2C on CartPole-v1 with the categorical MLP agent (``ClassicFfAgent``).

Read by ``experiments/scripts/classic/pg/train/cartpole_a2c.py`` (sub-dicts splatted into the
constructors; ``env`` goes to ``rlpyt.envs.gym.make``). The train script sets
``OptimCls=torch.optim.RMSprop`` (classes stay in scripts, as in rlpyt; ``optim`` holds its
keywords).

Keys:
    "0": RL-zoo's CartPole A2C: 5 steps x 8 envs per batch, RMSprop (alpha 0.99, eps 1e-5)
        at lr 7e-4, discount 0.99, no entropy bonus, value coefficient 0.5, gradient clip
        0.5, 300k steps (the zoo trains 500k; ``tests/learning`` reaches 475 within 300k).
"""

from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.99,
        learning_rate=7e-4,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.0,
        clip_grad_norm=0.5,
        gae_lambda=1.0,
        normalize_advantage=False,
    ),
    env=dict(id="CartPole-v1"),
    model=dict(hidden_sizes=[64, 64]),
    optim=dict(alpha=0.99, eps=1e-5),
    runner=dict(n_steps=300_000, log_interval_steps=10_000),
    sampler=dict(batch_T=5, batch_B=8, max_decorrelation_steps=0),
)
configs["0"] = config
