"""Config for TD3 on Pendulum-v1 with ``Td3Agent`` (MLP mu, twin MLP Qs).

Read by ``experiments/scripts/classic/qpg/train/pendulum_td3.py`` and by the TD3 learning
test: these are the real settings, not a demo. Sub-dicts are splatted into the constructors
(``TD3``, ``Td3Agent``, ``SerialSampler``, ``MinibatchRlEval``); ``env`` and ``eval_env`` go to
``rlpyt.envs.gym.make``. Pendulum needs no MuJoCo; its actions lie in [-2, 2], and the agent's
noise standard deviations are in units of that bound (h = 2).

Keys:
    "td3": RL-Baselines3-Zoo's Pendulum-v1 TD3 (``hyperparams/td3.yml``) in rlpyt's terms,
        30k steps; evaluation every 1000 steps on 10 episodes.
    "td3_short": the command line's default (``rlpyt train td3``): "td3" learning from step
        1,000 instead of 10,000, with 256-256 MLPs (a cheaper update than 400-300) and 15k
        steps, so that a short run learns; tests/learning/test_cli_defaults.py states its
        budget.

How each Zoo / Stable-Baselines3 setting maps (Zoo -> here):
    gamma 0.98, buffer_size 200k, learning_starts 10k -> ``discount``, ``replay_size``,
    ``min_steps_learn``; learning_rate 1e-3 (actor and critics) -> ``mu_learning_rate``,
    ``q_learning_rate``; net [400, 300] -> ``model_kwargs``/``q_model_kwargs``; action noise
    Normal(0, 0.1) in SB3's [-1, 1] action units -> ``agent.action_std=0.1`` (the agent
    scales it by the bound: std 0.2 on Pendulum's [-2, 2], clipped there). SB3's TD3
    defaults: batch 256, tau 0.005, policy_delay 2 (targets updated with the policy ->
    ``policy_update_interval=2``, ``target_update_interval=2``), target_policy_noise 0.2 and
    target_noise_clip 0.5 (``target_noise_std``, ``target_noise_clip``, also in bound units).
    train_freq 1 / gradient_steps 1 -> 1 step x 1 env per iteration and ``replay_ratio=256``
    (one update of 256 per step). Time limits bootstrap, as SB3's replay does.

    Before learning starts SB3 acts uniformly at random on [-h, h]; here the agent adds
    Normal(0, ``pretrain_std`` * h) to its (untrained, near-0) mu and clips to [-h, h].
    ``pretrain_std=0.65`` comes closest: that clipped Normal has the variance of the uniform,
    h^2 / 3, and about its smallest Wasserstein distance to it (0.04 h at std 0.65-0.7; the
    agent's default 0.5 has 0.11 h and too few actions near the bounds).
    n_timesteps: 30k here (the Zoo runs 20k, of which only the last 10k learn; 30k gives
    20k steps of learning).
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

configs["td3"] = dict(
    agent=dict(
        model_kwargs=dict(hidden_sizes=[400, 300]),
        q_model_kwargs=dict(hidden_sizes=[400, 300]),
        action_std=0.1,
        pretrain_std=0.65,
        target_noise_std=0.2,
        target_noise_clip=0.5,
    ),
    algo=dict(
        discount=0.98,
        batch_size=256,
        min_steps_learn=10_000,
        replay_size=200_000,
        replay_ratio=256,
        target_update_tau=0.005,
        target_update_interval=2,
        policy_update_interval=2,
        mu_learning_rate=1e-3,
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


# The command line's default: learn early and cheaply (see the docstring).
config = copy.deepcopy(configs["td3"])
config["agent"]["model_kwargs"] = dict(hidden_sizes=[256, 256])
config["agent"]["q_model_kwargs"] = dict(hidden_sizes=[256, 256])
config["algo"]["min_steps_learn"] = 1000
config["runner"]["n_steps"] = 15_000
configs["td3_short"] = config
