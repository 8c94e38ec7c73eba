"""Configs for R2D1 on Atari (``R2D1`` with ``AtariR2d1Agent`` / ``AtariR2d1AlternatingAgent``).

Read by the train scripts ``experiments/scripts/atari/dqn/train/atari_r2d1_*.py``. Each entry
of ``configs`` is a nested dict whose sub-dicts are splatted into the constructors (``algo``
into ``R2D1``, ``agent`` into the agent, ``model`` as its ``model_kwargs``, ``optim`` as
``optim_kwargs``, ``sampler`` into the sampler, ``runner`` into the runner, ``env`` and
``eval_env`` into ``AtariEnv``; the train scripts copy ``env["game"]`` into
``eval_env["game"]``). A launch script overrides single keys per setting (``update_config``).

Keys (values are rlpyt's; each is the one it is copied from with the changes named):
    "r2d1": dueling R2D1, sequences of 80 steps after a warm-up of 40, 32 sequences per update
        (the paper: 64), a state stored every 40 steps, 5-step returns, replay ratio 4 (the
        paper: about 0.8), Adam lr 1e-4 (eps 1e-3: rlpyt's ``optim=dict()`` dropped it),
        gradient norm clipped at 80, learning from 100k steps, double Q, prioritized (alpha 0.9,
        beta 0.6 fixed), input priorities shifted 2 stored-state rows back; unclipped rewards,
        episodic lives in training, horizon 27k; sampler 30 steps x 32 envs; 100M steps.
    "r2d1_long": "r2d1" with a 4M-step replay, 64 sequences per update at replay ratio 1,
        per-env final epsilons from 0.1 down to 0.0005 (Ape-X style), 20G steps logged every
        10M, sampler 40 steps x 192 envs (40 = warm-up = state interval: trajectories meet the
        stored rows), 6 eval envs, no episodic lives.
    "r2d1_profile": "r2d1_long" for 1M steps, learning from 50k, 2 eval trajectories.
    "r2d1_prof_halftrain": "r2d1_profile" with 32 sequences at replay ratio 0.5.
    "r2d1_prof_quartertrain": "r2d1_profile" with 16 sequences at replay ratio 0.25.
    "r2d1_long_4tr": "r2d1_long" at replay ratio 4, 12 eval envs.
    "async_gpu": "r2d1_long" with 256 sampler envs, 4M replay, 64 sequences (per GPU), 20 eval
        envs (asynchronous runner).
    "r2d1_test": a small "r2d1_long": sampler 5 x 8, replay 100k, 16 sequences of 10 after a
        warm-up of 5, a state every 5 steps, learning from 10k steps, epsilon over 100k,
        episodic lives, 8 short evaluations, a row every 100k steps.
    "async_alt_pabti", "async_alt_dgx", "async_alt_got", "async_gpu_dgx": "async_gpu" sized
        for rlpyt's machines (264, 312, 252 and 312 sampler envs; eval envs and limits to
        match), for the asynchronous alternating and GPU samplers.
"""

import copy
from typing import Any

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = dict(
    agent=dict(),
    model=dict(dueling=True),
    algo=dict(
        discount=0.997,
        batch_T=80,
        batch_B=32,
        warmup_T=40,
        store_rnn_state_interval=40,
        replay_ratio=4,
        learning_rate=1e-4,
        clip_grad_norm=80.0,
        min_steps_learn=int(1e5),
        double_dqn=True,
        prioritized_replay=True,
        n_step_return=5,
        pri_alpha=0.9,
        pri_beta_init=0.6,
        pri_beta_final=0.6,
        input_priority_shift=2,
    ),
    optim=dict(),
    env=dict(
        game="pong",
        episodic_lives=True,
        clip_reward=False,
        horizon=int(27e3),
        num_img_obs=4,
    ),
    eval_env=dict(
        game="pong",
        episodic_lives=False,
        horizon=int(27e3),
        clip_reward=False,
        num_img_obs=4,
    ),
    runner=dict(n_steps=100e6, log_interval_steps=1e6),
    sampler=dict(
        batch_T=30,
        batch_B=32,
        max_decorrelation_steps=1000,
        eval_n_envs=4,
        eval_max_steps=int(161e3),
        eval_max_trajectories=100,
    ),
)
configs["r2d1"] = config

