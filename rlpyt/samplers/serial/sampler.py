"""SerialSampler: every env, the agent and the buffers in the calling process.

The twin of every parallel sampler: same interface, same seeding, same samples for the same
seed. Use it to debug, and for cheap envs where one process is fast enough.
"""

from __future__ import annotations

import warnings
from typing import Any

from rlpyt.samplers.base import BaseSampler
from rlpyt.samplers.buffer import build_samples_buffer
from rlpyt.samplers.collections import TrajInfoFactory
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector
from rlpyt.samplers.serial.collectors import SerialEvalCollector
from rlpyt.samplers.state import collector_state, load_collector_state
from rlpyt.utils.seed import set_envs_seeds

EVAL_SEED_OFFSET = 1_000_003  # eval envs get seeds far from the training envs'


class SerialSampler(BaseSampler):
    """Samples ``[T, B]`` batches in the calling process (see BaseSampler for the arguments).

    Defaults: ``CollectorCls=CpuResetCollector``, ``eval_CollectorCls=SerialEvalCollector``.
    """

    def __init__(
        self,
        *args: Any,
        CollectorCls: Any = CpuResetCollector,  # noqa: N803
        eval_CollectorCls: Any = SerialEvalCollector,  # noqa: N803
        **kwargs: Any,
    ):
        super().__init__(  # type: ignore[misc]  # the classes are keyword-only here
            *args, CollectorCls=CollectorCls, eval_CollectorCls=eval_CollectorCls, **kwargs
        )
        self.envs: list = []
        self.eval_envs: list = []

    def initialize(
        self,
        agent: Any,
        affinity: Any = None,
        seed: int | None = None,
        bootstrap_value: bool = False,
        traj_info_kwargs: dict | None = None,
        rank: int = 0,
        world_size: int = 1,
    ) -> Any:
        """Build envs (env i seeded ``seed + global index``), the agent and the buffers.

        Returns:
            The example records used to allocate the buffers (for ``algo.initialize``).
        """
        B = self.batch_spec.B
        global_B = B * world_size
        env_ranks = list(range(rank * B, (rank + 1) * B))
        self.envs = [self.EnvCls(**self.env_kwargs) for _ in range(B)]
        if seed is not None:
            set_envs_seeds(self.envs, seed + rank * B)
        example_env = self.EnvCls(**self.env_kwargs)  # throwaway: keeps env 0's seeded reset
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
        self.collector = self.CollectorCls(
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

    def _initialize_eval(self, agent: Any, seed: int | None) -> None:
        self.eval_envs = [self.EnvCls(**self.eval_env_kwargs) for _ in range(self.eval_n_envs)]
        if seed is not None:
            set_envs_seeds(self.eval_envs, seed + EVAL_SEED_OFFSET)
        eval_max_T = max(1, int(self.eval_max_steps or 0) // self.eval_n_envs)
        self.eval_collector = self.eval_CollectorCls(
            envs=self.eval_envs,
            agent=agent,
            TrajInfoCls=self.traj_info_factory,
            max_T=eval_max_T,
            max_trajectories=self.eval_max_trajectories,
        )

    def obtain_samples(self, itr: int) -> tuple[Any, list]:
        """Collect one batch; returns ``(samples_pyt [T, B], completed traj_infos)``."""
        self.agent_inputs, self.traj_infos, completed = self.collector.collect_batch(
            self.agent_inputs, self.traj_infos, itr
        )
        return self.samples_pyt, completed

    def evaluate_agent(self, itr: int) -> list:
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
        if "envs_error" in state:
            warnings.warn(
                f"Envs cannot be pickled ({state['envs_error']}); resume will not be exact.",
                stacklevel=2,
            )
        return state

    def load_state_dict(self, state: dict) -> None:
        """Restore what :meth:`state_dict` returned (call after ``initialize``)."""
        self.agent_inputs, self.traj_infos = load_collector_state(
            self.collector, self.agent_inputs, state, self.agent
        )
