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
(c) 16 CartPole-v1 envs, equal work: CpuSampler, GpuSampler and AlternatingSampler
    (``rlpyt.envs.gym.make``, the uniform agent) vs gymnasium SyncVectorEnv + one batched
    forward of the same trivial model per step (``BatchedPolicy``: one-hot, model, categorical
    sample over the 16 observations, as the samplers' agent does); target >= 1.3x. For
    information: SyncVectorEnv with random actions (no model: the old, unequal peer) and
    SerialSampler over the same 16 envs in one process (does parallel pay off).
(d) 256 CartPole-v1 envs, the classic-control PPO agent (``ClassicFfAgent``, 64x64 MLPs)
    choosing actions, batch_T 64: SerialSampler and CpuSampler (2 workers, 128 envs each) over
    gymnasium's native vectorized CartPole (``rlpyt.envs.gym_vector.make_vec``,
    ``vectorization_mode="vector_entry_point"``: one env call and one agent call per time
    step), against CpuSampler over 256 per-env ``rlpyt.envs.gym.make`` CartPoles, gymnasium
    SyncVectorEnv + one batched forward of the same model per step, and the raw vectorized env
    (``gymnasium.make_vec``, same mode) stepped with random actions. Targets for the best
    batched sampler: >= 1,000,000 env steps/s, >= 10x CpuSampler per-env, >= 0.3 of raw.
    For information: the raw vectorized env + one batched forward of the same model per step
    (the batched SerialSampler's work without rlpyt's buffers and bookkeeping: its ceiling).
    The batched lines are skipped, with a line saying so, where the vector-env samplers are
    not installed.
(e) envpool (``rlpyt.envs.envpool.make``, the ``envpool`` extra) in the samplers, 16 envs:
    Pong-v5 (envpool's own 84x84 preprocessing) in CpuSampler (a pool of 8 per worker, one
    thread each) and SerialSampler (one pool of 16, 2 threads) against AtariEnv in CpuSampler,
    the uniform agent choosing actions; HalfCheetah-v5 the same against gymnasium per-env envs
    in CpuSampler, MujocoFfAgent choosing actions. Rates and ratios only (no target).
Start-up: seconds from ``CpuSampler.initialize`` to two workers ready (16 Pong envs).

Usage: python benchmarks/sampler_throughput.py --seconds 3 --repeats 3 [--parts a,b,c,d,e]
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
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.distributions.categorical import Categorical, DistInfo
from rlpyt.envs.atari.atari_env import AtariEnv
from rlpyt.envs.gym import make as gym_make
from rlpyt.models.pg.atari_ff_model import AtariFfModel
from rlpyt.models.pg.classic_model import ClassicFfModel
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


class BatchedPolicy:
    """One forward of ``model`` over all envs' observations per step, then a categorical sample.

    The work a sampler's agent does per time step (prev_action one-hot, the model, the
    sample), done once in the peer's process: the peers' "batched forward" policy.

    Args:
        model: A categorical PG model ``(observation, prev_action one-hot, prev_reward) ->
            (pi, value)``.
        n_actions: Number of discrete actions.
        n_envs: Number of envs stepped at once.
    """

    def __init__(self, model: nn.Module, n_actions: int, n_envs: int = N_ENVS):
        self.model = model.eval()
        self.distribution = Categorical(dim=n_actions)
        self.prev_action = torch.zeros(n_envs, dtype=torch.long)
        self.prev_reward = torch.zeros(n_envs)

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


def atari_policy(image_shape: tuple, n_actions: int = 6) -> BatchedPolicy:
    """The A2C AtariFfModel as a batched policy over the 16 envs (the peers of part (b))."""
    return BatchedPolicy(AtariFfModel(image_shape=image_shape, output_size=n_actions), n_actions)


def random_policy(n_actions: int, n_envs: int = N_ENVS) -> Callable:
    """Random actions with one numpy call per step."""
    rng = np.random.default_rng(0)
    return lambda observation, reward=None: rng.integers(0, n_actions, n_envs)


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


def rlpyt_rate(
    SamplerCls,  # noqa: N803
    agent,
    env_cls,
    env_kwargs,
    seconds,
    batch_T,  # noqa: N803
    alternating=False,
    batch_B=N_ENVS,  # noqa: N803
):
    """One rlpyt sampler's env steps/s: whole batches, 2 pinned workers where it has workers."""
    workers = list(range(N_WORKERS))
    affinity = dict(workers_cpus=workers, alternating=alternating)
    sampler = SamplerCls(
        EnvCls=env_cls,
        env_kwargs=env_kwargs,
        batch_T=batch_T,
        batch_B=batch_B,
        max_decorrelation_steps=0,
    )
    sampler.initialize(agent, affinity=affinity, seed=0)
    agent.sample_mode(0)

    def step():
        sampler.obtain_samples(0)
        return batch_T * batch_B

    try:
        return timed_loop(step, seconds, warmup=0.2, check_every=1)  # whole batches
    finally:
        sampler.shutdown()


