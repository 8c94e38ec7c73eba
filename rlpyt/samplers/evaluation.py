"""Evaluation collectors: run whole episodes with the agent in eval mode, without length bias.

Box: Collector (evaluation). ``SerialSampler`` calls ``SerialEvalCollector.collect_evaluation``
in the calling process; CPU sampler workers call ``CpuEvalCollector.collect_per_env`` and the
master selects over all workers' envs with :func:`select_unbiased`; GPU workers use
``GpuEvalCollector`` (``rlpyt.samplers.parallel.gpu.collectors``), built on the same base.
Invariant: every env runs its own quota of episodes from a fresh reset, and the result keeps
the same number of first complete episodes from every env that completed one.

Seeding: an evaluation's randomness comes from the sampler seed and the iteration alone
(:func:`evaluation_seed`). At its start every eval env is seeded ``evaluation_seed(seed, itr)
+ g`` (``g``: its global eval index) before its reset, and the agent's draws (epsilon-greedy
coin flips, sampled actions) come from the process's generators reseeded for the evaluation
and restored afterwards (:func:`evaluation_rng`). So the evaluation at an iteration gives the
same trajectories whatever evaluations ran before it (a run stopped and resumed logs the
uninterrupted run's rows), and training draws are untouched by evaluations.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.queues import Queue
from typing import Any

import numpy as np
import torch

from rlpyt.envs.base import Env
from rlpyt.envs.traj_info import TrajInfo, TrajInfoRows
from rlpyt.protocols import Agent
from rlpyt.samplers.collections import StepBuffer
from rlpyt.samplers.episode import EpisodeStepper
from rlpyt.samplers.vector import vector_env_of
from rlpyt.utils.buffer import buffer_from_example, buffer_func, torchify_buffer
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.hyperparams import REQUIRED, Hyperparams, fixed, hyperparam

EVAL_STREAM = 0x6576616C  # SeedSequence key of evaluations, apart from training noise and envs


def evaluation_seed(seed: int, itr: int, *keys: int) -> int:
    """The seed of the evaluation at iteration ``itr``: a function of ``(seed, itr, *keys)`` only.

    Args:
        seed: The sampler seed (the run seed + 1).
        itr: The iteration the evaluation follows (0 also before training).
        keys: Further ints that select a stream (the collector rank for the process's
            generators; none for the envs' seeds).

    Returns:
        An int in ``[0, 2**32)``.
    """
    entropy = [int(seed) % 2**64, EVAL_STREAM, int(itr) % 2**64, *(int(k) % 2**64 for k in keys)]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


@contextmanager
def evaluation_rng(seed: int | None, itr: int, rank: int = 0) -> Iterator[None]:
    """Within: Python's, numpy's and torch's generators seeded for this evaluation; restored after.

    The agent's evaluation draws (epsilon-greedy coin flips, sampled actions, any numpy draw)
    then depend on ``(seed, itr, rank)`` alone, and the training streams of the process carry on
    afterwards as if no evaluation had run. CUDA generators are forked and seeded too where
    CUDA is already initialized (an agent on the GPU draws there); CUDA is never started here.

    Args:
        seed: The sampler seed; None leaves the generators alone (unseeded evaluation).
        itr: The evaluation's iteration.
        rank: The process's rank among those that evaluate (CPU sampler workers).
    """
    if seed is None:
        yield
        return
    eval_seed = evaluation_seed(seed, itr, rank)
    python_state, numpy_state = random.getstate(), np.random.get_state()
    cuda = torch.cuda.is_initialized()
    devices = list(range(torch.cuda.device_count())) if cuda else []
    try:
        with torch.random.fork_rng(devices=devices):
            random.seed(eval_seed)
            np.random.seed(eval_seed)
            torch.default_generator.manual_seed(eval_seed)  # not torch.manual_seed: see below
            if cuda:  # seeding CUDA before it starts would queue the seed for training's start
                torch.cuda.manual_seed_all(eval_seed)
            yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)


class BaseEvalCollector(EpisodeStepper, Hyperparams):
    """Runs evaluation episodes and returns only complete trajectories, without length bias.

    Bias: stopping all envs once N trajectories are done over-represents short episodes. Here
    each env runs its own quota of episodes (``ceil(max_trajectories / n_envs)``, or as many as
    fit in ``max_T`` steps) and the result keeps, from every env, the same number of its first
    complete episodes — an unbiased sample of episodes. An env that met its quota stops
    stepping (``active[b]`` False); a trajectory end resets the env at once.

    The keywords are the plumbing a sampler passes (declared once, here).
    """

    rank: int = hyperparam(REQUIRED, "Worker rank.")
    envs: list[Env] = hyperparam(REQUIRED, "Evaluation envs.")
    TrajInfoCls: Callable[[], TrajInfo] = hyperparam(REQUIRED, "Callable making a fresh TrajInfo.")
    traj_infos_queue: Queue | None = hyperparam(
        None, "Queue for parallel collectors (None in serial)."
    )
    max_T: int = hyperparam(1000, "Step budget per env.")
    agent: Agent | None = hyperparam(None, "Agent (CPU and serial eval collectors).")
    sync: AttrDict | None = hyperparam(None, "Parallel control flags.")
    step_buffer_np: StepBuffer | None = hyperparam(
        None, "Step buffer ``[B_local]`` (GPU eval collectors)."
    )
    max_trajectories: int | None = hyperparam(
        None, "Total trajectories wanted (None: as many as fit in ``max_T``)."
    )

    def __post_init__(self) -> None:
        """Whole steps; every env active; unseeded until the sampler seeds the evaluations."""
        super().__post_init__()
        self.max_T = int(self.max_T)
        self.active = np.ones(len(self.envs), dtype=bool)  # envs still short of their quota
        self.seed: int | None = None
        self.env_ranks = list(range(len(self.envs)))

    def seed_evaluations(self, seed: int | None, env_ranks: list[int] | range) -> None:
        """Derive every evaluation's randomness from ``(seed, itr)``; the samplers call this.

        Args:
            seed: The sampler seed (None: evaluations stay unseeded, the envs' own generators
                carry on from one evaluation to the next).
            env_ranks: The global eval index of each of ``envs`` (contiguous).
        """
        self.seed = None if seed is None else int(seed)
        self.env_ranks = [int(g) for g in env_ranks]

    def seed_envs(self, itr: int) -> None:
        """Seed env ``g`` (global eval index) ``evaluation_seed(seed, itr) + g`` for its next reset.

        A vector env gets ``vec_env.seed(evaluation_seed(seed, itr) + env_ranks[0])``, which
        seeds its env b the same way. Envs without a ``seed`` method are left alone.
        """
        if self.seed is None or not self.envs:
            return
        base = evaluation_seed(self.seed, itr)
        vec_env = vector_env_of(self.envs)
        if vec_env is not None:
            vec_env.seed(base + self.env_ranks[0])
            return
        for env, g in zip(self.envs, self.env_ranks, strict=True):
            if callable(getattr(env, "seed", None)):
                env.seed(base + g)

    def quota(self) -> int | None:
        """Episodes each env should complete (None: unlimited within max_T)."""
        if self.max_trajectories is None:
            return None
        return -(-int(self.max_trajectories) // len(self.envs))

    def collect_evaluation(self, itr: int) -> list[TrajInfo]:
        """Run the evaluation; returns the selected TrajInfos (see :func:`select_unbiased`)."""
        return select_unbiased(self.collect_per_env(itr))

    def collect_per_env(self, itr: int) -> list[list[TrajInfo]]:
        """Run the evaluation; returns each env's complete TrajInfos, in order.

        Parallel samplers gather these lists from all workers and select over all envs.
        """
        raise NotImplementedError

    def _new_traj_infos(self) -> TrajInfoRows:
        """A fresh TrajInfo per env (vector collectors keep them as one batch)."""
        return [self.TrajInfoCls() for _ in self.envs]

    def _reset_all(self) -> Any:
        """Reset every env; returns their first observations (a list, one per env)."""
        return [env.reset() for env in self.envs]

    def _write_rows(self, observation: Any, observations: Any) -> None:
        """Copy the observations :meth:`_reset_all` returned into the ``[B, ...]`` buffer."""
        for b, o in enumerate(observations):
            observation[b] = o

    def _envs_to_step(self, action: np.ndarray, reward: np.ndarray, done: np.ndarray) -> list[int]:
        """The envs still short of their quota."""
        return np.flatnonzero(self.active).tolist()

    def _active_rows(self) -> np.ndarray:
        """Vector step: the envs still short of their quota, as a mask."""
        return self.active

    def _file_trajectory(self, b: int, traj_info: TrajInfo, completed: list) -> None:
        """File the TrajInfo under env ``b`` (``completed`` is per env); stop it at its quota."""
        completed[b].append(traj_info)
        quota = self.quota()
        if quota is not None and len(completed[b]) >= quota:
            self.active[b] = False


def first_row(observations: Any) -> Any:
    """Env 0's observation from a list of observations or a ``[B, ...]`` array (or record)."""
    if isinstance(observations, list):
        return observations[0]
    return buffer_func(observations, lambda array: array[0])


def select_unbiased(completed: list[list[TrajInfo]]) -> list[TrajInfo]:
    """From per-env lists of complete trajectories, keep the first k of each env.

    ``k`` is the smallest count over envs that completed at least one episode (envs with
    none are left out); this keeps every env's contribution equal in number, so short episodes
    are not over-represented.
    """
    counts = [len(c) for c in completed if c]
    if not counts:
        return []
    k = min(counts)
    return [traj for c in completed if c for traj in c[:k]]


class CpuEvalCollector(BaseEvalCollector):
    """Evaluation with the collector's own agent (serial, or in a CPU sampler worker).

    The agent inputs ``[B_local, ...]`` live in buffers built at the first evaluation and
    reused by every later one. ``collect_evaluation`` also puts the selected TrajInfos on
    ``traj_infos_queue`` (if given), then ``None``.
    """

    agent: Agent
    _buffers: tuple[Any, np.ndarray, np.ndarray, np.ndarray] | None = None

    def collect_evaluation(self, itr: int) -> list[TrajInfo]:
        """Run evaluation episodes (see BaseEvalCollector); returns the selected TrajInfos."""
        completed = super().collect_evaluation(itr)
        if self.traj_infos_queue is not None:
            for traj_info in completed:
                self.traj_infos_queue.put(traj_info)
            self.traj_infos_queue.put(None)
        return completed

    def collect_per_env(self, itr: int) -> list[list[TrajInfo]]:
        """Step the agent and the envs until each env met its quota or ``max_T`` ran out.

        The envs are seeded and the generators reseeded for ``itr`` first (see the module's
        Seeding); the generators are restored afterwards.

        Returns:
            Per env, its complete TrajInfos in order (at most the quota each).
        """
        with evaluation_rng(self.seed, itr, self.rank):
            return self._run_episodes(itr)

    def _run_episodes(self, itr: int) -> list[list[TrajInfo]]:
        traj_infos = self._new_traj_infos()
        completed: list[list[TrajInfo]] = [[] for _ in self.envs]
        self.seed_envs(itr)
        observation, action, reward, done = self._start_episodes()
        obs_pyt, act_pyt, rew_pyt = torchify_buffer((observation, action, reward))
        self.agent.reset()
        self.agent.eval_mode(itr)
        self.active[:] = True
        for _ in range(self.max_T):
            act_pyt, agent_info = self.agent.step(obs_pyt, act_pyt, rew_pyt)
            action = act_pyt.numpy()
            self.step_envs(action, observation, reward, done, agent_info, traj_infos, completed)
            if not self.active.any():
                break
        return completed

    def _start_episodes(self) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
        """Reset every env; returns the buffers ``(observation, action, reward, done)``.

        The buffers are built at the first evaluation (from the first observation) and reused;
        ``action`` holds the null action and ``reward`` 0, the first agent step's inputs.
        """
        first_observations = self._reset_all()
        if self._buffers is None:
            n = len(self.envs)
            null_action = self.envs[0].action_space.null_value()
            self._buffers = (
                buffer_from_example(first_row(first_observations), n),
                buffer_from_example(null_action, n, fill=0),
                np.zeros(n, dtype="float32"),
                np.zeros(n, dtype=bool),
            )
        observation, action, reward, done = self._buffers
        self._write_rows(observation, first_observations)
        action[:] = self.envs[0].action_space.null_value()
        reward[:] = 0
        done[:] = False
        return self._buffers


class SerialEvalCollector(CpuEvalCollector):
    """Runs evaluation with the sampler's agent and returns complete, unbiased trajectories.

    Takes rlpyt's keywords of the serial sampler's eval collector, in its order (``envs,
    agent, TrajInfoCls, max_T, max_trajectories``); the parallel plumbing is fixed.
    """

    rank = fixed(0)
    agent = hyperparam(REQUIRED, "The sampler's agent.", after="envs", type=Agent)
    traj_infos_queue = fixed(None)
    max_T = hyperparam(REQUIRED)
    sync = fixed(None)
    step_buffer_np = fixed(None)
