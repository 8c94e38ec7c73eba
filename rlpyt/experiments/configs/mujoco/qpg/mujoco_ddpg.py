"""Configs for DDPG with ``DdpgAgent`` (MLP mu and Q models) on MuJoCo tasks.

Read by ``experiments/scripts/mujoco/qpg/train/mujoco_ddpg_serial.py``: ``algo`` goes to
``DDPG``, ``agent`` to ``DdpgAgent`` (its ``model_kwargs``/``q_model_kwargs`` of ``None`` mean
the agent's 400-300 MLPs), ``sampler`` to the sampler, ``runner`` to ``MinibatchRlEval``,
``env``/``eval_env`` to ``rlpyt.envs.gym.make`` (the script evaluates on ``env["id"]``).
Needs the mujoco extra (``pip install "rlpyt[mujoco]"``). The environment is ``Hopper-v5``
(rlpyt used ``Hopper-v3``, which needs the retired mujoco-py; ``gym_make("Hopper-v3")`` maps
to v5 with a warning).

Keys:
    "ddpg_from_td3_1M_serial": DDPG as the TD3 paper ran it: 1 env step per iteration,
        minibatches of 100 with one update per step (``replay_ratio=100``), lr 1e-3 for mu
        and Q, Polyak tau 0.01 every update, learning from 10k steps (DDPG's default), 1M
        steps; evaluation every 10k steps on 5 envs (at most 50 episodes, 51k steps).
        Time-limit ends are terminals here (``bootstrap_timelimit=False``).
    "ddpg_from_td3_serial_bstl": the same, bootstrapping through time limits.
    "async_serial": "ddpg_from_td3_serial_bstl" with 5 steps per iteration and
        ``updates_per_sync=1``, for the asynchronous runner ``AsyncRl`` (rlpyt's key kept;
        ``rlpyt train --config`` runs it under ``AsyncRl``, the serial script synchronously).

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
        target_update_tau=0.01,
        target_update_interval=1,
        policy_update_interval=1,
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
        eval_n_envs=5,
        eval_max_steps=int(51e3),
        eval_max_trajectories=50,
    ),
)
configs["ddpg_from_td3_1M_serial"] = config

config = copy.deepcopy(configs["ddpg_from_td3_1M_serial"])
config["algo"]["bootstrap_timelimit"] = True
configs["ddpg_from_td3_serial_bstl"] = config

config = copy.deepcopy(configs["ddpg_from_td3_serial_bstl"])
config["sampler"]["batch_T"] = 5
config["algo"]["updates_per_sync"] = 1
configs["async_serial"] = config
