"""Q-function policy gradients (SAC, TD3) against Stable-Baselines3, one run.

Box: benchmarks (never part of the test suite). Ours and SB3 run in the same process, their
repeats and seeds interleaved (ours, then SB3, for each repeat or seed), and the tables give
medians [min-max] and the ratios ours / peer. Both sides use the same torch intra-op thread
count (``--threads``, 0: torch's default), printed at the top with the versions and every
setting. ``--algos`` picks SAC and/or TD3, ``--parts`` the measurements:

(a) Updates/s on Pendulum-v1 in the training phase: one env step and one gradient update of
    batch 256 per step, after learning starts at ``--learning-starts`` env steps (1000) on both
    sides. Ours: ``MinibatchRl`` over a ``SerialSampler`` of 1 env x 1 step, the algorithm and
    agent from the Pendulum configs below with ``min_steps_learn`` set to
    ``--learning-starts`` and ``replay_ratio = batch_size`` (one update per env step; checked),
    no evaluation; updates/s = iterations x updates per iteration / seconds. SB3: ``SAC`` or
    ``TD3("MlpPolicy")`` with the same Zoo settings as (b) (train_freq 1, gradient_steps 1,
    batch 256; TD3's policy_delay 2 like our ``policy_update_interval``), learning_starts
    ``--learning-starts``; updates/s from its update counter. Both clocks start ``--warmup``
    seconds (2) after learning starts and run ``--seconds`` (10); ``--repeats`` (3) fresh runs
    of each. Target: ours / SB3 >= 1.5 (SB3 SAC does ~150 updates/s on a 2-core CPU).
    For reference the same table has the bare-update ceiling: a plain
    PyTorch loop of the same networks and losses on one fixed batch, with default ``Adam``
    and Polyak targets, no env, replay or logging (``bare_sac_update``, ``bare_td3_update``):
    the work per update of any implementation.
(b) Env steps and wall seconds (evaluation time excluded, clocks started after construction)
    until an evaluation of 10 episodes averages >= -200 on Pendulum-v1, ``--seeds`` (5)
    seeds. Ours: ``rlpyt.experiments.configs.classic.qpg.pendulum_sac.configs["sac"]`` and
    ``pendulum_td3.configs["td3"]`` through ``MinibatchRlEval`` (the config's evaluation: 10
    deterministic episodes); SB3: RL-Zoo's Pendulum-v1 settings (``SB3_PENDULUM``, mapping
    below), ``evaluate_policy`` deterministic, 10 episodes on one env. Both evaluate every
    1000 env steps (the config's ``log_interval_steps``); caps ``--sac-cap`` 20,000 and
    ``--td3-cap`` 30,000 steps (rounded down to whole evaluation intervals); a seed that never
    gets there counts as infinitely late in the medians. Target: our median steps <= SB3's.
    Ours does not evaluate before learning starts (``MinibatchRlEval`` skips those log
    points; TD3 learns from 10,000 steps), SB3 evaluates its untrained actor there: neither
    reaches -200 without learning. ``--solved`` lowers the threshold for smoke runs.
(c) HalfCheetah-v5 after ``--cheetah-steps`` (50,000) env steps, ``--cheetah-seeds`` (3)
    seeds: the mean return of a final evaluation of 10 deterministic episodes (ours: the
    sampler's evaluation once, at the end, with 5 envs x 2 episodes where the config logs 5
    episodes; SB3: ``evaluate_policy`` on one env), and the training wall seconds
    (evaluation and construction excluded). Ours:
    ``rlpyt.experiments.configs.mujoco.qpg.mujoco_sac.configs["sac_halfcheetah_zoo"]`` and
    ``mujoco_td3.configs["td3_halfcheetah_zoo"]``; SB3: RL-Zoo's MuJoCo settings
    (``SB3_CHEETAH``). Both learn from 10,000 env steps (``--cheetah-learning-starts``
    overrides both sides, for smoke runs only). Target: our median return >= SB3's.

How RL-Zoo's settings map to the configs (SB3 -> ours). Common: learning_rate -> ``algo``'s
``learning_rate`` (SAC) or ``mu_learning_rate``/``q_learning_rate`` (TD3); batch_size,
buffer_size, learning_starts, gamma, tau -> ``batch_size``, ``replay_size``,
``min_steps_learn``, ``discount``, ``target_update_tau``; train_freq 1 with gradient_steps 1
-> ``SerialSampler`` ``batch_T=1, batch_B=1`` and ``replay_ratio = batch_size`` (one update
of ``batch_size`` per env step); net_arch -> ``hidden_sizes`` of the policy and Q models.
SAC: ent_coef "auto" with target entropy -dim(A) -> ``target_entropy="auto"``, learned alpha.
TD3: policy_delay 2 -> ``policy_update_interval`` and ``target_update_interval`` 2 updates;
target_policy_noise 0.2, target_noise_clip 0.5 -> ``target_noise_std``,
``target_noise_clip``; NormalActionNoise(0.1) -> ``action_std`` 0.1 (both in units of the
action bound: SB3 acts in [-1, 1] and rescales, our agents scale by the bound, 2 on
Pendulum). SB3 acts uniformly at random before learning_starts; ours samples its policy with
``pretrain_std`` (the configs say which value and why). RL-Zoo trains its TD3 on Pendulum once
per episode (train_freq [1, "episode"], gradient_steps -1: 200 updates after each 200-step
episode); both sides here update once per env step instead, the same number of updates on
a finer schedule, as the Pendulum TD3 config does.

Expected full run time with the defaults on a 2-core CPU (``--threads 2``): (a) about 4
minutes; (b) about 35 minutes (20 runs, most stop well before their caps); (c) about 75
minutes (12 runs of 50,000 steps, 40,000 updates each, at roughly 100-250 updates/s on
HalfCheetah). Everything about 2 hours; ``--parts``/``--algos`` split it. Run it on an
otherwise idle machine: torch threads that share cores with other processes slow both sides
by orders of magnitude. Smoke run of every path (about a minute with ``--threads 1``)::

    python benchmarks/qpg_speed.py --threads 1 --seconds 1 --warmup 0.3 --repeats 1
        --learning-starts 300 --seeds 1 --sac-cap 1000 --td3-cap 1000 --solved -1400
        --cheetah-steps 1100 --cheetah-learning-starts 1000 --cheetah-seeds 1

Usage (SB3 and MuJoCo are benchmark-only dependencies: ``pip install stable-baselines3
"gymnasium[mujoco]"``)::

    python benchmarks/qpg_speed.py [--parts a b c] [--algos sac td3] [--seconds 10]
        [--repeats 3] [--seeds 5] [--threads 0] [--cheetah-steps 50000] [--cheetah-seeds 3]
        [--device cpu|cuda]

``--device cuda`` puts every side of (a) on the GPU (the bare update under
``torch.device``, ours through the runner's ``cuda_idx``, SB3's ``device``); the clocks stop
after ``torch.cuda.synchronize``. (b) and (c) stay on the CPU.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import platform
import statistics
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
from _learning import (  # benchmarks/_learning.py: shared with dqn_speed.py
    ClockedEvalRl,
    SolveClock,
    cuda_idx_of,
    eval_interval_steps,
    fmt,
    median_reached,
    print_rates,
    print_ratio,
    run_as_peer,
    runner_affinity,
    set_denormal_flush,
    set_peer_threads,
    short,
    timed_calls,
)

from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger

PENDULUM, CHEETAH = "Pendulum-v1", "HalfCheetah-v5"
PENDULUM_SOLVED = -200.0
EVAL_EPISODES = 10
BATCH_SIZE = 256
# (c) evaluates 10 episodes (the HalfCheetah configs log 5): 5 envs x 2 episodes of 1000 steps.
CHEETAH_EVALUATION = dict(eval_n_envs=5, eval_max_steps=10_000, eval_max_trajectories=10)

# Where our side comes from: (config module, key) per algorithm and env.
PENDULUM_CONFIGS = {
    "sac": ("rlpyt.experiments.configs.classic.qpg.pendulum_sac", "sac"),
    "td3": ("rlpyt.experiments.configs.classic.qpg.pendulum_td3", "td3"),
}
CHEETAH_CONFIGS = {
    "sac": ("rlpyt.experiments.configs.mujoco.qpg.mujoco_sac", "sac_halfcheetah_zoo"),
    "td3": ("rlpyt.experiments.configs.mujoco.qpg.mujoco_td3", "td3_halfcheetah_zoo"),
}

# RL-Zoo's settings (rl-baselines3-zoo hyperparams/sac.yml, td3.yml) written out, SB3's
# defaults included where the Zoo keeps them; "noise_std" becomes a NormalActionNoise.
SB3_PENDULUM: dict[str, dict[str, Any]] = {
    "sac": dict(
        learning_rate=1e-3,
        buffer_size=1_000_000,
        learning_starts=100,
        batch_size=256,
        tau=0.005,
        gamma=0.99,
        train_freq=1,
        gradient_steps=1,
        ent_coef="auto",
        target_entropy="auto",
        policy_kwargs=dict(net_arch=[256, 256]),
    ),
    "td3": dict(
        learning_rate=1e-3,
        buffer_size=200_000,
        learning_starts=10_000,
        batch_size=256,
        tau=0.005,
        gamma=0.98,
        train_freq=1,
        gradient_steps=1,
        policy_delay=2,
        target_policy_noise=0.2,
        target_noise_clip=0.5,
        noise_std=0.1,
        policy_kwargs=dict(net_arch=[400, 300]),
    ),
}
SB3_CHEETAH: dict[str, dict[str, Any]] = {
    "sac": dict(
        learning_rate=3e-4,
        buffer_size=1_000_000,
        learning_starts=10_000,
        batch_size=256,
        tau=0.005,
        gamma=0.99,
        train_freq=1,
        gradient_steps=1,
        ent_coef="auto",
        target_entropy="auto",
        policy_kwargs=dict(net_arch=[256, 256]),
    ),
    "td3": dict(
        learning_rate=1e-3,
        buffer_size=1_000_000,
        learning_starts=10_000,
        batch_size=256,
        tau=0.005,
        gamma=0.99,
        train_freq=1,
        gradient_steps=1,
        policy_delay=2,
        target_policy_noise=0.2,
        target_noise_clip=0.5,
        noise_std=0.1,
        policy_kwargs=dict(net_arch=[400, 300]),
    ),
}


# -- our side -----------------------------------------------------------------------------------


def load_config(where: tuple[str, str]) -> dict:
    """A deep copy of ``configs[key]`` from a config module (safe to edit)."""
    module, key = where
    return copy.deepcopy(importlib.import_module(module).configs[key])


def agent_and_algo_classes(algo_name: str) -> tuple[type, type]:
    """``(AgentCls, AlgoCls)``: ``(SacAgent, SAC)`` or ``(Td3Agent, TD3)``."""
    if algo_name == "sac":
        from rlpyt.agents.qpg.sac_agent import SacAgent
        from rlpyt.algos.qpg.sac import SAC

        return SacAgent, SAC
    from rlpyt.agents.qpg.td3_agent import Td3Agent
    from rlpyt.algos.qpg.td3 import TD3

    return Td3Agent, TD3


def build_parts(algo_name: str, config: dict, evaluation: dict[str, int] | None) -> dict[str, Any]:
    """The runner's ``algo``, ``agent`` and ``sampler`` from a config, as the train scripts do.

    Args:
        algo_name: "sac" or "td3".
        config: An rlpyt-shaped QPG config (``agent``, ``algo``, ``env``, ``eval_env``,
            ``optim``, ``sampler``).
        evaluation: The sampler's ``eval_*`` keywords, replacing the config's (an empty dict
            keeps the config's; None: a sampler without evaluation envs).
    """
    AgentCls, AlgoCls = agent_and_algo_classes(algo_name)  # noqa: N806
    sampler_kwargs = {k: v for k, v in config["sampler"].items() if not k.startswith("eval_")}
    if evaluation is not None:
        evaluation = evaluation or {
            k: v for k, v in config["sampler"].items() if k.startswith("eval_")
        }
        sampler_kwargs.update(evaluation, eval_env_kwargs=config["eval_env"])
    return dict(
        algo=AlgoCls(optim_kwargs=config["optim"] or None, **config["algo"]),
        agent=AgentCls(**config["agent"]),
        sampler=SerialSampler(EnvCls=gym_make, env_kwargs=config["env"], **sampler_kwargs),
    )


class FinalEvalRl(ClockedEvalRl):
    """``ClockedEvalRl`` without the evaluation before training (only the final one counts)."""

    def evaluate_before_training(self) -> Any:  # Any: MinibatchRlEval narrowed it to a Row
        """No evaluation before training: returns None (no row)."""
        return None


class PendulumLoop:
    """A started ``MinibatchRl`` on Pendulum-v1, one env step and one update per iteration."""

    def __init__(self, algo_name: str, learning_starts: int, device: str = "cpu"):
        config = load_config(PENDULUM_CONFIGS[algo_name])
        config["algo"].update(min_steps_learn=learning_starts)
        config["algo"]["replay_ratio"] = config["algo"]["batch_size"]
        self.runner = MinibatchRl(
            **build_parts(algo_name, config, evaluation=None),
            n_steps=1e12,
            log_interval_steps=1e12,
            seed=0,
            affinity=runner_affinity(cuda_idx=cuda_idx_of(device)),
        )
        self.runner.startup()
        # SAC or TD3: updates_per_optimize, min_itr_learn and batch_size are theirs.
        self.algo = cast(Any, self.runner.algo)
        batch = self.runner.sampler.batch_spec.size
        if batch != 1 or self.algo.updates_per_optimize != 1:
            raise RuntimeError(
                f"(a) expects 1 env step and 1 update per iteration, got {batch} steps and "
                f"{self.algo.updates_per_optimize} updates: check the Pendulum config"
            )
        if self.algo.batch_size != BATCH_SIZE:
            raise RuntimeError(f"(a) expects batch {BATCH_SIZE}, got {self.algo.batch_size}")
        self.itr = 0

    def iteration(self) -> None:
        traj_infos, opt_info = self.runner.sample_and_optimize(self.itr)
        self.runner.store_diagnostics(self.itr, traj_infos, opt_info)
        self.itr += 1

    def updates_per_second(self, seconds: float, warmup: float) -> float:
        """Updates/s of whole iterations over ``seconds``, ``warmup`` s after learning starts."""
        while self.itr < self.algo.min_itr_learn:
            self.iteration()
        end = time.perf_counter() + warmup
        while time.perf_counter() < end:
            self.iteration()
        itr0, start = self.itr, time.perf_counter()
        while time.perf_counter() - start < seconds:
            self.iteration()
        elapsed = time.perf_counter() - start
        return (self.itr - itr0) * self.algo.updates_per_optimize / elapsed

    def close(self) -> None:
        self.runner.shutdown()


def ours_rate(algo_name: str, args: argparse.Namespace) -> float:
    """A fresh run of ours on Pendulum-v1: updates/s after learning starts."""
    loop = PendulumLoop(algo_name, args.learning_starts, args.device)
    try:
        return loop.updates_per_second(args.seconds, args.warmup)
    finally:
        loop.close()


def ours_pendulum(algo_name: str, seed: int, cap: int, solved: float) -> SolveClock:
    """Our run from the Pendulum config until an evaluation averages >= ``solved`` (or ``cap``)."""
    config = load_config(PENDULUM_CONFIGS[algo_name])
    runner = ClockedEvalRl(
        **build_parts(algo_name, config, evaluation={}),
        n_steps=cap,
        log_interval_steps=config["runner"]["log_interval_steps"],
        seed=seed,
        solved=solved,
    )
    for _row in runner.iter_train():
        if runner.clock.reached is not None:
            break
    return runner.clock


def ours_cheetah(
    algo_name: str, seed: int, steps: int, learning_starts: int | None
) -> tuple[float | None, float]:
    """Our HalfCheetah run of ``steps`` env steps: (final evaluation mean, training seconds).

    The mean is None when the config's evaluation did not run at the end (training shorter
    than learning starts).
    """
    config = load_config(CHEETAH_CONFIGS[algo_name])
    if learning_starts is not None:
        config["algo"]["min_steps_learn"] = learning_starts
    runner = FinalEvalRl(
        **build_parts(algo_name, config, evaluation=CHEETAH_EVALUATION),
        n_steps=steps,
        log_interval_steps=steps,
        seed=seed,
        solved=float("inf"),
    )
    for _row in runner.iter_train():
        pass
    clock = runner.clock
    if clock.evaluations and runner.eval_trajectories != EVAL_EPISODES:
        raise RuntimeError(
            f"(c) our final evaluation ran {runner.eval_trajectories} episodes, not "
            f"{EVAL_EPISODES}: check CHEETAH_EVALUATION"
        )
    if not clock.evaluations:  # ended before learning started: no evaluation, time to the end
        return None, time.perf_counter() - clock.start - clock.eval_seconds
    return clock.evaluations[-1][1], clock.train_seconds


# -- Stable-Baselines3 --------------------------------------------------------------------------


def make_sb3(
    algo_name: str, env_id: str, settings: dict[str, Any], seed: int, device: str = "cpu"
) -> Any:
    """SB3's ``SAC`` or ``TD3("MlpPolicy")`` on one ``env_id`` env with ``settings``."""
    import stable_baselines3 as sb3
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.noise import NormalActionNoise

    env = make_vec_env(env_id, n_envs=1, seed=seed)
    kwargs = dict(settings)
    if "noise_std" in kwargs:
        size = env.action_space.shape[-1]
        kwargs["action_noise"] = NormalActionNoise(
            mean=np.zeros(size), sigma=kwargs.pop("noise_std") * np.ones(size)
        )
    AlgoCls = sb3.SAC if algo_name == "sac" else sb3.TD3  # noqa: N806
    return AlgoCls("MlpPolicy", env, seed=seed, device=device, **kwargs)


