"""Configs for PPO on gymnasium's natively vectorized CartPole-v1 (``ClassicFfAgent``).

Read by ``experiments/scripts/classic/pg/train/cartpole_ppo_vec.py`` (sub-dicts splatted into the
constructors; ``env`` goes to ``rlpyt.envs.gym_vector.make_vec``, the sampler's ``EnvCls``, which
builds one vector env per sampler or worker; ``model`` is ``ClassicFfModel``'s
``model_kwargs``). The backend is the one keyword ``vectorization_mode``:
``"vector_entry_point"`` (gymnasium's numpy CartPoleVectorEnv, millions of steps/s, resets
ended envs on its next call), ``"sync"`` or ``"async"`` (per-env CartPoles, the same samples as
the per-env ``cartpole_ppo`` config on the same seeds).

Keys:
    "0": 64 steps x 256 envs per batch (16,384 env steps), 8 minibatches x 10 epochs, ratio
        clip 0.2, lr 1e-3 decayed linearly, discount 0.99, GAE lambda 0.95, normalized
        advantages, 64-64 tanh MLPs, 1M env steps.
"""

from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.99,
        learning_rate=1e-3,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.0,
        clip_grad_norm=0.5,
        gae_lambda=0.95,
        minibatches=8,
        epochs=10,
        ratio_clip=0.2,
        linear_lr_schedule=True,
        normalize_advantage=True,
    ),
    env=dict(id="CartPole-v1", vectorization_mode="vector_entry_point"),
    model=dict(hidden_sizes=[64, 64]),
    optim=dict(),
    runner=dict(n_steps=1_000_000, log_interval_steps=65_536),
    sampler=dict(batch_T=64, batch_B=256, max_decorrelation_steps=0),
)
configs["0"] = config
