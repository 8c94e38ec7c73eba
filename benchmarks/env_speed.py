"""AtariEnv step speed against raw ALE, measured interleaved in one process.

AtariEnv: random actions (pre-generated), resets inside the timed loop when a game ends.
Raw ALE: ``ALEInterface`` with repeat_action_probability 0, per agent step 4 x ``act()`` and one
``getScreenGrayscale`` into a preallocated buffer, ``reset_game()`` on game over. This is the
least any frame-skip-4 wrapper must do, so the ratio is AtariEnv's overhead.

Usage: python benchmarks/env_speed.py --repeats 5 --seconds 3 [--game pong]
"""

from __future__ import annotations

import argparse
import statistics
import time

import ale_py
import numpy as np
from ale_py import roms

from rlpyt.envs.atari.atari_env import AtariEnv

CHECK_EVERY = 64  # steps between clock reads


def time_atari_env(game: str, actions: np.ndarray, seconds: float) -> float:
    env = AtariEnv(game)
    env.reset()
    n, start = 0, time.perf_counter()
    while True:
        for _ in range(CHECK_EVERY):
            step = env.step(actions[n % len(actions)])
            if step.env_info.traj_done:
                env.reset()
            n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def time_raw_ale(game: str, actions: np.ndarray, seconds: float) -> float:
    ale = ale_py.ALEInterface()
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(str(roms.get_rom_path(game)))
    action_set = ale.getMinimalActionSet()
    screen = np.empty(ale.getScreenDims(), np.uint8)
    n, start = 0, time.perf_counter()
    while True:
        for _ in range(CHECK_EVERY):
            action = action_set[actions[n % len(actions)]]
            for _ in range(4):
                ale.act(action)
            ale.getScreenGrayscale(screen)
            if ale.game_over():
                ale.reset_game()
            n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--game", default="pong")
    args = parser.parse_args()
    n_actions = AtariEnv(args.game).action_space.n
    actions = np.random.default_rng(0).integers(0, n_actions, 100_000)
    env_rates, raw_rates = [], []
    for repeat in range(args.repeats):
        env_rates.append(time_atari_env(args.game, actions, args.seconds))
        raw_rates.append(time_raw_ale(args.game, actions, args.seconds))
        print(
            f"repeat {repeat}: AtariEnv {env_rates[-1]:,.0f} steps/s, raw ALE {raw_rates[-1]:,.0f}"
        )
    env_median, raw_median = statistics.median(env_rates), statistics.median(raw_rates)
    print(f"AtariEnv({args.game!r}) median: {env_median:,.0f} agent steps/s")
    print(f"raw ALE (4 x act + grayscale) median: {raw_median:,.0f} agent steps/s")
    print(f"ratio AtariEnv / raw ALE: {env_median / raw_median:.3f} (target >= 0.85)")


if __name__ == "__main__":
    main()