def sb3_rate(algo_name: str, args: argparse.Namespace) -> float:
    """SB3's updates/s on Pendulum-v1, ``--warmup`` s after learning starts."""
    run_as_peer()  # SB3 as it runs alone
    from stable_baselines3.common.callbacks import BaseCallback

    settings = dict(SB3_PENDULUM[algo_name], learning_starts=args.learning_starts)
    model = make_sb3(algo_name, PENDULUM, settings, seed=0, device=args.device)
    window: dict[str, float] = {}

    class Window(BaseCallback):
        def _on_step(self) -> bool:
            now = time.perf_counter()
            if "start" not in window:
                if "learn" not in window and self.num_timesteps >= args.learning_starts:
                    window["learn"] = now
                if "learn" in window and now - window["learn"] >= args.warmup:
                    window["start"], window["updates"] = now, self.model._n_updates
                return True
            if now - window["start"] < args.seconds:
                return True
            window["rate"] = (self.model._n_updates - window["updates"]) / (now - window["start"])
            return False

    model.learn(total_timesteps=10**9, callback=Window())
    return window["rate"]


def sb3_pendulum(algo_name: str, seed: int, cap: int, eval_every: int, solved: float) -> SolveClock:
    """SB3 with RL-Zoo's Pendulum-v1 settings until an evaluation averages >= ``solved``."""
    run_as_peer()  # SB3 as it runs alone
    import gymnasium as gym
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    model = make_sb3(algo_name, PENDULUM, SB3_PENDULUM[algo_name], seed)
    eval_env = Monitor(gym.make(PENDULUM))
    eval_env.reset(seed=10_000 + seed)
    clock = SolveClock(solved)

    class Evaluate(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps % eval_every:
                return True
            t0 = time.perf_counter()
            mean, _ = evaluate_policy(
                self.model, eval_env, n_eval_episodes=EVAL_EPISODES, deterministic=True
            )
            return not clock.evaluation(self.num_timesteps, float(mean), time.perf_counter() - t0)

    clock.start = time.perf_counter()
    model.learn(total_timesteps=cap, callback=Evaluate())
    return clock


def sb3_cheetah(
    algo_name: str, seed: int, steps: int, learning_starts: int | None
) -> tuple[float, float]:
    """SB3 with RL-Zoo's MuJoCo settings for ``steps``: (final evaluation mean, seconds)."""
    run_as_peer()  # SB3 as it runs alone
    import gymnasium as gym
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    settings = dict(SB3_CHEETAH[algo_name])
    if learning_starts is not None:
        settings["learning_starts"] = learning_starts
    model = make_sb3(algo_name, CHEETAH, settings, seed)
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    seconds = time.perf_counter() - start
    eval_env = Monitor(gym.make(CHEETAH))
    eval_env.reset(seed=10_000 + seed)
    mean, _ = evaluate_policy(model, eval_env, n_eval_episodes=EVAL_EPISODES, deterministic=True)
    return float(mean), seconds


# -- the parts ----------------------------------------------------------------------------------


# -- the bare-update ceiling ----------------------------------------------------------------------


def mlp(sizes: list[int], out_act: type[torch.nn.Module] | None = None) -> torch.nn.Sequential:
    """``Linear``/``ReLU`` layers over ``sizes``; after the last one only ``out_act``, if any."""
    layers: list[torch.nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    if out_act is not None:
        layers.append(out_act())
    return torch.nn.Sequential(*layers)


def polyak(target: torch.nn.Module, source: torch.nn.Module, tau: float) -> None:
    with torch.no_grad():
        for t, p in zip(target.parameters(), source.parameters(), strict=True):
            t.mul_(1 - tau).add_(p, alpha=tau)


class BareBatch:
    """A fixed Pendulum-shaped batch of 256 and the twin Qs with their targets (``hidden``)."""

    def __init__(self, hidden: list[int]):
        obs_dim, self.act_dim, batch = 3, 1, BATCH_SIZE
        gen = torch.Generator(device=torch.get_default_device()).manual_seed(0)
        self.obs = torch.randn(batch, obs_dim, generator=gen)
        self.next_obs = torch.randn(batch, obs_dim, generator=gen)
        self.action = torch.rand(batch, self.act_dim, generator=gen) * 4 - 2
        self.reward = torch.randn(batch, generator=gen)
        self.not_done = torch.ones(batch)
        self.q1, self.q2 = (mlp([obs_dim + self.act_dim, *hidden, 1]) for _ in range(2))
        self.tq1, self.tq2 = copy.deepcopy(self.q1), copy.deepcopy(self.q2)
        params = [*self.q1.parameters(), *self.q2.parameters()]
        self.q_opt = torch.optim.Adam(params, lr=1e-3)

    def twin(self, target: bool, obs: torch.Tensor, action: torch.Tensor) -> tuple[Any, Any]:
        x = torch.cat([obs, action], dim=-1)
        n1, n2 = (self.tq1, self.tq2) if target else (self.q1, self.q2)
        return n1(x).squeeze(-1), n2(x).squeeze(-1)

    def q_step(self, y: torch.Tensor) -> None:
        c1, c2 = self.twin(False, self.obs, self.action)
        q_loss = 0.5 * ((c1 - y) ** 2).mean() + 0.5 * ((c2 - y) ** 2).mean()
        self.q_opt.zero_grad()
        q_loss.backward()
        self.q_opt.step()


def bare_sac_update() -> Any:
    """Plain PyTorch SAC on one fixed batch: 256x256 policy, twin Qs, targets, learned alpha.

    The networks of the Pendulum config, the textbook losses, one default ``Adam`` per network
    and for log alpha, Polyak targets; no replay, no env, no logging: the work per update of any
    implementation (the ceiling of part (a)).
    """
    b = BareBatch([256, 256])
    pi = mlp([3, 256, 256, 2 * b.act_dim])
    pi_opt = torch.optim.Adam(pi.parameters(), lr=1e-3)
    log_alpha = torch.zeros(1, requires_grad=True)
    alpha_opt = torch.optim.Adam([log_alpha], lr=1e-3)

    def sample(o: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mean, log_std = pi(o).chunk(2, dim=-1)
        std = log_std.clamp(-20, 2).exp()
        u = mean + std * torch.randn_like(mean)
        logp = (-0.5 * ((u - mean) / std) ** 2 - std.log() - 0.9189385).sum(-1)
        logp = logp - (2 * (0.6931472 - u - torch.nn.functional.softplus(-2 * u))).sum(-1)
        return 2 * torch.tanh(u), logp

    def update() -> None:
        alpha = log_alpha.detach().exp()
        with torch.no_grad():
            next_a, next_logp = sample(b.next_obs)
            t1, t2 = b.twin(True, b.next_obs, next_a)
            y = b.reward + 0.99 * b.not_done * (torch.min(t1, t2) - alpha * next_logp)
        b.q_step(y)
        new_a, logp = sample(b.obs)
        n1, n2 = b.twin(False, b.obs, new_a)
        pi_loss = (alpha * logp - torch.min(n1, n2)).mean()
        pi_opt.zero_grad()
        pi_loss.backward()
        pi_opt.step()
        alpha_loss = -(log_alpha * (logp.detach() - b.act_dim)).mean()
        alpha_opt.zero_grad()
        alpha_loss.backward()
        alpha_opt.step()
        polyak(b.tq1, b.q1, 0.005)
        polyak(b.tq2, b.q2, 0.005)

    return update


def bare_td3_update() -> Any:
    """Plain PyTorch TD3 on one fixed batch: 400x300 actor, twin Qs, three targets.

    As :func:`bare_sac_update`: target smoothing noise, clipped double Q, the actor and the
    targets updated every second call.
    """
    b = BareBatch([400, 300])
    mu = mlp([3, 400, 300, b.act_dim], torch.nn.Tanh)
    tmu = copy.deepcopy(mu)
    mu_opt = torch.optim.Adam(mu.parameters(), lr=1e-3)
    count = [0]

    def update() -> None:
        with torch.no_grad():
            noise = (0.4 * torch.randn(BATCH_SIZE, b.act_dim)).clamp(-1.0, 1.0)
            next_a = (2 * tmu(b.next_obs) + noise).clamp(-2, 2)
            t1, t2 = b.twin(True, b.next_obs, next_a)
            y = b.reward + 0.98 * b.not_done * torch.min(t1, t2)
        b.q_step(y)
        count[0] += 1
        if count[0] % 2 == 0:
            mu_loss = -b.q1(torch.cat([b.obs, 2 * mu(b.obs)], dim=-1)).mean()
            mu_opt.zero_grad()
            mu_loss.backward()
            mu_opt.step()
            polyak(tmu, mu, 0.005)
            polyak(b.tq1, b.q1, 0.005)
            polyak(b.tq2, b.q2, 0.005)

    return update


def bare_rate(algo_name: str, args: argparse.Namespace) -> float:
    """Updates/s of the bare update of ``algo_name`` (the ceiling of part (a))."""
    set_denormal_flush(True)  # as ours
    # Factory calls without a device (models, the batch, the update's noise) land on it.
    with torch.device(args.device):
        update = bare_sac_update() if algo_name == "sac" else bare_td3_update()
        calls, seconds = timed_calls(update, args.seconds, args.warmup, args.device)
    return calls / seconds


def part_a(args: argparse.Namespace) -> None:
    for algo_name in args.algos:
        name = algo_name.upper()
        rates: dict[str, list[float]] = {
            f"bare {name} update": [],
            f"ours {name}": [],
            f"SB3 {name}": [],
        }
        for repeat in range(args.repeats):
            rates[f"bare {name} update"].append(bare_rate(algo_name, args))
            rates[f"ours {name}"].append(ours_rate(algo_name, args))
            rates[f"SB3 {name}"].append(sb3_rate(algo_name, args))
            print(f"  (a) {name} repeat {repeat}: " + short(rates), flush=True)
        print_rates(
            f"(a) {name} on {PENDULUM}, training phase, batch {BATCH_SIZE}, updates/s "
            "(1 per env step)",
            rates,
        )
        medians = {k: statistics.median(v) for k, v in rates.items()}
        print_ratio(
            f"{name} ours / SB3 (target >= 1.5)", medians[f"ours {name}"], medians[f"SB3 {name}"]
        )
        print_ratio(
            f"{name} bare update / SB3 (the ceiling's ratio)",
            medians[f"bare {name} update"],
            medians[f"SB3 {name}"],
        )
        print_ratio(
            f"{name} ours / bare update", medians[f"ours {name}"], medians[f"bare {name} update"]
        )


def print_curves(label: str, clocks: dict[str, list[SolveClock]]) -> None:
    """The latest run's evaluations of each side, ``<k steps>:<mean return>``."""
    for name, runs in clocks.items():
        curve = " ".join(f"{steps / 1000:.0f}k:{mean:.0f}" for steps, mean in runs[-1].evaluations)
        print(f"  {label} {name}: evaluations {curve}", flush=True)


def part_b(args: argparse.Namespace) -> None:
    for algo_name in args.algos:
        name = algo_name.upper()
        eval_every = eval_interval_steps(load_config(PENDULUM_CONFIGS[algo_name]))
        cap_arg = args.sac_cap if algo_name == "sac" else args.td3_cap
        cap = max(cap_arg // eval_every, 1) * eval_every  # both end on an evaluation
        print(f"(b) {name} {PENDULUM}, evaluations every {eval_every} env steps, cap {cap:,}")
        clocks: dict[str, list[SolveClock]] = {"ours": [], "SB3": []}
        for seed in range(args.seeds):
            clocks["ours"].append(ours_pendulum(algo_name, seed, cap, args.solved))
            clocks["SB3"].append(sb3_pendulum(algo_name, seed, cap, eval_every, args.solved))
            print_curves(f"(b) {name} seed {seed}", clocks)
        print(
            f"\n== (b) {name} {PENDULUM} to an evaluation mean >= {args.solved:g}, "
            f"{args.seeds} seeds =="
        )
        print(
            f"{'':8s}{'steps (median)':>16s}{'s (median)':>12s}{'reached':>9s}  per seed (steps, s)"
        )
        summary = {}
        for side, runs in clocks.items():
            steps = median_reached([c.reached[0] if c.reached else None for c in runs])
            seconds = median_reached([c.reached[1] if c.reached else None for c in runs])
            summary[side] = (steps, seconds)
            per_seed = ", ".join(
                f"{c.reached[0]:,}/{c.reached[1]:.1f}" if c.reached else "-" for c in runs
            )
            n_reached = sum(c.reached is not None for c in runs)
            print(
                f"{side:8s}{fmt(steps):>16s}{fmt(seconds, '.1f'):>12s}"
                f"{n_reached:>6d}/{len(runs)}  {per_seed}"
            )
        (ours_steps, ours_s), (sb3_steps, sb3_s) = summary["ours"], summary["SB3"]
        print_ratio(f"{name} steps ours / SB3 (target <= 1)", ours_steps, sb3_steps)
        print_ratio(f"{name} wall s ours / SB3 (info)", ours_s, sb3_s)


def fmt_return(value: float | None, spec: str = ".1f") -> str:
    """A return formatted with ``spec``, or "no eval" (training ended before learning)."""
    return "no eval" if value is None else format(value, spec)


def part_c(args: argparse.Namespace) -> None:
    steps, starts = args.cheetah_steps, args.cheetah_learning_starts
    for algo_name in args.algos:
        name = algo_name.upper()
        print(f"(c) {name} {CHEETAH}, {steps:,} env steps, final evaluation of 10 episodes")
        returns: dict[str, list[float | None]] = {"ours": [], "SB3": []}
        seconds: dict[str, list[float]] = {"ours": [], "SB3": []}
        for seed in range(args.cheetah_seeds):
            for side, run in (("ours", ours_cheetah), ("SB3", sb3_cheetah)):
                mean, wall = run(algo_name, seed, steps, starts)
                returns[side].append(mean)
                seconds[side].append(wall)
                print(f"  (c) {name} seed {seed} {side}: return {fmt_return(mean)}, {wall:.1f} s")
        print(f"\n== (c) {name} {CHEETAH} after {steps:,} env steps, {args.cheetah_seeds} seeds ==")
        print(f"{'':8s}{'return (median)':>16s}{'s (median)':>12s}  per seed (return, s)")
        medians = {}
        for side, side_returns in returns.items():
            finished = [r for r in side_returns if r is not None]
            medians[side] = statistics.median(finished) if finished else None
            pairs = zip(side_returns, seconds[side], strict=True)
            per_seed = ", ".join(f"{fmt_return(r)}/{s:.1f}" for r, s in pairs)
            wall = statistics.median(seconds[side])
            print(f"{side:8s}{fmt_return(medians[side]):>16s}{wall:>12.1f}  {per_seed}")
        ours_return, sb3_return = medians["ours"], medians["SB3"]
        positive = ours_return is not None and sb3_return is not None and sb3_return > 0
        print_ratio(
            f"{name} return ours / SB3 (target >= 1; SB3's > 0 only)",
            ours_return if positive else None,
            sb3_return,
        )
        difference = None if ours_return is None or sb3_return is None else ours_return - sb3_return
        print(f"{f'{name} return ours - SB3 (target >= 0)':56s} {fmt_return(difference, '+.1f')}")
        print_ratio(
            f"{name} wall s ours / SB3 (info)",
            statistics.median(seconds["ours"]),
            statistics.median(seconds["SB3"]),
        )


# -- the header ---------------------------------------------------------------------------------


def versions() -> str:
    """Python, the packages both sides use, and this checkout's commit."""
    names = ("torch", "numpy", "gymnasium", "stable_baselines3", "mujoco")
    found = []
    for package in names:
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package} (not installed)")
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return f"Python {platform.python_version()}, " + ", ".join(found) + f"; rlpyt {commit}"


def print_settings(args: argparse.Namespace) -> None:
    """Every setting of the run: the arguments, our configs, SB3's keywords."""
    print(versions())
    print(f"torch threads: {torch.get_num_threads()}; arguments: {vars(args)}")
    tables = {"a": [("Pendulum", PENDULUM_CONFIGS, SB3_PENDULUM)]}
    tables["b"] = tables["a"]
    tables["c"] = [("HalfCheetah", CHEETAH_CONFIGS, SB3_CHEETAH)]
    shown = set()
    for part in args.parts:
        for env_name, ours, sb3 in tables[part]:
            for algo_name in args.algos:
                if (env_name, algo_name) in shown:
                    continue
                shown.add((env_name, algo_name))
                module, key = ours[algo_name]
                config = load_config(ours[algo_name])
                print(f"{env_name} {algo_name.upper()} ours: {module}.configs[{key!r}]")
                for section in sorted(config):
                    print(f"    {section}: {config[section]}")
                print(f"{env_name} {algo_name.upper()} SB3: {sb3[algo_name]}")
    if "a" in args.parts:
        print(
            f"(a) on both sides: learning starts {args.learning_starts} (min_steps_learn), one "
            "update per env step (ours: replay_ratio = batch_size), no evaluation"
        )
    if "c" in args.parts:
        print(f"(c) our evaluation: {CHEETAH_EVALUATION}")
    if "c" in args.parts and args.cheetah_learning_starts is not None:
        print(f"(c) learning starts overridden on both sides: {args.cheetah_learning_starts}")
    print(flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--parts", nargs="+", default=["a", "b", "c"], choices="abc")
    parser.add_argument("--algos", nargs="+", default=["sac", "td3"], choices=["sac", "td3"])
    parser.add_argument("--seconds", type=float, default=10.0, help="(a) timed window per repeat")
    parser.add_argument("--warmup", type=float, default=2.0, help="(a) untimed seconds first")
    parser.add_argument("--repeats", type=int, default=3, help="(a) fresh runs of each side")
    parser.add_argument("--learning-starts", type=int, default=1000, help="(a) env steps")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument(
        "--device", default="cpu", help="(a): cpu, cuda or cuda:N for every side's updates"
    )
    parser.add_argument("--seeds", type=int, default=5, help="(b) seeds")
    parser.add_argument(
        "--solved", type=float, default=PENDULUM_SOLVED, help="(b) threshold (-200)"
    )
    parser.add_argument("--sac-cap", type=int, default=20_000, help="(b) SAC env-step cap")
    parser.add_argument("--td3-cap", type=int, default=30_000, help="(b) TD3 env-step cap")
    parser.add_argument("--cheetah-steps", type=int, default=50_000, help="(c) env steps")
    parser.add_argument("--cheetah-seeds", type=int, default=3, help="(c) seeds")
    parser.add_argument(
        "--cheetah-learning-starts",
        type=int,
        default=None,
        help="(c) override the 10,000 learning starts on both sides (smoke runs only)",
    )
    args = parser.parse_args()
    if args.threads:
        set_peer_threads(args.threads)
    logger.disable()
    print_settings(args)
    parts = dict(a=part_a, b=part_b, c=part_c)
    for name in args.parts:
        parts[name](args)
    print(f"\ntorch threads at the end: {torch.get_num_threads()}")


if __name__ == "__main__":
    main()
