"""Config for DDPG on Pendulum-v1 with ``DdpgAgent`` (MLP mu and Q).

Read by ``experiments/scripts/classic/qpg/train/pendulum_ddpg.py`` and by the DDPG learning
test. Sub-dicts are splatted into the constructors (``DDPG``, ``DdpgAgent``, ``SerialSampler``,
``MinibatchRlEval``); ``env`` and ``eval_env`` go to ``rlpyt.envs.gym.make``. Pendulum needs
no MuJoCo; its actions lie in [-2, 2], and the agent's noise std is in units of that bound.

Keys:
    "ddpg": RL-Baselines3-Zoo's Pendulum-v1 DDPG (``hyperparams/ddpg.yml``) in rlpyt's terms,
        30k steps; evaluation every 1000 steps on 10 episodes.
    "ddpg_short": the command line's default (``rlpyt train ddpg``): "ddpg" with 256-256
        MLPs (a cheaper update than 400-300) and 15k steps, so that a short run learns;
        tests/learning/test_cli_defaults.py states its budget.

How each Zoo / Stable-Baselines3 setting maps (Zoo -> here):
    gamma 0.98, buffer_size 200k -> ``discount``, ``replay_size``; learning_rate 1e-3 (actor
    and critic) -> ``learning_rate`` (DDPG's mu rate), ``q_learning_rate``; net [400, 300] ->
    ``model_kwargs``/``q_model_kwargs``; action noise Normal(0, 0.1) in [-1, 1] units ->
    ``agent.action_std=0.1`` (std 0.2 on Pendulum's [-2, 2]). SB3's DDPG defaults: batch 256,
    tau 0.005 (rlpyt's DDPG default is 0.01), one policy and target update per gradient step;
    train_freq 1 / gradient_steps 1 -> 1 step x 1 env per iteration and ``replay_ratio=256``.
    Time limits bootstrap, as SB3's replay does.

    learning_starts: the Zoo collects 10k uniformly random steps first. ``DdpgAgent`` has no
    separate pre-learning exploration (it always adds ``action_std`` noise to mu, as rlpyt's
    did), so 10k steps of an untrained, nearly constant mu would fill the replay with
    almost the same action; ``min_steps_learn=1000`` starts learning (and so varying mu)
    early instead. n_timesteps: 30k here (the Zoo runs 20k).
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

configs["ddpg"] = dict(
    agent=dict(
        model_kwargs=dict(hidden_sizes=[400, 300]),
        q_model_kwargs=dict(hidden_sizes=[400, 300]),
        action_std=0.1,
    ),
    algo=dict(
        discount=0.98,
        batch_size=256,
        min_steps_learn=1000,
        replay_size=200_000,
        replay_ratio=256,
        target_update_tau=0.005,
        target_update_interval=1,
        policy_update_interval=1,
        learning_rate=1e-3,
        q_learning_rate=1e-3,
        bootstrap_timelimit=True,
    ),
    env=dict(id="Pendulum-v1"),
    eval_env=dict(id="Pendulum-v1"),
    optim=dict(),
    runner=dict(n_steps=30_000, log_interval_steps=1000),
    # 10 evaluation episodes: 5 envs x 2 full 200-step episodes each.
    sampler=dict(
        batch_T=1,
        batch_B=1,
        max_decorrelation_steps=0,
        eval_n_envs=5,
        eval_max_steps=2000,
        eval_max_trajectories=10,
    ),
)


# The command line's default: a cheaper update (see the docstring).
config = copy.deepcopy(configs["ddpg"])
config["agent"]["model_kwargs"] = dict(hidden_sizes=[256, 256])
config["agent"]["q_model_kwargs"] = dict(hidden_sizes=[256, 256])
config["runner"]["n_steps"] = 15_000
configs["ddpg_short"] = config
