"""Configs for A2C with the Gaussian MuJoCo agent (``MujocoFfAgent``, ``MujocoFfModel``).

Read by ``experiments/scripts/mujoco/pg/train/mujoco_ff_a2c.py`` (sub-dicts splatted into the
constructors; ``env`` goes to ``rlpyt.envs.gym.make``). Needs the mujoco extra
(``pip install "rlpyt[mujoco]"``).

Keys:
    "a2c_1M": rlpyt's MuJoCo A2C: lr 3e-5, no entropy bonus, normalized advantages, no
        effective gradient clipping (1e6), 100 steps x 8 envs per batch, 1M steps on
        ``Hopper-v5`` (rlpyt used ``Hopper-v3``, which needs the retired mujoco-py).
"""

from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.99,
        learning_rate=3e-5,
        clip_grad_norm=1e6,
        entropy_loss_coeff=0.0,
        value_loss_coeff=0.5,
        normalize_advantage=True,
    ),
    env=dict(id="Hopper-v5"),
    model=dict(),
    optim=dict(),
    runner=dict(n_steps=1e6, log_interval_steps=2e4),
    sampler=dict(batch_T=100, batch_B=8, max_decorrelation_steps=1000),
)
configs["a2c_1M"] = config
