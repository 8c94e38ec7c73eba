"""SerialSampler: every env, the agent and the buffers in the calling process.

Box: Sampler. The runner calls it like any sampler (``initialize``, then ``obtain_samples`` /
``evaluate_agent`` per iteration). The twin of every parallel sampler: same interface, same
seeding, same samples for the same seed (tested sample for sample). Use it to debug, and for
cheap envs where one process is fast enough. It uses the shared collectors of
``rlpyt/samplers`` (``agent_collectors``, ``evaluation``), never ``rlpyt/samplers/parallel``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from rlpyt.envs.traj_info import TrajInfo, TrajInfoFactory
from rlpyt.samplers.agent_collectors import CpuResetCollector
from rlpyt.samplers.base import EVAL_SEED_OFFSET, BaseSampler
from rlpyt.samplers.buffer import build_samples_buffer
from rlpyt.samplers.collections import Samples
from rlpyt.samplers.evaluation import SerialEvalCollector
from rlpyt.samplers.state import collector_state, load_collector_state
from rlpyt.samplers.vector import collector_class, make_envs, make_example_env
from rlpyt.utils.hyperparams import hyperparam

if TYPE_CHECKING:
    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent
    from rlpyt.utils.collections import AttrDict

__all__ = ["EVAL_SEED_OFFSET", "SerialSampler"]  # EVAL_SEED_OFFSET: kept importable from here


class SerialSampler(BaseSampler):
    """Samples ``[T, B]`` batches in the calling process."""

    CollectorCls = hyperparam(CpuResetCollector)
    eval_CollectorCls = hyperparam(SerialEvalCollector)

    def __post_init__(self) -> None:
        """The checks of BaseSampler; no envs until ``initialize``."""
        super().__post_init__()
        self.envs: list[Env] = []
        self.eval_envs: list[Env] = []

    def initialize(
        self,
        agent: Agent,
        affinity: dict | None = None,
        seed: int | None = None,
        bootstrap_value: bool = False,
        traj_info_kwargs: dict | None = None,
        *,
        rank: int = 0,
        world_size: int = 1,
    ) -> AttrDict:
        """Build envs (env i seeded ``seed + global index``), the agent and the buffers.

        Returns:
            The example records used to allocate the buffers (for ``algo.initialize``).
        """
        B = self.batch_spec.B
        global_B = B * world_size
        env_ranks = list(range(rank * B, (rank + 1) * B))
        self.envs = make_envs(
            self.EnvCls, self.env_kwargs, B, None if seed is None else seed + rank * B
        )
        example_env = make_example_env(
            self.EnvCls, self.env_kwargs
        )  # throwaway: keeps env 0's seeded reset
        agent.initialize(
            example_env.spaces, share_memory=False, global_B=global_B, env_ranks=env_ranks
        )
        self.samples_pyt, self.samples_np, examples = build_samples_buffer(
            agent,
            example_env,
            self.batch_spec,
            bootstrap_value,
            agent_shared=False,
            env_shared=False,
        )
        example_env.close()
        self.traj_info_factory = TrajInfoFactory(self.TrajInfoCls, **(traj_info_kwargs or {}))
        self.collector = collector_class(self.CollectorCls, self.envs)(
            rank=0,
            envs=self.envs,
            samples_np=self.samples_np,
            batch_T=self.batch_spec.T,
            TrajInfoCls=self.traj_info_factory,
            agent=agent,
            global_B=global_B,
            env_ranks=env_ranks,
            seed=seed,
        )
        if self.eval_n_envs > 0:
            self._initialize_eval(agent, seed)
        self.agent_inputs, self.traj_infos = self.collector.start_envs(self.max_decorrelation_steps)
        self.collector.start_agent()
        self.agent = agent
        return examples

    def _initialize_eval(self, agent: Agent, seed: int | None) -> None:
        if self.eval_CollectorCls is None:
            raise ValueError("eval_n_envs > 0 needs an eval_CollectorCls.")
        eval_seed = None if seed is None else seed + EVAL_SEED_OFFSET
        self.eval_envs = make_envs(self.EnvCls, self.eval_env_kwargs, self.eval_n_envs, eval_seed)
        eval_max_T = max(1, int(self.eval_max_steps or 0) // self.eval_n_envs)
        self.eval_collector = collector_class(self.eval_CollectorCls, self.eval_envs)(
            envs=self.eval_envs,
            agent=agent,
            TrajInfoCls=self.traj_info_factory,
            max_T=eval_max_T,
            max_trajectories=self.eval_max_trajectories,
        )
        self.eval_collector.seed_evaluations(seed, range(self.eval_n_envs))

    def obtain_samples(self, itr: int) -> tuple[Samples, list[TrajInfo]]:
        """Collect one batch; returns ``(samples_pyt [T, B], completed traj_infos)``."""
        self.agent_inputs, self.traj_infos, completed = self.collector.collect_batch(
            self.agent_inputs, self.traj_infos, itr
        )
        return self.samples_pyt, completed

    def evaluate_agent(self, itr: int) -> list[TrajInfo]:
        """Run the evaluation collector; returns complete TrajInfos."""
        if self.eval_n_envs <= 0:
            raise RuntimeError("evaluate_agent needs eval_n_envs > 0 in the sampler.")
        return self.eval_collector.collect_evaluation(itr)

    def shutdown(self) -> None:
        """Close every env (idempotent)."""
        for env in self.envs + self.eval_envs:
            close = getattr(env, "close", None)
            if close is not None:
                close()
        self.envs, self.eval_envs = [], []

    def state_dict(self) -> dict:
        """The collector's state for exact resume (see :mod:`rlpyt.samplers.state`).

        Envs that cannot be pickled are left out with a warning; a resumed run then restarts
        them, and is no longer exact.
        """
        state = collector_state(self.collector, self.agent_inputs, self.traj_infos, self.agent)
        if (error := state.get("envs_error")) is not None:
            warnings.warn(
                f"Envs cannot be pickled ({error}); resume will not be exact.", stacklevel=2
            )
        return state

    def load_state_dict(self, state: dict) -> None:
        """Restore what :meth:`state_dict` returned (call after ``initialize``)."""
        self.agent_inputs, self.traj_infos = load_collector_state(
            self.collector, self.agent_inputs, state, self.agent
        )
