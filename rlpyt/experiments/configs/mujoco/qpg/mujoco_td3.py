"""Configs for TD3 with ``Td3Agent`` (MLP mu and twin Q models) on MuJoCo tasks.

Read by ``experiments/scripts/mujoco/qpg/train/mujoco_td3_serial.py``: ``algo`` goes to
``TD3``, ``agent`` to ``Td3Agent``, ``sampler`` to the sampler, ``runner`` to
``MinibatchRlEval``, ``env``/``eval_env`` to ``rlpyt.envs.gym.make`` (the script evaluates on
``env["id"]``); ``benchmarks/`` reads "td3_halfcheetah_zoo". Needs the mujoco extra
(``pip install "rlpyt[mujoco]"``). rlpyt's keys use ``Hopper-v5`` (rlpyt: ``Hopper-v3``,
which needs the retired mujoco-py).

Keys:
    "td3_1M_serial": the TD3 paper's settings: 1 env step per iteration, minibatches of 100
        with one update per step, lr 1e-3 for mu and Q (rlpyt's config passes
        ``learning_rate=1e-3``; TD3's mu rate is 1e-3 whichever of the two it reads),
        Polyak tau 0.005, policy and target updates every 2nd update, learning from 10k steps
        (exploration std 0.5 before, the agent's ``pretrain_std``), 1M steps; evaluation every
        10k steps on 6 envs. Time-limit ends are terminals here (``bootstrap_timelimit=False``).
    "td3_serial_bstl": the same, bootstrapping through time limits.
    "async_cpu": "td3_serial_bstl" with 5 steps x 3 envs per iteration and
        ``updates_per_sync=1``, for the asynchronous runner ``AsyncRl`` (rlpyt's key kept;
        ``rlpyt train --config`` runs it under ``AsyncRl``, the serial script synchronously).
    "td3_halfcheetah_zoo": RL-Baselines3-Zoo's TD3 on HalfCheetah (``hyperparams/td3.yml``)
        in rlpyt's terms, on ``HalfCheetah-v5``, 1M steps (used by the benchmark).

How each Zoo / Stable-Baselines3 setting maps (Zoo -> here), "td3_halfcheetah_zoo":
    learning_starts 10000 -> ``min_steps_learn``; noise Normal(0, 0.1) in [-1, 1] action
    units -> ``agent.action_std=0.1`` (agents scale by the action bound, 1 here); SB3's TD3
    defaults: lr 1e-3 (``mu_learning_rate``, ``q_learning_rate``), batch 256, buffer 1M,
    gamma 0.99, tau 0.005, net [400, 300] (``model_kwargs``, ``q_model_kwargs``),
    policy_delay 2 (``policy_update_interval`` and ``target_update_interval``: SB3 updates the
    targets with the policy), target_policy_noise 0.2 clip 0.5 (``target_noise_std``,
    ``target_noise_clip``); train_freq 1 / gradient_steps 1 -> 1 step x 1 env per iteration
    and ``replay_ratio=256`` (``round(256 * 1 / 256) = 1`` update per step). SB3 acts
    uniformly at random before learning starts; ``pretrain_std=0.65`` comes closest: mu plus
    Normal(0, 0.65 h) clipped to [-h, h] has the variance of the uniform on [-h, h]
    (h^2 / 3) when mu is near 0, as an untrained mu is. Time limits bootstrap, as SB3's
    replay does (``handle_timeout_termination``). Evaluation: 5 episodes every 10k steps.

``min_steps_learn`` and ``replay_size`` are written out at the algorithm's defaults (rlpyt's
configs left them out) so that a variant can change them.
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(model_kwargs=None, q_model_kwargs=None),
    algo=dict(
        discount=0.99,
        min_steps_learn=int(1e4),
        replay_size=int(1e6),
        batch_size=100,
        replay_ratio=100,
        target_update_tau=0.005,
        target_update_interval=2,
        policy_update_interval=2,
        learning_rate=1e-3,
        q_learning_rate=1e-3,
        bootstrap_timelimit=False,
    ),
    env=dict(id="Hopper-v5"),
    eval_env=dict(id="Hopper-v5"),
    optim=dict(),
    runner=dict(n_steps=1e6, log_interval_steps=1e4),
    sampler=dict(
        batch_T=1,
        batch_B=1,
        max_decorrelation_steps=0,
        eval_n_envs=6,
        eval_max_steps=int(51e3),
        eval_max_trajectories=50,
    ),
)
configs["td3_1M_serial"] = config

config = copy.deepcopy(configs["td3_1M_serial"])
config["algo"]["bootstrap_timelimit"] = True
configs["td3_serial_bstl"] = config

config = copy.deepcopy(configs["td3_serial_bstl"])
config["sampler"]["batch_T"] = 5
config["sampler"]["batch_B"] = 3
config["algo"]["updates_per_sync"] = 1
configs["async_cpu"] = config

configs["td3_halfcheetah_zoo"] = dict(
    agent=dict(
        model_kwargs=dict(hidden_sizes=[400, 300]),
        q_model_kwargs=dict(hidden_sizes=[400, 300]),
        action_std=0.1,
        pretrain_std=0.65,
        target_noise_std=0.2,
        target_noise_clip=0.5,
    ),
    algo=dict(
        discount=0.99,
        batch_size=256,
        min_steps_learn=10_000,
        replay_size=1_000_000,
        replay_ratio=256,
        target_update_tau=0.005,
        target_update_interval=2,
        policy_update_interval=2,
        mu_learning_rate=1e-3,
        q_learning_rate=1e-3,
        bootstrap_timelimit=True,
    ),
    env=dict(id="HalfCheetah-v5"),
    eval_env=dict(id="HalfCheetah-v5"),
    optim=dict(),
    runner=dict(n_steps=1e6, log_interval_steps=1e4),
    # 5 evaluation episodes: 5 envs x one 1000-step episode each.
    sampler=dict(
        batch_T=1,
        batch_B=1,
        max_decorrelation_steps=0,
        eval_n_envs=5,
        eval_max_steps=5000,
        eval_max_trajectories=5,
    ),
)
