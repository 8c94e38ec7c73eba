"""Sampler throughput: rlpyt's parallel samplers against gymnasium, SB3 and envpool.

Every implementation steps the same envs for ``--seconds`` (after a warm-up, start-up not
timed), repeats are interleaved round-robin, and medians are printed with the ratios the issue
asks for. The master process uses one torch thread (workers use one each).

(a) 16 ``AtariEnv("pong")`` envs, random actions (rlpyt samplers: an agent with a trivial
    uniform-probability model): CpuSampler, GpuSampler; gymnasium AsyncVectorEnv
    (shared_memory=True) and SyncVectorEnv and SB3 SubprocVecEnv over a thin gymnasium adapter
    of the same AtariEnv; the limit (2 x one AtariEnv stepped in one process); envpool
    ``Pong-v5`` (16 envs, 2 threads; its own 84x84 preprocessing: a reference, not the same
    work). Information only: 2 processes stepping one AtariEnv each at the same time (what two
    busy cores deliver; shared caches and memory bandwidth put it below the limit).
(b) The same with the A2C ``AtariFfModel`` choosing actions: per worker in CpuSampler, one
    batched forward per step in the master for GpuSampler, AlternatingSampler and the peers
    (envpool synchronous and async send/recv with batch 8).
(c) 16 CartPole-v1 envs, random actions: CpuSampler, GpuSampler and AlternatingSampler
    (``rlpyt.envs.gym.make``, the uniform agent) vs gymnasium SyncVectorEnv; for information
    also SerialSampler over the same 16 envs in one process (does parallel pay off).
Start-up: seconds from ``CpuSampler.initialize`` to two workers ready (16 Pong envs).

Usage: python benchmarks/sampler_throughput.py --seconds 3 --repeats 3 [--parts a,b,c]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from rlpyt.agents.pg.atari import AtariFfAgent
from rlpyt.agents.pg.categorical import CategoricalPgAgent
from rlpyt.distributions.categorical import Categorical, DistInfo
from rlpyt.envs.atari.atari_env import AtariEnv
from rlpyt.envs.gym import make as gym_make
from rlpyt.models.pg.atari_ff_model import AtariFfModel
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler

N_ENVS, N_WORKERS, GAME = 16, 2, "pong"
CHECK_EVERY = 16  # vector steps between clock reads


# -- agents and policies ------------------------------------------------------------------------


class UniformModel(nn.Module):
    """Uniform action probabilities and zero value: random actions through the agent API."""

    def __init__(self, output_size: int, obs_ndim: int):
        super().__init__()
        self.output_size, self.obs_ndim = output_size, obs_ndim
        self.unused = nn.Parameter(torch.zeros(1))

    def forward(self, observation, prev_action, prev_reward):
        lead = observation.shape[: observation.dim() - self.obs_ndim]
        return torch.full((*lead, self.output_size), 1.0 / self.output_size), torch.zeros(lead)


class UniformAgent(CategoricalPgAgent):
    """A categorical PG agent over :class:`UniformModel` (random actions)."""

    def __init__(self):
        super().__init__(ModelCls=UniformModel)

    def make_env_to_model_kwargs(self, env_spaces):
        return dict(
            output_size=int(env_spaces.action.n), obs_ndim=len(env_spaces.observation.shape)
        )


class MasterPolicy:
    """A2C AtariFfModel run once per step over all envs' observations (the peers' policy)."""

    def __init__(self, image_shape: tuple, n_actions: int = 6):
        self.model = AtariFfModel(image_shape=image_shape, output_size=n_actions).eval()
        self.distribution = Categorical(dim=n_actions)
        self.prev_action = torch.zeros(N_ENVS, dtype=torch.long)
        self.prev_reward = torch.zeros(N_ENVS)

    @torch.no_grad()
    def __call__(self, observation: np.ndarray, reward: np.ndarray | None = None) -> np.ndarray:
        obs = torch.from_numpy(np.asarray(observation))
        n = obs.shape[0]
        prev_action = self.distribution.to_onehot(self.prev_action[:n])
        pi, _value = self.model(obs, prev_action, self.prev_reward[:n])
        action = self.distribution.sample(DistInfo(prob=pi))
        self.prev_action[:n] = action
        if reward is not None:
            self.prev_reward[:n] = torch.as_tensor(reward, dtype=torch.float32)
        return action.numpy()


def random_policy(n_actions: int) -> Callable:
    rng = np.random.default_rng(0)
    return lambda observation, reward=None: rng.integers(0, n_actions, N_ENVS)


# -- a thin gymnasium adapter of AtariEnv (same work as rlpyt's samplers) ------------------------


class AtariGymAdapter(gym.Env):
    """AtariEnv as a gymnasium env: terminated at the end of the game, as rlpyt resets."""

    def __init__(self, game: str = GAME):
        self.env = AtariEnv(game)
        space = self.env.observation_space
        self.observation_space = gym.spaces.Box(0, 255, space.shape, np.uint8)
        self.action_space = gym.spaces.Discrete(int(self.env.action_space.n))

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.env.seed(seed)
        return self.env.reset(), {}

    def step(self, action):
        observation, reward, _done, env_info = self.env.step(int(action))
        return observation, float(reward), bool(env_info.traj_done), False, {}


def make_adapter():
    return AtariGymAdapter()


def make_cartpole():
    return gym.make("CartPole-v1")


# -- timing helpers -----------------------------------------------------------------------------


def timed_loop(
    step: Callable[[], int], seconds: float, warmup: float = 0.5, check_every: int = CHECK_EVERY
) -> float:
    """Call ``step`` (returns env steps done) for ``seconds`` after a warm-up; steps/s."""
    end = time.perf_counter() + warmup
    while time.perf_counter() < end:
        step()
    n, start = 0, time.perf_counter()
    while True:
        for _ in range(check_every):
            n += step()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def rlpyt_rate(SamplerCls, agent, env_cls, env_kwargs, seconds, batch_T, alternating=False):  # noqa: N803
    workers = list(range(N_WORKERS))
    affinity = dict(workers_cpus=workers, alternating=alternating)
    sampler = SamplerCls(
        EnvCls=env_cls,
        env_kwargs=env_kwargs,
        batch_T=batch_T,
        batch_B=N_ENVS,
        max_decorrelation_steps=0,
    )
    sampler.initialize(agent, affinity=affinity, seed=0)
    agent.sample_mode(0)

    def step():
        sampler.obtain_samples(0)
        return batch_T * N_ENVS

    try:
        return timed_loop(step, seconds, warmup=0.2, check_every=1)  # whole batches
    finally:
        sampler.shutdown()


def vector_rate(make_vec: Callable, policy: Callable, seconds: float) -> float:
    envs = make_vec()
    try:
        observation, _ = envs.reset(seed=0)
        state = {"obs": observation, "rew": None}

        def step():
            action = policy(state["obs"], state["rew"])
            state["obs"], state["rew"], *_ = envs.step(action)
            return N_ENVS

        return timed_loop(step, seconds)
    finally:
        envs.close()


def sb3_rate(policy: Callable, seconds: float) -> float:
    from stable_baselines3.common.vec_env import SubprocVecEnv

    envs = SubprocVecEnv([make_adapter] * N_ENVS)
    try:
        state = {"obs": envs.reset(), "rew": None}

        def step():
            action = policy(state["obs"], state["rew"])
            state["obs"], state["rew"], _done, _info = envs.step(action)
            return N_ENVS

        return timed_loop(step, seconds)
    finally:
        envs.close()


def limit_rate(seconds: float) -> float:
    """Two processes' worth of one AtariEnv stepped alone with random actions."""
    return N_WORKERS * single_env_rate(seconds)