def vector_rate(
    make_vec: Callable, policy: Callable, seconds: float, n_envs: int = N_ENVS
) -> float:
    """A vector env of ``n_envs`` stepped with ``policy``'s actions (one call per step); steps/s."""
    envs = make_vec()
    try:
        observation, _ = envs.reset(seed=0)
        state = {"obs": observation, "rew": None}

        def step():
            action = policy(state["obs"], state["rew"])
            state["obs"], state["rew"], *_ = envs.step(action)
            return n_envs

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
    policy = atari_policy((4, 84, 84)) if with_model else random_policy(6)
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
        return atari_policy((4, 104, 80))

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
        "SyncVectorEnv + forward": lambda: vector_rate(
            sync_vec(make_cartpole), BatchedPolicy(UniformModel(2, obs_ndim=1), 2), seconds
        ),
        "SyncVectorEnv random (info)": lambda: vector_rate(
            sync_vec(make_cartpole), random_policy(2), seconds
        ),
        "SerialSampler (info)": lambda: rlpyt_rate(
            SerialSampler, UniformAgent(), gym_make, cartpole, seconds, batch_T
        ),
    }


D_ENVS = 256  # part (d): envs per sampler (128 per worker with 2 workers) and per peer
NATIVE_CARTPOLE = dict(id="CartPole-v1", vectorization_mode="vector_entry_point")


def ppo_agent() -> ClassicFfAgent:
    """The classic-control PPO agent (``configs/classic/pg/cartpole_ppo.py``: 64x64 MLPs)."""
    return ClassicFfAgent(model_kwargs=dict(hidden_sizes=[64, 64]))


def batched_env_maker() -> Callable | None:
    """``rlpyt.envs.gym_vector.make_vec`` when it and the samplers' vector path exist."""
    try:
        import rlpyt.samplers.vector  # noqa: F401 (the vector collectors the samplers use)
        from rlpyt.envs.gym_vector import make_vec
    except ImportError as exc:
        print(f"  (d) batched samplers skipped: not available ({exc})", flush=True)
        return None
    return make_vec


def part_d(seconds, batch_T):  # noqa: N803
    cartpole = dict(id="CartPole-v1")
    impls = {}
    make_vec = batched_env_maker()
    if make_vec is not None:
        impls["batched SerialSampler"] = lambda: rlpyt_rate(
            SerialSampler, ppo_agent(), make_vec, NATIVE_CARTPOLE, seconds, batch_T, batch_B=D_ENVS
        )
        impls["batched CpuSampler (2 workers)"] = lambda: rlpyt_rate(
            CpuSampler, ppo_agent(), make_vec, NATIVE_CARTPOLE, seconds, batch_T, batch_B=D_ENVS
        )

    def forward_policy():
        model = ClassicFfModel(observation_shape=(4,), action_size=2, hidden_sizes=[64, 64])
        return BatchedPolicy(model, 2, n_envs=D_ENVS)

    def raw_native():
        return gym.make_vec("CartPole-v1", num_envs=D_ENVS, vectorization_mode="vector_entry_point")

    impls.update(
        {
            "CpuSampler per-env": lambda: rlpyt_rate(
                CpuSampler, ppo_agent(), gym_make, cartpole, seconds, batch_T, batch_B=D_ENVS
            ),
            "SyncVectorEnv + forward": lambda: vector_rate(
                sync_vec(make_cartpole, D_ENVS), forward_policy(), seconds, n_envs=D_ENVS
            ),
            "raw vectorized env (random)": lambda: vector_rate(
                raw_native, random_policy(2, D_ENVS), seconds, n_envs=D_ENVS
            ),
            "raw vectorized env + forward (info)": lambda: vector_rate(
                raw_native, forward_policy(), seconds, n_envs=D_ENVS
            ),
            "2 x bare env+forward+sample (ceiling)": lambda: bare_native_ceiling(seconds),
        }
    )
    return impls


