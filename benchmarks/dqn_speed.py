"""DQN speed and memory: rlpyt's DQN against the bare model and Stable-Baselines3, one run.

Box: benchmarks (never part of the test suite). Peers are measured in the same process, their
repeats interleaved with ours, and the tables give medians [min-max] and the ratios ours / peer.
Every side uses the same torch intra-op thread count (``--threads``, 0: torch's default),
printed at the top.

(a) DQN on Pong (``AtariEnv("pong")``, ``AtariDqnModel``, batch 32):
    - bare-model ceiling: a plain loop over the same ``AtariDqnModel`` on one fixed batch of 32
      observations (forward, Huber loss on Q(s, a) against fixed targets, backward, default
      ``torch.optim.Adam`` step); for information the same plus a target-network forward.
    - our optimization: ``DQN.optimize_agent`` on a replay filled with ``--fill`` real Pong
      steps, in its training phase (replay sampling, forward, target, loss, backward, Adam
      step, gradient clipping, target sync every 250 updates, OptInfo), one update per call
      as in the whole loop; no new samples are appended during the timed window.
    - the whole loop: ``MinibatchRl``'s iteration (``SerialSampler``, 1 env, ``batch_T=4``,
      ``replay_ratio=8`` = one update of 32 per 4 env steps, SB3's ``train_freq=4``) after
      learning started, in env steps/s and updates/s.
(b) Against SB3's DQN on the same ``AtariEnv`` (the thin gymnasium adapter of
    ``sampler_throughput.py``; its frame stack, so both do identical env work), both in the
    training phase: learning starts after ``--learning-starts`` env steps (1000), buffer
    ``--replay-size`` (SB3 with ``optimize_memory_usage=True``), batch 32, one update per 4
    env steps, target copy every 250 updates (SB3: 1000 env steps), epsilon at its final 0.01
    from the start of learning in both (SB3 skips the Q forward on exploratory steps, so equal
    epsilons mean equal forward work). SB3's Q-network gets the same layers as
    ``AtariDqnModel`` (conv paddings 0, 1, 1 and a 6912 -> 512 -> 6 head) through a features
    extractor; ``--sb3-nature`` adds a row with SB3's default NatureCNN (information).
    Both clocks start ``--warmup`` seconds after learning starts; updates/s of each and the
    ratio ours / SB3.
(c) CartPole-v1 with RL-Zoo's DQN hyperparameters, ours from
    ``rlpyt.experiments.configs.classic.dqn.cartpole_dqn.configs["dqn"]`` (``MinibatchRlEval``,
    ``SerialSampler``, ``ClassicDqnAgent``), SB3's ``DQN("MlpPolicy")`` with the Zoo values,
    seeds interleaved: env steps and wall seconds (evaluation time excluded, clocks started
    after construction) until a periodic evaluation of 10 episodes averages >= 475 (ours:
    the config's evaluation, 5 envs x 2 episodes with ``eps_eval`` 0.001; SB3:
    ``evaluate_policy`` deterministic on one env), both evaluating every
    ``(5000 // 256) * 256 = 4864`` env steps; cap ``--cap`` steps rounded down to whole
    evaluation intervals (145,920 by default); a seed that never gets there counts as
    infinitely late in the medians. How SB3's settings map to the config's (SB3 -> ours):
    learning_rate 2.3e-3, batch_size 64, buffer_size 100k, learning_starts 1000, gamma 0.99
    -> ``learning_rate``, ``batch_size``, ``replay_size``, ``min_steps_learn``,
    ``discount``; train_freq 256 env steps with gradient_steps 128 -> batches of 32 steps x
    8 envs with ``replay_ratio`` 32 (128 updates of 64 per batch); target_update_interval 10
    env steps (a copy during each collection round) -> ``target_update_interval`` 128
    updates (a copy after each batch's last update: the same network at the same point);
    exploration 1 -> 0.04 over 16% of the Zoo's 50k steps -> ``eps_final`` 0.04,
    ``eps_steps`` 8000 (SB3 gets ``exploration_fraction = 8000 / cap`` so that the cap does
    not stretch it); net_arch [256, 256] -> ``hidden_sizes``; SB3's Huber loss,
    max_grad_norm 10, tau 1 and Adam eps 1e-8 -> ``delta_clip`` 1, ``clip_grad_norm`` 10,
    ``target_update_tau`` 1, ``optim.eps``.
(d) The allocated size of a 1,000,000-transition frame replay for ``AtariEnv``'s
    ``[4, 104, 80]`` observations, built by ``DQN.make_replay_buffer`` exactly as training
    builds it (B=1 and the Atari config's B=16), summed over the distinct memory of its arrays;
    the pages are never touched (the RSS growth is printed to show it), against one frame per
    transition plus the small fields, whole observations and SB3's optimized layout.

``--device cuda`` puts every side of (a) and (b) on the GPU (the bare model and its batch,
our agent through the runner's ``cuda_idx``, SB3's ``device``); the clocks stop after
``torch.cuda.synchronize``. (c) and (d) stay on the CPU.

Usage (SB3 is a benchmark-only dependency, ``pip install stable-baselines3``)::

    python benchmarks/dqn_speed.py [--parts a b c d] [--seconds 10] [--repeats 3]
        [--seeds 5] [--threads 0] [--cap 150000] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from _learning import (  # benchmarks/_learning.py: shared with qpg_speed.py
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
from torch import nn

from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.atari.atari_env import AtariEnv
from rlpyt.models.dqn.atari_dqn_model import AtariDqnModel
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.collections import BatchSpec
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger

GAME, BATCH_SIZE, N_ACTIONS = "pong", 32, 6
IMAGE_SHAPE = (4, 104, 80)
TARGET_UPDATE_UPDATES = 250  # SB3: target_update_interval=1000 env steps at train_freq 4
TRAIN_FREQ = 4  # env steps per update (rlpyt: batch_T=4, replay_ratio=8, batch_size=32)
FINAL_EPS = 0.01
SOLVED = 475.0
EVAL_EPISODES = 10
REPLAY_1M = 1_000_000


# -- (a) the bare model -------------------------------------------------------------------------


def bare_model_rate(
    seconds: float, warmup: float, with_target: bool = False, device: str = "cpu"
) -> float:
    """Updates/s of plain torch code on the same model and one fixed batch of 32.

    Forward, Huber loss on Q(s, a) against fixed targets, backward, ``torch.optim.Adam`` step
    (torch's defaults), as a user would write it; ``with_target`` adds the target network's
    forward on the next observations (no gradients), which any DQN update also needs. The
    models and the batch live on ``device``.
    """
    set_denormal_flush(True)  # as ours
    torch.manual_seed(0)
    model = AtariDqnModel(image_shape=IMAGE_SHAPE, output_size=N_ACTIONS).to(device)
    target_model = AtariDqnModel(image_shape=IMAGE_SHAPE, output_size=N_ACTIONS).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=2.5e-4)
    generator = torch.Generator().manual_seed(0)
    observation = torch.randint(0, 256, (BATCH_SIZE, *IMAGE_SHAPE), dtype=torch.uint8)
    next_observation = torch.randint(0, 256, (BATCH_SIZE, *IMAGE_SHAPE), dtype=torch.uint8)
    action = torch.randint(0, N_ACTIONS, (BATCH_SIZE,), generator=generator)
    y = torch.randn(BATCH_SIZE, generator=generator)
    unused = torch.zeros(BATCH_SIZE)
    observation, next_observation, action, y, unused = (
        x.to(device) for x in (observation, next_observation, action, y, unused)
    )

    def update() -> None:
        if with_target:
            with torch.no_grad():
                target_model(next_observation, unused, unused).max(dim=-1)
        q = model(observation, unused, unused).gather(1, action[:, None]).squeeze(1)
        loss = F.smooth_l1_loss(q, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    n, elapsed = timed_calls(update, seconds, warmup, device)
    return n / elapsed


# -- (a) and (b) ours ---------------------------------------------------------------------------


def build_pong_runner(
    learning_starts: int, replay_size: int, seed: int = 0, device: str = "cpu"
) -> tuple[MinibatchRl, DQN]:
    """A started ``MinibatchRl`` for DQN on Pong: 1 env, 4 steps per batch, 1 update each.

    Epsilon is 1 until learning starts and ``FINAL_EPS`` from then on (as the SB3 side).
    """
    from rlpyt.agents.dqn.atari.atari_dqn_agent import AtariDqnAgent

    algo = DQN(
        batch_size=BATCH_SIZE,
        min_steps_learn=learning_starts,
        replay_size=replay_size,
        replay_ratio=8,
        target_update_interval=TARGET_UPDATE_UPDATES,
        eps_steps=learning_starts,
    )
    sampler = SerialSampler(
        EnvCls=AtariEnv,
        env_kwargs=dict(game=GAME),
        batch_T=TRAIN_FREQ,
        batch_B=1,
        max_decorrelation_steps=0,
    )
    agent = AtariDqnAgent(eps_final=FINAL_EPS)
    runner = MinibatchRl(
        algo=algo,
        agent=agent,
        sampler=sampler,
        n_steps=1e12,
        log_interval_steps=1e12,
        seed=seed,
        affinity=runner_affinity(cuda_idx=cuda_idx_of(device)),
    )
    runner.startup()
    if algo.updates_per_optimize != 1:
        raise RuntimeError(f"expected 1 update per iteration, got {algo.updates_per_optimize}")
    return runner, algo


class PongLoop:
    """Drives a started Pong runner iteration by iteration (the body of ``MinibatchRl``)."""

    def __init__(self, learning_starts: int, replay_size: int, device: str = "cpu"):
        self.runner, self.algo = build_pong_runner(learning_starts, replay_size, device=device)
        self.device = device
        self.itr = 0

    def iteration(self) -> None:
        traj_infos, opt_info = self.runner.sample_and_optimize(self.itr)
        self.runner.store_diagnostics(self.itr, traj_infos, opt_info)
        self.itr += 1

    def sample_only(self) -> None:
        """Sample a batch and append it to the replay, without optimizing (filling)."""
        runner = self.runner
        runner.agent.sample_mode(self.itr)
        samples, _ = runner.sampler.obtain_samples(self.itr)
        self.algo.append_samples(samples)
        self.itr += 1

    def until_learning(self) -> None:
        while self.itr < self.algo.min_itr_learn:
            self.iteration()

    def loop_rates(self, seconds: float, warmup: float) -> tuple[float, float]:
        """(env steps/s, updates/s) of whole iterations over ``seconds``."""
        self.until_learning()
        end = time.perf_counter() + warmup
        while time.perf_counter() < end:
            self.iteration()
        updates0, itr0, start = self.algo.update_counter, self.itr, time.perf_counter()
        while time.perf_counter() - start < seconds:
            self.iteration()
        elapsed = time.perf_counter() - start
        steps = (self.itr - itr0) * TRAIN_FREQ
        return steps / elapsed, (self.algo.update_counter - updates0) / elapsed

    def optimize_rate(self, seconds: float, warmup: float) -> float:
        """Updates/s of ``optimize_agent`` alone (no new samples appended)."""
        algo, agent = self.algo, self.runner.agent
        agent.train_mode(self.itr)
        itr = max(self.itr, algo.min_itr_learn)
        n, elapsed = timed_calls(
            lambda: algo.optimize_agent(itr, None), seconds, warmup, self.device
        )
        return n * algo.updates_per_optimize / elapsed

    def close(self) -> None:
        self.runner.shutdown()


def ours_loop_rates(args: argparse.Namespace) -> tuple[float, float]:
    """A fresh DQN run on Pong: (env steps/s, updates/s) after learning starts."""
    loop = PongLoop(args.learning_starts, args.replay_size, args.device)
    try:
        return loop.loop_rates(args.seconds, args.warmup)
    finally:
        loop.close()


def part_a(args: argparse.Namespace) -> None:
    fill = max(args.fill, args.learning_starts)
    print(f"(a) filling a replay of {args.replay_size:,} with {fill:,} Pong steps ...", flush=True)
    loop = PongLoop(args.learning_starts, args.replay_size, args.device)
    loop.until_learning()
    while loop.itr * TRAIN_FREQ < fill:
        loop.sample_only()
    rates: dict[str, list[float]] = {
        "bare model": [],
        "bare model + target forward (info)": [],
        "ours: optimize_agent": [],
        "ours: whole loop, env steps/s": [],
        "ours: whole loop, updates/s": [],
    }
    try:
        for repeat in range(args.repeats):
            rates["bare model"].append(
                bare_model_rate(args.seconds, args.warmup, device=args.device)
            )
            rates["bare model + target forward (info)"].append(
                bare_model_rate(args.seconds, args.warmup, with_target=True, device=args.device)
            )
            rates["ours: optimize_agent"].append(loop.optimize_rate(args.seconds, args.warmup))
            steps, updates = ours_loop_rates(args)
            rates["ours: whole loop, env steps/s"].append(steps)
            rates["ours: whole loop, updates/s"].append(updates)
            print(f"  (a) repeat {repeat}: " + short(rates), flush=True)
    finally:
        loop.close()
    print_rates("(a) DQN on Pong, batch 32, updates/s unless named", rates)
    medians = {k: statistics.median(v) for k, v in rates.items()}
    print_ratio(
        "ours optimize_agent / bare model (target >= 0.9)",
        medians["ours: optimize_agent"],
        medians["bare model"],
    )
    print_ratio(
        "ours optimize_agent / bare model + target forward (info)",
        medians["ours: optimize_agent"],
        medians["bare model + target forward (info)"],
    )


# -- (b) Stable-Baselines3 on the same env ------------------------------------------------------


def atari_adapter_class() -> type:
    """``AtariGymAdapter`` of ``sampler_throughput.py`` (AtariEnv as a gymnasium env)."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    from sampler_throughput import AtariGymAdapter

    return AtariGymAdapter


def rlpyt_layers_extractor() -> type:
    """An SB3 features extractor with ``AtariDqnModel``'s layers (conv trunk + 512 ReLU)."""
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class RlpytConvExtractor(BaseFeaturesExtractor):
        """Conv 32-64-64 (kernels 8, 4, 3; strides 4, 2, 1; paddings 0, 1, 1), fc 512."""

        def __init__(self, observation_space, features_dim: int = 512):
            super().__init__(observation_space, features_dim)
            channels, height, width = observation_space.shape
            model = AtariDqnModel(image_shape=(channels, height, width), output_size=1)
            self.cnn = nn.Sequential(model.conv, nn.Flatten())
            with torch.no_grad():
                n_flatten = self.cnn(torch.zeros(1, channels, height, width)).shape[1]
            self.linear = nn.Sequential(nn.Linear(n_flatten, features_dim), nn.ReLU())

        def forward(self, observations: torch.Tensor) -> torch.Tensor:
            return self.linear(self.cnn(observations))

    return RlpytConvExtractor


def sb3_pong_rate(args: argparse.Namespace, nature_cnn: bool = False) -> float:
    """SB3 DQN's updates/s on the adapted AtariEnv, ``--warmup`` s after learning starts."""
    run_as_peer()  # SB3 as it runs alone
    import stable_baselines3 as sb3
    from stable_baselines3.common.callbacks import BaseCallback

    total = 10**9
    policy_kwargs: dict[str, Any] = {}
    if not nature_cnn:
        policy_kwargs = dict(features_extractor_class=rlpyt_layers_extractor(), net_arch=[])
    model = sb3.DQN(
        "CnnPolicy",
        atari_adapter_class()(),
        learning_rate=1e-4,
        buffer_size=args.replay_size,
        learning_starts=args.learning_starts,
        batch_size=BATCH_SIZE,
        train_freq=TRAIN_FREQ,
        gradient_steps=1,
        target_update_interval=TARGET_UPDATE_UPDATES * TRAIN_FREQ,
        exploration_fraction=args.learning_starts / total,
        exploration_final_eps=FINAL_EPS,
        optimize_memory_usage=True,
        replay_buffer_kwargs=dict(handle_timeout_termination=False),
        policy_kwargs=policy_kwargs,
        seed=0,
        device=args.device,
    )
    window: dict[str, float] = {}

    class Window(BaseCallback):
        def _on_step(self) -> bool:
            now = time.perf_counter()
            if "start" not in window:
                if self.num_timesteps == args.learning_starts:
                    window["learn"] = now
                if "learn" in window and now - window["learn"] >= args.warmup:
                    window["start"], window["updates"] = now, self.model._n_updates
                return True
            if now - window["start"] < args.seconds:
                return True
            window["rate"] = (self.model._n_updates - window["updates"]) / (now - window["start"])
            return False

    model.learn(total_timesteps=total, callback=Window())
    return window["rate"]


def part_b(args: argparse.Namespace) -> None:
    rates: dict[str, list[float]] = {"ours": [], "SB3 (same layers)": []}
    if args.sb3_nature:
        rates["SB3 (NatureCNN, info)"] = []
    for repeat in range(args.repeats):
        rates["ours"].append(ours_loop_rates(args)[1])
        rates["SB3 (same layers)"].append(sb3_pong_rate(args))
        if args.sb3_nature:
            rates["SB3 (NatureCNN, info)"].append(sb3_pong_rate(args, nature_cnn=True))
        print(f"  (b) repeat {repeat}: " + short(rates), flush=True)
    print_rates("(b) DQN on Pong vs SB3, training phase, updates/s (1 per 4 env steps)", rates)
    medians = {k: statistics.median(v) for k, v in rates.items()}
    print_ratio("ours / SB3 (target >= 1.5)", medians["ours"], medians["SB3 (same layers)"])
    if args.sb3_nature:
        print_ratio(
            "ours / SB3 NatureCNN (info)", medians["ours"], medians["SB3 (NatureCNN, info)"]
        )


# -- (c) CartPole with matched hyperparameters --------------------------------------------------


def cartpole_config() -> dict:
    from rlpyt.experiments.configs.classic.dqn.cartpole_dqn import configs

    return configs["dqn"]


def ours_cartpole(seed: int, cap: int) -> SolveClock:
    from rlpyt.agents.dqn.classic import ClassicDqnAgent
    from rlpyt.envs.gym import make as gym_make

    config = cartpole_config()
    algo = DQN(**config["algo"], optim_kwargs=config["optim"])
    agent = ClassicDqnAgent(model_kwargs=config["model"], **config["agent"])
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=config["env"],
        eval_env_kwargs=config["eval_env"],
        **config["sampler"],
    )
    runner = ClockedEvalRl(
        algo=algo,
        agent=agent,
        sampler=sampler,
        n_steps=cap,
        log_interval_steps=config["runner"]["log_interval_steps"],
        seed=seed,
        solved=SOLVED,
    )
    for _row in runner.iter_train():
        if runner.clock.reached is not None:
            break
    return runner.clock