def concurrent_limit_rate(seconds: float) -> float:
    """Sum of ``N_WORKERS`` processes each stepping one AtariEnv at the same time.

    Information, not a target: on a machine whose cores share caches, memory bandwidth and a
    power budget, this is what the cores actually deliver together, below ``limit_rate``.
    """
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(N_WORKERS) as pool:
        return sum(pool.map(single_env_rate, [seconds] * N_WORKERS))


def single_env_rate(seconds: float) -> float:
    """One AtariEnv stepped with random actions in this process; steps/s."""
    torch.set_num_threads(1)
    env = AtariEnv(GAME)
    env.reset()
    actions = np.random.default_rng(0).integers(0, 6, 4096)
    count = [0]

    def step():
        observation, reward, done, env_info = env.step(actions[count[0] % 4096])
        count[0] += 1
        if env_info.traj_done:
            env.reset()
        return 1

    return timed_loop(step, seconds)


def envpool_rate(seconds: float, with_model: bool, asynchronous: bool = False) -> float:
    import envpool

    batch = N_ENVS // 2 if asynchronous else N_ENVS
    envs = envpool.make(
        "Pong-v5",
        env_type="gymnasium",
        num_envs=N_ENVS,
        batch_size=batch,
        num_threads=N_WORKERS,
        repeat_action_probability=0.0,
    )
    policy = MasterPolicy((4, 84, 84)) if with_model else random_policy(6)
    try:
        if not asynchronous:
            return vector_rate(lambda: envs, policy, seconds)
        envs.async_reset()

        def step():
            observation, reward, _te, _tr, info = envs.recv()
            envs.send(policy(observation, reward), info["env_id"])
            return batch

        return timed_loop(step, seconds)
    finally:
        envs.close()


# -- the table ----------------------------------------------------------------------------------


