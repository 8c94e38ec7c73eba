"""Configs for DQN and CategoricalDQN on CartPole-v1 with the MLP Q-agents (vector observations).

Read by ``experiments/scripts/classic/dqn/train/cartpole_dqn.py`` ("dqn": ``DQN`` and
``ClassicDqnAgent``) and ``cartpole_catdqn.py`` ("catdqn": ``CategoricalDQN`` and
``ClassicCatDqnAgent``), by the DQN learning tests and by ``benchmarks/dqn_speed.py``: these
are the real settings, not a demo. Sub-dicts are splatted into the constructors; ``env`` and
``eval_env`` go to ``rlpyt.envs.gym.make``, ``model`` is the agent's ``model_kwargs``.

Keys:
    "dqn": RL-Zoo's tuned CartPole-v1 DQN (rl-baselines3-zoo ``hyperparams/dqn.yml``) in
        rlpyt's terms, 50k steps; evaluation every ~5k steps on 10 episodes.
    "catdqn": "dqn" with CategoricalDQN: 51 atoms on [0, 100] (CartPole's discounted return
        at discount 0.99 lies in [1, 100)).

How each RL-Zoo setting maps (Zoo -> here):
    n_timesteps 5e4 -> ``runner.n_steps``; learning_rate 2.3e-3, batch_size 64, gamma 0.99,
    buffer_size 100k, learning_starts 1000 -> ``learning_rate``, ``batch_size``,
    ``discount``, ``replay_size``, ``min_steps_learn``; net_arch [256, 256] ->
    ``model.hidden_sizes``. Stable-Baselines3's DQN defaults that the Zoo keeps: Huber loss
    (``delta_clip=1``), max_grad_norm 10 (``clip_grad_norm``), tau 1 (``target_update_tau``),
    Adam with torch's eps 1e-8 (``optim.eps``; without it DQN would use 0.01 / batch_size).

    train_freq 256 env steps, gradient_steps 128 -> one sampler batch of
    ``batch_T * batch_B = 32 * 8 = 256`` steps, and ``replay_ratio = 32``, because DQN takes
    ``round(replay_ratio * batch_T * batch_B / batch_size) = round(32 * 256 / 64) = 128``
    gradient steps per batch (the Zoo steps 1 env 256 times; here 8 envs step 32 times).

    target_update_interval 10 counts env steps in SB3 (the copy happens while collecting, so
    the 128 gradient steps of a round all use the copy made before them); rlpyt's
    ``target_update_interval`` counts gradient steps, so 128 here: one copy per batch, after
    its last gradient step, which is the same network at the same point.

    exploration 1 -> 0.04 over 16% of 5e4 steps = 8000 steps, counted from step 0 ->
    ``agent.eps_final=0.04``, ``algo.eps_steps=8000`` and ``algo.eps_start_steps=0``: linear
    in sampler iterations from 0 to ``8000 // 256 = 31``. rlpyt's schedule
    (``eps_start_steps=None``) would start falling only where learning starts
    (``min_steps_learn // 256 = 3``); over 20 seeds that needed 21% more steps to solve.
    Evaluation uses the agent's ``eps_eval`` (0.001), where the Zoo evaluates greedily.
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(eps_final=0.04),
    algo=dict(
        discount=0.99,
        batch_size=64,
        learning_rate=2.3e-3,
        replay_size=100_000,
        replay_ratio=32,
        min_steps_learn=1000,
        eps_steps=8000,
        eps_start_steps=0,
        target_update_interval=128,
        target_update_tau=1.0,
        delta_clip=1.0,
        clip_grad_norm=10.0,
        n_step_return=1,
        double_dqn=False,
        prioritized_replay=False,
    ),
    env=dict(id="CartPole-v1"),
    eval_env=dict(id="CartPole-v1"),
    model=dict(hidden_sizes=[256, 256]),
    optim=dict(eps=1e-8),
    runner=dict(n_steps=50_000, log_interval_steps=5000),
    # 10 evaluation episodes: 5 envs x at most 2 full 500-step episodes each.
    sampler=dict(
        batch_T=32,
        batch_B=8,
        max_decorrelation_steps=0,
        eval_n_envs=5,
        eval_max_steps=5000,
        eval_max_trajectories=10,
    ),
)
configs["dqn"] = config

config = copy.deepcopy(configs["dqn"])
config["algo"]["V_min"] = 0.0
config["algo"]["V_max"] = 100.0
config["agent"]["n_atoms"] = 51
configs["catdqn"] = config
