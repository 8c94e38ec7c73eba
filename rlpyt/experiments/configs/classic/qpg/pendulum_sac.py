"""Config for SAC on Pendulum-v1 with ``SacAgent`` (tanh-Gaussian MLP policy, twin MLP Qs).

Read by ``experiments/scripts/classic/qpg/train/pendulum_sac.py``, by the SAC learning test
and by the SAC benchmark: these are the real settings, not a demo. Sub-dicts are splatted
into the constructors (``SAC``, ``SacAgent``, ``SerialSampler``, ``MinibatchRlEval``); ``env``
and ``eval_env`` go to ``rlpyt.envs.gym.make``. Pendulum needs no MuJoCo; its actions lie in
[-2, 2], and the agent squashes to that bound (``action_squash`` is in units of it).

Keys:
    "sac": RL-Baselines3-Zoo's Pendulum-v1 SAC (``hyperparams/sac.yml``) in rlpyt's terms,
        20k steps; evaluation every 1000 steps on 10 episodes.

How each Zoo / Stable-Baselines3 setting maps (Zoo -> here):
    n_timesteps 2e4 -> ``runner.n_steps``; learning_rate 1e-3 (policy, Q and temperature)
    -> ``learning_rate``; SB3's SAC defaults: batch 256, buffer 1M, learning_starts 100,
    gamma 0.99, tau 0.005, ent_coef "auto" (initial 1), target_entropy "auto" (-|A| = -1),
    net [256, 256] -> ``batch_size``, ``replay_size``, ``min_steps_learn``, ``discount``,
    ``target_update_tau``, ``target_entropy``, ``model_kwargs``/``q_model_kwargs``.
    train_freq 1 / gradient_steps 1 -> 1 step x 1 env per iteration and ``replay_ratio=256``
    (SAC takes ``round(replay_ratio * T * B / batch_size) = 1`` update of 256 per step);
    target update every gradient step -> ``target_update_interval=1``. Time limits (Pendulum
    always ends by its 200-step limit) bootstrap, as SB3's replay does
    (``handle_timeout_termination``). SB3 acts uniformly at random for its first 100 steps;
    here the policy's mean with a fixed pre-squash std ``pretrain_std=0.9`` does (tanh of a
    Normal(0, 0.9) is nearly uniform on [-1, 1]: atanh(U) has standard deviation
    pi / (2 sqrt 3) = 0.91).
"""

from typing import Any

configs: dict[str, dict[str, Any]] = dict()

configs["sac"] = dict(
    agent=dict(
        model_kwargs=dict(hidden_sizes=[256, 256]),
        q_model_kwargs=dict(hidden_sizes=[256, 256]),
        pretrain_std=0.9,
    ),
    algo=dict(
        discount=0.99,
        batch_size=256,
        min_steps_learn=100,
        replay_size=1_000_000,
        replay_ratio=256,
        target_update_tau=0.005,
        target_update_interval=1,
        learning_rate=1e-3,
        target_entropy="auto",
        reward_scale=1,
        bootstrap_timelimit=True,
    ),
    env=dict(id="Pendulum-v1"),
    eval_env=dict(id="Pendulum-v1"),
    optim=dict(),
    runner=dict(n_steps=20_000, log_interval_steps=1000),
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