def part_a(seconds, batch_T):  # noqa: N803
    policy = random_policy(6)
    return {
        "CpuSampler": lambda: rlpyt_rate(
            CpuSampler, UniformAgent(), AtariEnv, dict(game=GAME), seconds, batch_T
        ),
        "GpuSampler": lambda: rlpyt_rate(
            GpuSampler, UniformAgent(), AtariEnv, dict(game=GAME), seconds, batch_T
        ),
        "gym AsyncVectorEnv": lambda: vector_rate(async_vec(make_adapter), policy, seconds),
        "gym SyncVectorEnv": lambda: vector_rate(sync_vec(make_adapter), policy, seconds),
        "SB3 SubprocVecEnv": lambda: sb3_rate(policy, seconds),
        "limit (2 x AtariEnv)": lambda: limit_rate(seconds),
        "2 AtariEnv at once (info)": lambda: concurrent_limit_rate(seconds),
        "envpool": lambda: envpool_rate(seconds, with_model=False),
    }


def part_b(seconds, batch_T):  # noqa: N803
    def policy():
        return MasterPolicy((4, 104, 80))

    return {
        "CpuSampler": lambda: rlpyt_rate(
            CpuSampler, AtariFfAgent(), AtariEnv, dict(game=GAME), seconds, batch_T
        ),
        "GpuSampler": lambda: rlpyt_rate(
            GpuSampler, AtariFfAgent(), AtariEnv, dict(game=GAME), seconds, batch_T
        ),
        "AlternatingSampler": lambda: rlpyt_rate(
            AlternatingSampler,
            AtariFfAgent(),
            AtariEnv,
            dict(game=GAME),
            seconds,
            batch_T,
            alternating=True,
        ),
        "gym AsyncVectorEnv": lambda: vector_rate(async_vec(make_adapter), policy(), seconds),
        "gym SyncVectorEnv": lambda: vector_rate(sync_vec(make_adapter), policy(), seconds),
        "SB3 SubprocVecEnv": lambda: sb3_rate(policy(), seconds),
        "envpool sync": lambda: envpool_rate(seconds, with_model=True),
        "envpool async": lambda: envpool_rate(seconds, with_model=True, asynchronous=True),
    }


def part_c(seconds, batch_T):  # noqa: N803
    cartpole = dict(id="CartPole-v1")
    return {
        "CpuSampler": lambda: rlpyt_rate(
            CpuSampler, UniformAgent(), gym_make, cartpole, seconds, batch_T
        ),
        "GpuSampler": lambda: rlpyt_rate(
            GpuSampler, UniformAgent(), gym_make, cartpole, seconds, batch_T
        ),
        "AlternatingSampler": lambda: rlpyt_rate(
            AlternatingSampler,
            UniformAgent(),
            gym_make,
            cartpole,
            seconds,
            batch_T,
            alternating=True,
        ),
        "gym SyncVectorEnv": lambda: vector_rate(
            sync_vec(make_cartpole), random_policy(2), seconds
        ),
        "SerialSampler (info)": lambda: rlpyt_rate(
            SerialSampler, UniformAgent(), gym_make, cartpole, seconds, batch_T
        ),
    }


def sync_vec(make_env):
    same_step = gym.vector.AutoresetMode.SAME_STEP
    return lambda: gym.vector.SyncVectorEnv([make_env] * N_ENVS, autoreset_mode=same_step)


def async_vec(make_env):
    same_step = gym.vector.AutoresetMode.SAME_STEP
    return lambda: gym.vector.AsyncVectorEnv(
        [make_env] * N_ENVS, shared_memory=True, autoreset_mode=same_step
    )


def startup_seconds() -> float:
    sampler = CpuSampler(
        EnvCls=AtariEnv,
        env_kwargs=dict(game=GAME),
        batch_T=64,
        batch_B=N_ENVS,
        max_decorrelation_steps=0,
    )
    start = time.perf_counter()
    sampler.initialize(UniformAgent(), affinity=dict(workers_cpus=[0, 1]), seed=0)
    elapsed = time.perf_counter() - start
    sampler.shutdown()
    return elapsed


def run_part(name, impls, repeats):
    rates: dict[str, list[float]] = {key: [] for key in impls}
    for repeat in range(repeats):
        for key, run in impls.items():
            try:
                rates[key].append(run())
            except Exception as exc:  # noqa: BLE001 (a missing peer must not stop the table)
                print(f"  ({name}) {key} failed: {exc!r}")
            print(f"  ({name}) repeat {repeat}: {key}: {rates[key][-1:]}", flush=True)
    return {key: statistics.median(v) for key, v in rates.items() if v}, rates


