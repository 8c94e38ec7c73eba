"""Configs for SAC with ``SacAgent`` (tanh-Gaussian MLP policy, twin MLP Q models) on MuJoCo.

Read by ``experiments/scripts/mujoco/qpg/train/mujoco_sac_serial.py``: ``algo`` goes to
``SAC``, ``agent`` to ``SacAgent``, ``sampler`` to the sampler, ``runner`` to
``MinibatchRlEval``, ``env``/``eval_env`` to ``rlpyt.envs.gym.make`` (the script evaluates on
``env["id"]``); ``benchmarks/`` reads "sac_halfcheetah_zoo". Needs the mujoco extra
(``pip install "rlpyt[mujoco]"``). rlpyt's keys use ``Hopper-v5`` (rlpyt: ``Hopper-v3``,
which needs the retired mujoco-py).

Keys:
    "sac_1M_serial": the SAC paper's settings: 1 env step per iteration, minibatches of 256
        with one update per step (``replay_ratio=256``), lr 3e-4 for policy, Q and alpha,
        Polyak tau 0.005 every update, learned temperature (target entropy -|A|), 256-256
        MLPs, learning from 10k steps, 1M steps; evaluation every 10k steps on 6 envs (at most
        50 episodes, 51k steps). Time-limit ends are terminals here
        (``bootstrap_timelimit=False``). rlpyt's dict also carried SAC_V's
        ``policy_output_regularization`` and ``reward_scale=5``; SAC takes no such
        regularization, and reward scale 1 is the paper's value with a learned temperature.
    "sac_serial_bstl": the same, bootstrapping through time limits.
    "sac_halfcheetah_zoo": RL-Baselines3-Zoo's SAC on HalfCheetah (``hyperparams/sac.yml``)
        in rlpyt's terms, on ``HalfCheetah-v5``, 1M steps (used by the benchmark).

How each Zoo / Stable-Baselines3 setting maps (Zoo -> here), "sac_halfcheetah_zoo":
    learning_starts 10000 -> ``min_steps_learn``; SB3's SAC defaults: lr 3e-4, batch 256,
    buffer 1M, gamma 0.99, tau 0.005, ent_coef "auto" (initial 1) and target_entropy
    "auto" (-|A|), net [256, 256]; train_freq 1 / gradient_steps 1 -> 1 step x 1 env per
    iteration and ``replay_ratio=256`` (one update of 256 per step). SB3 acts uniformly at
    random before learning starts; ``pretrain_std=0.9`` comes closest: tanh of
    Normal(mean, 0.9) with the untrained mean near 0 is nearly uniform on [-1, 1] (the
    pre-image of the uniform, atanh(U), has standard deviation pi / (2 sqrt 3) = 0.91).
    Time limits bootstrap, as SB3's replay does (``handle_timeout_termination``).
    Evaluation: 5 episodes every 10k steps.

``min_steps_learn`` and ``replay_size`` are written out at the algorithm's defaults (rlpyt's
configs left them out) so that a variant can change them.
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(model_kwargs=None, q_model_kwargs=None, v_model_kwargs=None),
    algo=dict(
        discount=0.99,
        min_steps_learn=int(1e4),
        replay_size=int(1e6),
        batch_size=256,
        replay_ratio=256,
        target_update_tau=0.005,
        target_update_interval=1,
        learning_rate=3e-4,
        reparameterize=True,
        reward_scale=1,
        target_entropy="auto",
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
configs["sac_1M_serial"] = config

config = copy.deepcopy(configs["sac_1M_serial"])
config["algo"]["bootstrap_timelimit"] = True
configs["sac_serial_bstl"] = config

configs["sac_halfcheetah_zoo"] = dict(
    agent=dict(
        model_kwargs=dict(hidden_sizes=[256, 256]),
        q_model_kwargs=dict(hidden_sizes=[256, 256]),
        pretrain_std=0.9,
    ),
    algo=dict(
        discount=0.99,
        batch_size=256,
        min_steps_learn=10_000,
        replay_size=1_000_000,
        replay_ratio=256,
        target_update_tau=0.005,
        target_update_interval=1,
        learning_rate=3e-4,
        target_entropy="auto",
        reward_scale=1,
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