config = copy.deepcopy(configs["r2d1"])
config["algo"]["replay_size"] = int(4e6)
config["algo"]["batch_B"] = 64
config["algo"]["replay_ratio"] = 1
config["agent"]["eps_final"] = 0.1
config["agent"]["eps_final_min"] = 0.0005
config["runner"]["n_steps"] = 20e9
config["runner"]["log_interval_steps"] = 10e6
config["sampler"]["batch_T"] = 40
config["sampler"]["batch_B"] = 192
config["sampler"]["eval_n_envs"] = 6
config["sampler"]["eval_max_steps"] = int(28e3 * 6)
config["env"]["episodic_lives"] = False
configs["r2d1_long"] = config

config = copy.deepcopy(configs["r2d1_long"])
config["runner"]["n_steps"] = 1e6
config["runner"]["log_interval_steps"] = 1e6
config["algo"]["min_steps_learn"] = int(5e4)
config["sampler"]["eval_max_trajectories"] = 2
configs["r2d1_profile"] = config

config = copy.deepcopy(configs["r2d1_profile"])
config["algo"]["batch_B"] = 32
config["algo"]["replay_ratio"] = 0.5
configs["r2d1_prof_halftrain"] = config

config = copy.deepcopy(configs["r2d1_profile"])
config["algo"]["batch_B"] = 16
config["algo"]["replay_ratio"] = 0.25
configs["r2d1_prof_quartertrain"] = config

config = copy.deepcopy(configs["r2d1_long"])
config["algo"]["replay_ratio"] = 4
config["sampler"]["eval_n_envs"] = 12
config["sampler"]["eval_max_steps"] = int(28e3 * 12)
configs["r2d1_long_4tr"] = config

config = copy.deepcopy(configs["r2d1_long"])
config["sampler"]["batch_B"] = 256
config["sampler"]["batch_T"] = 40
config["algo"]["replay_size"] = int(4e6)
config["algo"]["batch_B"] = 64  # per optimizer GPU
config["sampler"]["eval_n_envs"] = 20
config["sampler"]["eval_max_steps"] = int(28e3 * 20)
configs["async_gpu"] = config

config = copy.deepcopy(configs["r2d1_long"])
config["sampler"]["batch_B"] = 8
config["sampler"]["batch_T"] = 5
config["sampler"]["max_decorrelation_steps"] = 20
config["env"]["episodic_lives"] = True
config["algo"]["replay_size"] = int(1e5)
config["algo"]["batch_B"] = 16
config["algo"]["batch_T"] = 10
config["algo"]["warmup_T"] = 5
config["algo"]["min_steps_learn"] = int(1e4)
config["algo"]["eps_steps"] = int(1e5)
config["algo"]["store_rnn_state_interval"] = 5
config["sampler"]["eval_n_envs"] = 8
config["sampler"]["eval_max_steps"] = int(8 * 1.5e3)
config["sampler"]["eval_max_trajectories"] = 8
config["runner"]["log_interval_steps"] = 1e5
configs["r2d1_test"] = config

# Sized for rlpyt's machines: sampler envs over 2 or 3 sampler GPUs with 1 optimizer GPU, and
# evaluations long enough for one full-length episode per eval env.
for key, batch_B, eval_n_envs, eval_max_trajectories in (
    ("async_alt_pabti", 264, 44, 120),
    ("async_alt_dgx", 312, 78, 210),
    ("async_alt_got", 252, 36, 100),
    ("async_gpu_dgx", 312, 39, 210),
):
    config = copy.deepcopy(configs["async_gpu"])
    config["sampler"]["batch_B"] = batch_B
    config["sampler"]["eval_n_envs"] = eval_n_envs
    config["sampler"]["eval_max_steps"] = int(eval_n_envs * 28e3)
    config["sampler"]["eval_max_trajectories"] = eval_max_trajectories
    configs[key] = config