def print_table(name, medians, rates, ratios):
    print(f"\n== ({name}) env steps/s, median [min-max] ==")
    for key, value in medians.items():
        print(f"{key:28s} {value:12,.0f}  [{min(rates[key]):,.0f}-{max(rates[key]):,.0f}]")
    for label, num, den in ratios:
        if num in medians and den in medians:
            print(f"{label:44s} {medians[num] / medians[den]:.2f}")


RATIOS = {
    "a": [
        ("CpuSampler / AsyncVectorEnv", "CpuSampler", "gym AsyncVectorEnv"),
        ("GpuSampler / AsyncVectorEnv", "GpuSampler", "gym AsyncVectorEnv"),
        ("CpuSampler / limit", "CpuSampler", "limit (2 x AtariEnv)"),
        ("GpuSampler / limit", "GpuSampler", "limit (2 x AtariEnv)"),
        ("2 AtariEnv at once / limit (info)", "2 AtariEnv at once (info)", "limit (2 x AtariEnv)"),
        ("CpuSampler / 2 AtariEnv at once (info)", "CpuSampler", "2 AtariEnv at once (info)"),
        ("CpuSampler / envpool", "CpuSampler", "envpool"),
        ("CpuSampler / SubprocVecEnv", "CpuSampler", "SB3 SubprocVecEnv"),
        ("CpuSampler / SyncVectorEnv", "CpuSampler", "gym SyncVectorEnv"),
    ],
    "b": [
        ("CpuSampler / AsyncVectorEnv", "CpuSampler", "gym AsyncVectorEnv"),
        ("CpuSampler / SyncVectorEnv", "CpuSampler", "gym SyncVectorEnv"),
        ("CpuSampler / SubprocVecEnv", "CpuSampler", "SB3 SubprocVecEnv"),
        ("CpuSampler / envpool sync", "CpuSampler", "envpool sync"),
        ("CpuSampler / envpool async", "CpuSampler", "envpool async"),
        ("GpuSampler / SyncVectorEnv", "GpuSampler", "gym SyncVectorEnv"),
        ("AlternatingSampler / SyncVectorEnv", "AlternatingSampler", "gym SyncVectorEnv"),
    ],
    "c": [
        ("CpuSampler / SyncVectorEnv", "CpuSampler", "gym SyncVectorEnv"),
        ("GpuSampler / SyncVectorEnv", "GpuSampler", "gym SyncVectorEnv"),
        ("AlternatingSampler / SyncVectorEnv", "AlternatingSampler", "gym SyncVectorEnv"),
        ("CpuSampler / SerialSampler (info)", "CpuSampler", "SerialSampler (info)"),
        ("SerialSampler / SyncVectorEnv (info)", "SerialSampler (info)", "gym SyncVectorEnv"),
    ],
}


BEST_VERSUS = {  # per part: (label, keys of the denominator; the best of them is taken)
    "a": [
        ("gym AsyncVectorEnv (target >= 1.5)", ["gym AsyncVectorEnv"]),
        ("limit (target >= 0.9)", ["limit (2 x AtariEnv)"]),
        ("envpool (target >= 0.85)", ["envpool"]),
    ],
    "b": [
        (
            "best Python peer (target >= 1.6)",
            ["gym AsyncVectorEnv", "gym SyncVectorEnv", "SB3 SubprocVecEnv"],
        ),
        ("best envpool (target >= 1.25)", ["envpool sync", "envpool async"]),
    ],
    "c": [("gym SyncVectorEnv (target >= 1.8)", ["gym SyncVectorEnv"])],
}


def print_best(name: str, medians: dict) -> None:
    """The best rlpyt sampler of a part against the target's denominators."""
    samplers = {k: v for k, v in medians.items() if k.endswith("Sampler")}
    if not samplers:
        return
    best = max(samplers, key=samplers.__getitem__)
    for label, keys in BEST_VERSUS[name]:
        found = [medians[k] for k in keys if k in medians]
        if found:
            print(f"({name}) best sampler {best} / {label}: {samplers[best] / max(found):.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--parts", default="a,b,c")
    parser.add_argument("--batch_T", type=int, default=64)
    args = parser.parse_args()
    torch.set_num_threads(1)
    parts = dict(a=part_a, b=part_b, c=part_c)
    results = {}
    for name in args.parts.split(","):
        impls = parts[name](args.seconds, args.batch_T)
        results[name] = run_part(name, impls, args.repeats)
    startups = [startup_seconds() for _ in range(args.repeats)]
    for name, (medians, rates) in results.items():
        print_table(name, medians, rates, RATIOS[name])
    for name, (medians, _rates) in results.items():
        print_best(name, medians)
    print(
        f"\nCpuSampler start-up, 2 workers, 16 Pong envs (target <= 2 s): "
        f"median {statistics.median(startups):.2f} s {[round(s, 2) for s in startups]}"
    )


if __name__ == "__main__":
    main()
