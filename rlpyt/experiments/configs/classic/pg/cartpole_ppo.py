"""Configs for PPO on CartPole-v1 with the categorical MLP agent (``ClassicFfAgent``).

Read by ``experiments/scripts/classic/pg/train/cartpole_ppo.py`` (sub-dicts splatted into the
constructors; ``env`` goes to ``rlpyt.envs.gym.make``, ``model`` is ``ClassicFfModel``'s
``model_kwargs``). The sweep demo (``experiments/README.md``) runs the "0" config.

Keys:
    "0": RL-zoo's tuned CartPole PPO (as ``examples/example_cartpole_ppo.py``): 32 steps x 8
        envs per batch, 1 minibatch x 20 epochs, ratio clip 0.2, lr 1e-3 decayed linearly,
        discount 0.98, GAE lambda 0.8, normalized advantages, 64-64 tanh MLPs, 100k steps.
"""

from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.98,
        learning_rate=1e-3,
        value_loss_coeff=0.5,
        entropy_loss_coeff=0.0,
        clip_grad_norm=0.5,
        gae_lambda=0.8,
        minibatches=1,
        epochs=20,
        ratio_clip=0.2,
        linear_lr_schedule=True,
        normalize_advantage=True,
    ),
    env=dict(id="CartPole-v1"),
    model=dict(hidden_sizes=[64, 64]),
    optim=dict(),
    runner=dict(n_steps=100_000, log_interval_steps=4096),
    sampler=dict(batch_T=32, batch_B=8, max_decorrelation_steps=0),
)
configs["0"] = config