def bare_native_rate(seconds: float, n_envs: int = D_ENVS // N_WORKERS) -> float:
    """The bare loop a batched worker cannot beat: native CartPole + forward + sample; steps/s.

    One process, ``n_envs`` envs, the 64x64 PPO model's forward and the categorical sample of
    its policy at each step: no buffers, no TrajInfos, no agent wrapper.
    """
    torch.set_num_threads(1)
    envs = gym.make_vec("CartPole-v1", num_envs=n_envs, vectorization_mode="vector_entry_point")
    model = ClassicFfModel(observation_shape=(4,), action_size=2, hidden_sizes=[64, 64])
    distribution = Categorical(dim=2)
    try:
        state = {"obs": envs.reset(seed=0)[0]}

        @torch.no_grad()
        def step():
            pi, _value = model(torch.from_numpy(state["obs"]), None, None)
            action = distribution.sample(DistInfo(prob=pi)).numpy()
            state["obs"], *_ = envs.step(action)
            return n_envs

        return timed_loop(step, seconds)
    finally:
        envs.close()


def bare_native_ceiling(seconds: float) -> float:
    """Sum of ``N_WORKERS`` processes running :func:`bare_native_rate` at the same time.

    The most any sampler with this agent can reach on these cores (the batched CpuSampler's
    workers do this loop plus the sampler's work): information, the ceiling of part (d).
    """
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(N_WORKERS) as pool:
        return sum(pool.map(bare_native_rate, [seconds] * N_WORKERS))


def part_e(seconds, batch_T):  # noqa: N803
    """envpool in the samplers against per-env envs in the CpuSampler (16 envs each).

    Pong: envpool's own preprocessing ([4, 84, 84]) against AtariEnv ([4, 104, 80]), the
    uniform agent choosing actions; HalfCheetah-v5: envpool against gymnasium per-env envs,
    MujocoFfAgent (the MuJoCo PPO agent, 64x64) choosing actions. CpuSampler workers own one
    pool each with ``num_threads=1``; SerialSampler's pool uses both cores.
    """
    from rlpyt.agents.pg.mujoco import MujocoFfAgent  # noqa: PLC0415
    from rlpyt.envs.envpool import make as envpool_make  # noqa: PLC0415

    pong, cheetah = dict(task_id="Pong-v5"), dict(task_id="HalfCheetah-v5")
    one_thread, two_threads = dict(num_threads=1), dict(num_threads=N_WORKERS)

    def run(SamplerCls, agent, env_cls, env_kwargs):  # noqa: N803
        return lambda: rlpyt_rate(SamplerCls, agent(), env_cls, env_kwargs, seconds, batch_T)

    return {
        "AtariEnv CpuSampler": run(CpuSampler, UniformAgent, AtariEnv, dict(game=GAME)),
        "envpool Pong CpuSampler": run(CpuSampler, UniformAgent, envpool_make, pong | one_thread),
        "envpool Pong SerialSampler": run(
            SerialSampler, UniformAgent, envpool_make, pong | two_threads
        ),
        "gym HalfCheetah CpuSampler": run(
            CpuSampler, MujocoFfAgent, gym_make, dict(id="HalfCheetah-v5")
        ),
        "envpool HalfCheetah CpuSampler": run(
            CpuSampler, MujocoFfAgent, envpool_make, cheetah | one_thread
        ),
        "envpool HalfCheetah SerialSampler": run(
            SerialSampler, MujocoFfAgent, envpool_make, cheetah | two_threads
        ),
    }


def sync_vec(make_env, n_envs: int = N_ENVS):
    same_step = gym.vector.AutoresetMode.SAME_STEP
    return lambda: gym.vector.SyncVectorEnv([make_env] * n_envs, autoreset_mode=same_step)


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
        print(f"{key:32s} {value:12,.0f}  [{min(rates[key]):,.0f}-{max(rates[key]):,.0f}]")
    for label, num, den in ratios:
        if num in medians and den in medians:
            print(f"{label:52s} {medians[num] / medians[den]:.2f}")


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
        ("CpuSampler / SyncVectorEnv + forward", "CpuSampler", "SyncVectorEnv + forward"),
        ("GpuSampler / SyncVectorEnv + forward", "GpuSampler", "SyncVectorEnv + forward"),
        (
            "AlternatingSampler / SyncVectorEnv + forward",
            "AlternatingSampler",
            "SyncVectorEnv + forward",
        ),
        ("CpuSampler / SyncVectorEnv random (info)", "CpuSampler", "SyncVectorEnv random (info)"),
        ("CpuSampler / SerialSampler (info)", "CpuSampler", "SerialSampler (info)"),
        (
            "SerialSampler / SyncVectorEnv + forward (info)",
            "SerialSampler (info)",
            "SyncVectorEnv + forward",
        ),
    ],
    "d": [
        ("batched SerialSampler / raw", "batched SerialSampler", "raw vectorized env (random)"),
        (
            "batched CpuSampler / raw",
            "batched CpuSampler (2 workers)",
            "raw vectorized env (random)",
        ),
        (
            "batched CpuSampler / batched SerialSampler",
            "batched CpuSampler (2 workers)",
            "batched SerialSampler",
        ),
        (
            "batched SerialSampler / SyncVectorEnv + forward",
            "batched SerialSampler",
            "SyncVectorEnv + forward",
        ),
        (
            "batched CpuSampler / ceiling (info)",
            "batched CpuSampler (2 workers)",
            "2 x bare env+forward+sample (ceiling)",
        ),
        (
            "ceiling / raw (info: the best a torch agent allows)",
            "2 x bare env+forward+sample (ceiling)",
            "raw vectorized env (random)",
        ),
        (
            "batched SerialSampler / raw + forward (info)",
            "batched SerialSampler",
            "raw vectorized env + forward (info)",
        ),
        (
            "CpuSampler per-env / SyncVectorEnv + forward",
            "CpuSampler per-env",
            "SyncVectorEnv + forward",
        ),
    ],
    "e": [
        (
            "envpool Pong CpuSampler / AtariEnv CpuSampler",
            "envpool Pong CpuSampler",
            "AtariEnv CpuSampler",
        ),
        (
            "envpool Pong SerialSampler / AtariEnv CpuSampler",
            "envpool Pong SerialSampler",
            "AtariEnv CpuSampler",
        ),
        (
            "envpool HalfCheetah CpuSampler / gym CpuSampler",
            "envpool HalfCheetah CpuSampler",
            "gym HalfCheetah CpuSampler",
        ),
        (
            "envpool HalfCheetah SerialSampler / gym CpuSampler",
            "envpool HalfCheetah SerialSampler",
            "gym HalfCheetah CpuSampler",
        ),
    ],
}