def sb3_cartpole(seed: int, cap: int, eval_every: int) -> SolveClock:
    """SB3 DQN with RL-Zoo's CartPole-v1 settings (exploration over 8000 steps as the Zoo's
    16% of its 50k, whatever the cap)."""
    run_as_peer()  # SB3 as it runs alone
    import gymnasium as gym
    import stable_baselines3 as sb3
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    model = sb3.DQN(
        "MlpPolicy",
        make_vec_env("CartPole-v1", n_envs=1, seed=seed),
        learning_rate=2.3e-3,
        batch_size=64,
        buffer_size=100_000,
        learning_starts=1000,
        gamma=0.99,
        target_update_interval=10,
        train_freq=256,
        gradient_steps=128,
        exploration_fraction=0.16 * 50_000 / cap,
        exploration_final_eps=0.04,
        policy_kwargs=dict(net_arch=[256, 256]),
        seed=seed,
        device="cpu",
    )
    eval_env = Monitor(gym.make("CartPole-v1"))
    eval_env.reset(seed=10_000 + seed)
    clock = SolveClock(SOLVED)

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


def part_c(args: argparse.Namespace) -> None:
    eval_every = eval_interval_steps(cartpole_config())
    cap = max(args.cap // eval_every, 1) * eval_every  # both end on an evaluation
    print(f"(c) CartPole-v1, evaluations every {eval_every} env steps, cap {cap:,}")
    clocks: dict[str, list[SolveClock]] = {"ours": [], "SB3": []}
    for seed in range(args.seeds):
        clocks["ours"].append(ours_cartpole(seed, cap))
        clocks["SB3"].append(sb3_cartpole(seed, cap, eval_every))
        for name, runs in clocks.items():
            curve = " ".join(
                f"{steps / 1000:.1f}k:{mean:.0f}" for steps, mean in runs[-1].evaluations
            )
            print(f"  (c) seed {seed} {name}: evaluations {curve}", flush=True)
    summary = {}
    print(f"\n== (c) CartPole-v1 DQN to an evaluation mean >= {SOLVED:g}, {args.seeds} seeds ==")
    print(f"{'':8s}{'steps (median)':>16s}{'s (median)':>12s}{'reached':>9s}  per seed (steps, s)")
    for name, runs in clocks.items():
        steps = median_reached([c.reached[0] if c.reached else None for c in runs])
        seconds = median_reached([c.reached[1] if c.reached else None for c in runs])
        summary[name] = (steps, seconds)
        per_seed = ", ".join(
            f"{c.reached[0]:,}/{c.reached[1]:.1f}" if c.reached else "-" for c in runs
        )
        n_reached = sum(c.reached is not None for c in runs)
        print(
            f"{name:8s}{fmt(steps):>16s}{fmt(seconds, '.1f'):>12s}"
            f"{n_reached:>6d}/{len(runs)}  {per_seed}"
        )
    (ours_steps, ours_s), (sb3_steps, sb3_s) = summary["ours"], summary["SB3"]
    print_ratio("steps ours / SB3 (target <= 1)", ours_steps, sb3_steps)
    print_ratio("wall s ours / SB3 (target <= 0.67)", ours_s, sb3_s)


# -- (d) replay memory --------------------------------------------------------------------------


def distinct_bytes(arrays: list[np.ndarray]) -> int:
    """Bytes of the distinct memory behind ``arrays`` (views and shared bases counted once)."""
    intervals = []
    for array in arrays:
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        start = root.__array_interface__["data"][0]
        intervals.append((start, start + root.nbytes))
    total, end = 0, -1
    for low, high in sorted(intervals):
        if high <= end:
            continue
        total += high - max(low, end)
        end = high
    return total


def replay_arrays(replay: Any) -> dict[str, np.ndarray]:
    """Every numpy array an object holds in its attributes (namedtuple fields included)."""
    found: dict[str, np.ndarray] = {}

    def walk(name: str, value: Any, depth: int) -> None:
        if isinstance(value, np.ndarray):
            found[name] = value
        elif depth < 4 and isinstance(value, tuple) and hasattr(value, "_fields"):
            for field, item in zip(value._fields, value, strict=True):
                walk(f"{name}.{field}", item, depth + 1)
        elif depth < 4 and hasattr(value, "__dict__") and not isinstance(value, type):
            for key, item in vars(value).items():
                walk(f"{name}.{key}", item, depth + 1)

    for key, value in vars(replay).items():
        walk(key, value, 0)
    return found


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def frame_replay_size(B: int) -> tuple[int, int, int, str]:  # noqa: N803
    """(allocated bytes, small-field bytes per transition, RSS growth, replay class name).

    The small fields are what the replay stores per transition besides the frame: action
    (int64), reward (float32), done (bool) and, when the env reports one, timeout (bool).
    """
    env = AtariEnv(GAME)
    observation = env.reset()
    step = env.step(0)
    examples = _examples(observation, step)
    algo = DQN(replay_size=REPLAY_1M)
    rss0 = rss_bytes()
    replay = algo.make_replay_buffer(examples, BatchSpec(TRAIN_FREQ, B))
    growth = rss_bytes() - rss0
    arrays = replay_arrays(replay)
    allocated = distinct_bytes(list(arrays.values()))
    small = 8 + 4 + 1 + (1 if hasattr(examples.env_info, "timeout") else 0)
    if B == 1:
        for name, array in arrays.items():
            print(f"  {name}: {array.dtype} {list(array.shape)}, {array.nbytes / 1e6:,.1f} MB")
    return allocated, small, growth, type(replay).__name__


def _examples(observation: np.ndarray, step: Any) -> Any:
    """The sampler's example step for one AtariEnv (what ``DQN.make_replay_buffer`` reads)."""
    from rlpyt.utils.collections import AttrDict

    _, reward, done, env_info = step
    return AttrDict(
        observation=observation,
        action=np.asarray(0, dtype=np.int64),
        reward=np.asarray(reward, dtype=np.float32),
        done=np.asarray(done, dtype=bool),
        env_info=env_info,
    )


def part_d(args: argparse.Namespace) -> None:
    frame = IMAGE_SHAPE[1] * IMAGE_SHAPE[2]
    print(f"\n== (d) allocated size of a {REPLAY_1M:,}-transition Atari replay, {IMAGE_SHAPE} ==")
    for B in (1, 16):  # noqa: N806
        allocated, small, growth, name = frame_replay_size(B)
        minimum = REPLAY_1M * (frame + small)
        touched = "pages untouched" if growth < 0.01 * allocated else "PAGES WERE TOUCHED"
        print(
            f"ours ({name}), B={B:2d}: {allocated / 1e9:6.2f} GB (RSS growth while building: "
            f"{growth / 1e6:.1f} MB, {touched})"
        )
        print(
            f"  one frame + small fields ({small} B: action, reward, done[, timeout]) per "
            f"transition: {minimum / 1e9:.2f} GB; ours / that: {allocated / minimum:.3f} "
            "(target <= 1.05); ours / the issue's 8.8 GB: "
            f"{allocated / 8.8e9:.3f}"
        )
    whole = REPLAY_1M * (IMAGE_SHAPE[0] * frame)
    print(
        f"whole observations: {whole / 1e9:.2f} GB; SB3 optimize_memory_usage, 84x84 "
        "(baselines.md section 4): 28.2 GB; without it: 56.5 GB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--parts", nargs="+", default=["a", "b", "c", "d"], choices="abcd")
    parser.add_argument("--seconds", type=float, default=10.0, help="timed window per repeat")
    parser.add_argument("--warmup", type=float, default=2.0, help="untimed seconds first")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=5, help="(c) seeds")
    parser.add_argument("--cap", type=int, default=150_000, help="(c) env-step cap per run")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument("--learning-starts", type=int, default=1000, help="(a), (b)")
    parser.add_argument("--replay-size", type=int, default=100_000, help="(a), (b)")
    parser.add_argument("--fill", type=int, default=20_000, help="(a) steps in the replay")
    parser.add_argument("--sb3-nature", action="store_true", help="(b) SB3 NatureCNN row")
    parser.add_argument(
        "--device", default="cpu", help="(a), (b): cpu, cuda or cuda:N for every side's updates"
    )
    args = parser.parse_args()
    if args.threads:
        set_peer_threads(args.threads)
    logger.disable()
    print(
        f"torch {torch.__version__}, threads: {torch.get_num_threads()}, device {args.device}; "
        f"parts {args.parts}"
    )
    parts = dict(a=part_a, b=part_b, c=part_c, d=part_d)
    for name in args.parts:
        parts[name](args)


if __name__ == "__main__":
    main()
