"""Configs for SAC_V (SAC with a learned state-value function) on MuJoCo tasks.

Read by ``experiments/scripts/mujoco/qpg/train/mujoco_sac_v_serial.py``: ``algo`` goes to
``SAC_V`` (``rlpyt.algos.qpg.sac_v``), ``agent`` to ``rlpyt.agents.qpg.sac_v_agent.SacAgent``
(``None`` model kwargs mean its 256-256 MLPs for the policy, twin Q and V), ``sampler`` to the
sampler, ``runner`` to ``MinibatchRlEval``, ``env``/``eval_env`` to ``rlpyt.envs.gym.make``
(the script evaluates on ``env["id"]``). Needs the mujoco extra
(``pip install "rlpyt[mujoco]"``). The environment is ``Hopper-v5`` (rlpyt: ``Hopper-v3``,
which needs the retired mujoco-py).

Keys:
    "sac_1M_serial": the first SAC paper's settings: 1 env step per iteration, minibatches of
        256 with one update per step, lr 3e-4, Polyak tau 0.005 every update, reward scale 5
        (the fixed temperature is 1 / reward_scale), policy output regularization 1e-3,
        learning from 10k steps, 1M steps; evaluation every 10k steps on 6 envs. Time-limit
        ends are terminals here (``bootstrap_timelimit=False``).
    "sac_serial_bstl": the same, bootstrapping through time limits.
    "async_gpu": "sac_serial_bstl" with 5 steps x 3 envs per iteration and
        ``updates_per_sync=1``, for the asynchronous runner ``AsyncRl`` with a GPU sampler
        (rlpyt's key kept; ``rlpyt train --config`` runs it under ``AsyncRl``, the serial script
        synchronously).

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
        policy_output_regularization=0.001,
        reward_scale=5,
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

config = copy.deepcopy(configs["sac_serial_bstl"])
config["sampler"]["batch_T"] = 5
config["sampler"]["batch_B"] = 3
config["algo"]["updates_per_sync"] = 1
configs["async_gpu"] = config