BEST_VERSUS = {  # per part: (label, keys of the denominator; the best of them is taken)
    "a": [
        ("gym AsyncVectorEnv (target >= 1.5)", ["gym AsyncVectorEnv"]),
        ("limit (info)", ["limit (2 x AtariEnv)"]),
        ("2 AtariEnv at once (target >= 0.9)", ["2 AtariEnv at once (info)"]),
        ("envpool (target >= 0.85)", ["envpool"]),
    ],
    "b": [
        (
            "best Python peer (target >= 1.6)",
            ["gym AsyncVectorEnv", "gym SyncVectorEnv", "SB3 SubprocVecEnv"],
        ),
        ("best envpool (target >= 1.25)", ["envpool sync", "envpool async"]),
    ],
    "c": [("SyncVectorEnv + forward (target >= 1.3)", ["SyncVectorEnv + forward"])],
    "d": [
        ("CpuSampler per-env (target >= 10)", ["CpuSampler per-env"]),
        ("raw vectorized env (target >= 0.3)", ["raw vectorized env (random)"]),
        ("SyncVectorEnv + forward (info)", ["SyncVectorEnv + forward"]),
    ],
}
BEST_RATE_TARGET = {"d": 1_000_000}  # env steps/s the part's best sampler must reach


def best_sampler(name: str, medians: dict) -> str | None:
    """The key of a part's fastest rlpyt sampler (in (d) the batched ones), or None."""
    if name == "d":
        candidates = [k for k in medians if k.startswith("batched ")]
    else:
        candidates = [k for k in medians if k.endswith("Sampler")]
    return max(candidates, key=medians.__getitem__) if candidates else None


def print_best(name: str, medians: dict) -> None:
    """The best rlpyt sampler of a part against the target's denominators."""
    best = best_sampler(name, medians)
    if best is None:
        print(f"({name}) no sampler of this part ran: its targets are not measured")
        return
    if name in BEST_RATE_TARGET:
        target = BEST_RATE_TARGET[name]
        verdict = "met" if medians[best] >= target else "missed"
        print(
            f"({name}) best sampler {best}: {medians[best]:,.0f} env steps/s "
            f"(target >= {target:,}): {verdict}"
        )
    for label, keys in BEST_VERSUS[name]:
        found = [medians[k] for k in keys if k in medians]
        if found:
            print(f"({name}) best sampler {best} / {label}: {medians[best] / max(found):.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--parts", default="a,b,c,d,e")
    parser.add_argument("--batch_T", type=int, default=64)
    args = parser.parse_args()
    torch.set_num_threads(1)
    parts = dict(a=part_a, b=part_b, c=part_c, d=part_d, e=part_e)
    results = {}
    for name in args.parts.split(","):
        impls = parts[name](args.seconds, args.batch_T)
        results[name] = run_part(name, impls, args.repeats)
    startups = [startup_seconds() for _ in range(args.repeats)]
    for name, (medians, rates) in results.items():
        print_table(name, medians, rates, RATIOS[name])
    for name, (medians, _rates) in results.items():
        if name in BEST_VERSUS:
            print_best(name, medians)
    print(
        f"\nCpuSampler start-up, 2 workers, 16 Pong envs (target <= 2 s): "
        f"median {statistics.median(startups):.2f} s {[round(s, 2) for s in startups]}"
    )


if __name__ == "__main__":
    main()
