"""Configs for the deep-Q family on Atari: DQN and its options, CategoricalDQN, "ernbw".

Read by the train scripts in ``experiments/scripts/atari/dqn/train/``: ``atari_dqn_serial.py``,
``atari_dqn_cpu.py``, ``atari_dqn_gpu.py``, ``atari_dqn_gpu_rmsprop.py`` (``DQN`` and
``AtariDqnAgent``) and ``atari_catdqn_gpu.py`` (``CategoricalDQN`` and ``AtariCatDqnAgent``,
for the "catdqn" and "ernbw" keys). Each entry of ``configs`` is a nested dict whose sub-dicts
are splatted into the constructors (``algo`` into the algorithm, ``agent`` into the agent,
``model`` as its ``model_kwargs``, ``optim`` as ``optim_kwargs``, ``sampler`` into the
sampler, ``runner`` into ``MinibatchRlEval``, ``env`` and ``eval_env`` into ``AtariEnv``; the
train scripts copy ``env["game"]`` into ``eval_env["game"]``). A launch script overrides
single keys per setting with a variant (``update_config``).

Keys (values are rlpyt's; each is "dqn" with the changes named):
    "dqn": DQN with Adam at lr 1e-4, minibatches of 128, 2 steps x 16 envs per sampler batch
        (2 gradient steps per batch at the default replay_ratio 8), learning from 50k steps,
        epsilon from 1 to 0.01 by 1M steps, replay of 1M transitions, target copied every
        312 updates, 50M steps, evaluation on 4 envs every 1M steps (without episodic lives,
        horizon 27k).
    "double": double DQN. "prioritized": prioritized replay. "dueling": dueling heads.
    "double_pri_duel": all three.
    "catdqn": CategoricalDQN (C51: 51 atoms on [-10, 10]) at lr 2.5e-4.
    "ernbw": Rainbow without noisy nets: CategoricalDQN with double, dueling, prioritized,
        3-step returns, lr 6.25e-5.
    "rmsprop": lr 2.5e-4, 15M steps; ``optim`` holds RMSprop's keywords (alpha 0.95, eps
        1e-6), for ``atari_dqn_gpu_rmsprop.py`` (which sets ``OptimCls``).
    "fast_log": 15M steps, a row every 100k steps, shorter evaluations.
    "short_run": 15M steps.
    "no_eval": no evaluation envs, a row every 100k steps.
    "serial": 8 steps x 2 envs per batch. "cpu": 4 steps x 4 envs.
    "debug": 8 x 2, 30k steps, learning from 10k, replay 10k, epsilon over 20k, tiny evals.
    "debug_vec_eps": "debug" with 4 x 4 and a vector epsilon (final values from 0.01 down to
        0.001 across the envs).
    "async_big": 4 steps x 256 envs, uniform replay, 10 evaluation envs (rlpyt set
        ``eval_n_envs`` at the top level of the config, where nothing read it; here it is in
        ``sampler``).
    "async_serial", "async_cpu", "async_gpu": for ``AsyncRlEval`` with the asynchronous
        samplers (``atari_dqn_async_serial.py``, ``atari_dqn_async_cpu.py``,
        ``atari_dqn_async_gpu.py``): "dqn" with the sampler batches 8 x 2, 4 x 8 and 4 x 64,
        minibatches of 128 and replay_ratio 8 (an upper bound: the optimizer waits for the
        sampler, never the reverse), and the weights published after every update
        (``updates_per_sync=1``). The async_gpu batch is large enough for one batched forward
        pass per step to pay off; without a GPU its action server runs on CPU.
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    algo=dict(
        discount=0.99,
        batch_size=128,
        learning_rate=1e-4,
        target_update_interval=312,
        clip_grad_norm=10.0,
        min_steps_learn=int(5e4),
        double_dqn=False,
        prioritized_replay=False,
        n_step_return=1,
        replay_size=int(1e6),
    ),
    env=dict(game="pong", episodic_lives=True),
    eval_env=dict(game="pong", episodic_lives=False, horizon=int(27e3)),
    model=dict(dueling=False),
    optim=dict(),
    runner=dict(n_steps=50e6, log_interval_steps=1e6),
    sampler=dict(
        batch_T=2,
        batch_B=16,
        max_decorrelation_steps=1000,
        eval_n_envs=4,
        eval_max_steps=int(125e3),
        eval_max_trajectories=100,
    ),
)
configs["dqn"] = config

config = copy.deepcopy(configs["dqn"])
config["algo"]["double_dqn"] = True
configs["double"] = config

config = copy.deepcopy(configs["dqn"])
config["algo"]["prioritized_replay"] = True
configs["prioritized"] = config

config = copy.deepcopy(configs["dqn"])
config["model"]["dueling"] = True
configs["dueling"] = config

config = copy.deepcopy(configs["dqn"])
config["algo"]["double_dqn"] = True
config["algo"]["prioritized_replay"] = True
config["model"]["dueling"] = True
configs["double_pri_duel"] = config

# CategoricalDQN's support and the agent's atom count are rlpyt's defaults, written out so that
# a sweep can vary them (the agent passes n_atoms on to the model).
config = copy.deepcopy(configs["dqn"])
config["algo"]["learning_rate"] = 2.5e-4
config["algo"]["V_min"] = -10.0
config["algo"]["V_max"] = 10.0
config["agent"]["n_atoms"] = 51
configs["catdqn"] = config

config = copy.deepcopy(configs["catdqn"])
config["algo"]["n_step_return"] = 3
config["algo"]["learning_rate"] = 6.25e-5
config["algo"]["double_dqn"] = True
config["algo"]["prioritized_replay"] = True
config["model"]["dueling"] = True
configs["ernbw"] = config

config = copy.deepcopy(configs["dqn"])
config["optim"] = dict(alpha=0.95, eps=1e-6)
config["algo"]["learning_rate"] = 2.5e-4
config["runner"]["n_steps"] = 15e6
configs["rmsprop"] = config

config = copy.deepcopy(configs["dqn"])
config["runner"]["n_steps"] = 15e6
config["runner"]["log_interval_steps"] = 1e5
config["sampler"]["eval_max_steps"] = int(70e3)
config["sampler"]["eval_max_trajectories"] = 50
configs["fast_log"] = config

config = copy.deepcopy(configs["dqn"])
config["runner"]["n_steps"] = 15e6
configs["short_run"] = config

config = copy.deepcopy(configs["dqn"])
config["sampler"]["eval_n_envs"] = 0
config["runner"]["log_interval_steps"] = 1e5
configs["no_eval"] = config

config = copy.deepcopy(configs["dqn"])
config["sampler"]["batch_T"] = 8
config["sampler"]["batch_B"] = 2
configs["serial"] = config

config = copy.deepcopy(configs["dqn"])
config["sampler"]["batch_T"] = 4
config["sampler"]["batch_B"] = 4
configs["cpu"] = config

config = copy.deepcopy(configs["dqn"])
config["sampler"]["batch_T"] = 8
config["sampler"]["batch_B"] = 2
config["sampler"]["max_decorrelation_steps"] = 20
config["sampler"]["eval_max_steps"] = int(8e3)
config["sampler"]["eval_max_trajectories"] = 4
config["runner"]["n_steps"] = 3e4
config["runner"]["log_interval_steps"] = 1e4
config["algo"]["min_steps_learn"] = int(1e4)
config["algo"]["replay_size"] = int(1e4)
config["algo"]["eps_steps"] = int(2e4)
configs["debug"] = config

config = copy.deepcopy(configs["debug"])
config["sampler"]["batch_T"] = 4
config["sampler"]["batch_B"] = 4
config["agent"]["eps_final_min"] = 0.001
configs["debug_vec_eps"] = config

config = copy.deepcopy(configs["dqn"])
config["sampler"]["batch_T"] = 4
config["sampler"]["batch_B"] = 256
config["sampler"]["eval_n_envs"] = 10
config["algo"]["prioritized_replay"] = False
configs["async_big"] = config

for key, (batch_T, batch_B) in dict(
    async_serial=(8, 2), async_cpu=(4, 8), async_gpu=(4, 64)
).items():
    config = copy.deepcopy(configs["dqn"])
    config["sampler"]["batch_T"] = batch_T
    config["sampler"]["batch_B"] = batch_B
    config["algo"]["replay_ratio"] = 8
    config["algo"]["updates_per_sync"] = 1
    configs[key] = config
