"""Action servers: the master's side of GPU sampling, one batched agent step per time step.

Box: Sampler (master side). Parallel-sampler classes that GpuSampler and the alternating
samplers extend: ``obtain_samples`` / ``evaluate_agent`` call ``serve_actions`` /
``serve_actions_evaluation`` (through the ``_serve_batch`` / ``_serve_evaluation`` hooks)
between releasing the workers and gathering their reports. Who waits on what, per time step
(``obs_ready`` / ``act_ready``: one semaphore pair per worker):

- the worker releases its ``obs_ready`` when its block of the step buffer holds the new
  observation (and the previous action, reward and done);
- the server acquires every worker's ``obs_ready`` (watching for dead workers while it waits),
  resets the recurrent state of envs that were ``done`` (mid-batch-reset collectors), runs
  ``agent.step`` once over all envs, writes the action into the step buffer and the agent
  fields of ``samples_np[t]``, then releases every ``act_ready``;
- the worker acquires ``act_ready`` (watching that the master lives) and steps its envs.

After the last step each worker releases ``obs_ready`` once more with the final observation:
the server computes ``bootstrap_value`` and resets the recurrent state of envs that ended
(before the value for mid-batch resets, where the env restarted; after it for wait-reset
collectors, where the env restarts only before the next batch), exactly as the CPU collectors
do, so every sampler gives the same samples; then it releases ``act_ready`` a last time, which
tells the workers it has stopped reading the step buffer (wait-reset workers then reset their
finished envs, overlapping the training).

Serving runs with :attr:`ActionServer.serve_torch_threads` torch threads (one), whatever the
runner gave the master for training: while the agent serves, the workers step their envs on the
cores, and a second intra-op thread only competes with them. On a busy machine it did worse
than compete: every small forward waited for an OpenMP thread that the OS had not scheduled
(and whose spin wait took a core meanwhile), and an AlternatingSampler on CartPole fell from
about 1,400 to 56 env steps/s next to two busy loops on two cores.
"""

from __future__ import annotations

from multiprocessing.synchronize import Semaphore
from typing import Protocol, cast

import numpy as np
import torch

from rlpyt.protocols import Agent
from rlpyt.samplers.collections import StepBuffer
from rlpyt.samplers.evaluation import evaluation_rng
from rlpyt.samplers.parallel.base import ParallelSamplerBase
from rlpyt.utils.buffer import buffer_method, numpify_buffer
from rlpyt.utils.collections import AttrDict
from rlpyt.utils.launching.threads import torch_threads
from rlpyt.utils.shared_memory import SharedNdarray


class ServedAgent(Agent, Protocol):
    """The agent an action server runs: an Agent, plus ``value``.

    ``value`` is needed only when the samples record ``bootstrap_value`` (policy gradients).
    """

    def value(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """``V(s)`` for every env, ``[B]``, CPU."""
        ...


class ActionServer(ParallelSamplerBase):
    """The GPU samplers' serving loop: actions for all envs, for training and for evaluation.

    Serves from the sampler's agent (a :class:`ServedAgent`, see :meth:`_served`), samples
    buffer, semaphores and workers, and from the step buffers that
    :class:`~rlpyt.samplers.parallel.gpu.sampler.GpuSamplerBase` allocates (GpuSampler is
    both).

    Attributes:
        serve_torch_threads: Torch intra-op threads while serving (None: the runner's); see
            the module docstring for why one.
    """

    serve_torch_threads: int | None = 1
    seed: int | None = None  # the sampler seed (None until initialize: unseeded evaluations)

    # Allocated by GpuSamplerBase._build_buffers.
    eval_active: SharedNdarray  # [eval_n_envs] bool
    eval_step_buffer_np: StepBuffer  # [eval_n_envs] numpy
    eval_step_buffer_pyt: StepBuffer  # [eval_n_envs] torch views
    step_buffer_np: StepBuffer  # [B] numpy
    step_buffer_pyt: StepBuffer  # [B] torch views

    def _serve_batch(self, itr: int) -> None:
        """The sampler's hook: serve one batch (see :meth:`serve_actions`)."""
        with torch_threads(self.serve_torch_threads):
            self.serve_actions(itr)

    def _serve_evaluation(self, itr: int) -> None:
        """The sampler's hook: serve one evaluation (see :meth:`serve_actions_evaluation`).

        The agent draws from generators reseeded for ``itr`` and restored afterwards (see
        :func:`~rlpyt.samplers.evaluation.evaluation_rng`).
        """
        with torch_threads(self.serve_torch_threads), evaluation_rng(self.seed, itr):
            self.serve_actions_evaluation(itr)

    def serve_actions(self, itr: int) -> None:
        """Run the agent for ``batch_T`` steps while the workers step their envs."""
        step_np, step_pyt = self.step_buffer_np, self.step_buffer_pyt
        agent_buf = self.samples_np.agent
        obs_ready = [sync.obs_ready for sync in self.syncs]
        act_ready = [sync.act_ready for sync in self.syncs]
        inputs = (step_pyt.observation, step_pyt.action, step_pyt.reward)
        for t in range(self.batch_spec.T):
            self._acquire_all(obs_ready)
            if t > 0 and self.mid_batch_reset:
                self._reset_done(step_np.done)
            action, agent_info = self.agent.step(*inputs)
            action = action.numpy()
            step_np.action[:] = action
            agent_buf.action[t] = action
            if agent_info:
                agent_buf.agent_info[t] = numpify_buffer(agent_info)
            _release_all(act_ready)
        self._acquire_all(obs_ready)  # the final observation
        self._finish_batch(inputs, step_np.done)
        _release_all(act_ready)  # done reading: workers may reset envs between batches

    def _finish_batch(self, inputs: tuple, done: np.ndarray) -> None:
        if self.mid_batch_reset:
            self._reset_done(done)
        if "bootstrap_value" in self.samples_np.agent:
            self.samples_np.agent.bootstrap_value[0] = self._served().value(*inputs).numpy()
        if not self.mid_batch_reset:
            self._reset_done(done)

    def _reset_done(self, done: np.ndarray) -> None:
        for b in np.flatnonzero(done).tolist():
            self.agent.reset_one(idx=b)

    def _acquire_all(self, semaphores: list[Semaphore]) -> None:
        workers = self.workers
        assert workers is not None  # the server runs only between start-up and shutdown
        for semaphore in semaphores:
            workers.acquire(semaphore, "observations from the sampler workers")

    def _served(self) -> ServedAgent:
        """The agent, with the ``value`` a server calls where the samples record it."""
        return cast(ServedAgent, self.agent)  # not checked: agents without it never get here

    def serve_actions_evaluation(self, itr: int) -> None:
        """Run the agent for the eval envs until none is active or ``max_T`` steps ran."""
        syncs = [
            sync for sync, ranks in zip(self.syncs, self.worker_eval_ranks, strict=True) if ranks
        ]
        obs_ready = [sync.eval_obs_ready for sync in syncs]
        act_ready = [sync.eval_act_ready for sync in syncs]
        self.agent.reset()
        for t in range(self._eval_max_T()):
            self._acquire_all(obs_ready)
            if not self.eval_active.any():
                self.ctrl.stop_eval.value = True
                _release_all(act_ready)
                break
            self._eval_step(t)
            _release_all(act_ready)

    def _eval_step(self, t: int) -> None:
        """Actions for every eval env into the eval step buffer (done envs' states reset first)."""
        step_np, step_pyt = self.eval_step_buffer_np, self.eval_step_buffer_pyt
        if t > 0:
            self._reset_done(step_np.done)
        action, _agent_info = self.agent.step(
            step_pyt.observation, step_pyt.action, step_pyt.reward
        )
        step_np.action[:] = action.numpy()


def _release_all(semaphores: list[Semaphore]) -> None:
    for semaphore in semaphores:
        semaphore.release()


class AlternatingActionServer(ActionServer):
    """The serving loop of AlternatingSampler: the two env groups take turns with the agent.

    Group ``g`` is the columns ``g::2`` of the step buffer; each worker has one semaphore pair
    per group (``sync.halves[g]``) and steps its half of a group while the agent serves the
    other. Per time step, for group ``g`` in (0, 1): acquire the group's ``obs_ready`` from
    every worker holding envs of it, run the agent on the group's (strided) view of the step
    buffer, release its ``act_ready``. Alternating recurrent agents keep one state per group
    and switch on every step; ``reset_one`` indexes are local to the group.
    """

    # The two-group layout, set by AlternatingSamplerBase._layout.
    group_slices: list[slice]
    group_workers: list[list[int]]
    eval_group_slices: list[slice]

    def serve_actions(self, itr: int) -> None:
        """Serve ``batch_T`` steps, alternating between the two groups."""
        groups = self._groups()
        for t in range(self.batch_spec.T):
            for group in groups:
                self._acquire_all(group.obs_ready)
                self._serve_group(t, group)
                _release_all(group.act_ready)
        for group in groups:
            self._acquire_all(group.obs_ready)  # the final observations
        self._finish_groups(groups)

    def _groups(self) -> list[AttrDict]:
        """Per group: its env columns, step buffer views and each worker's half semaphores."""
        return [
            AttrDict(
                envs=envs,
                step_np=self.step_buffer_np[envs],
                step_pyt=self.step_buffer_pyt[envs],
                obs_ready=[self.syncs[w].halves[g].obs_ready for w in workers],
                act_ready=[self.syncs[w].halves[g].act_ready for w in workers],
            )
            for g, (envs, workers) in enumerate(
                zip(self.group_slices, self.group_workers, strict=True)
            )
        ]

    def _serve_group(self, t: int, group: AttrDict) -> None:
        step_np, step_pyt = group.step_np, group.step_pyt
        agent_buf = self.samples_np.agent
        if t > 0 and self.mid_batch_reset:
            self._reset_done(step_np.done)
        action, agent_info = self.agent.step(*_contiguous_inputs(step_pyt))
        action = action.numpy()
        step_np.action[:] = action
        agent_buf.action[t, group.envs] = action
        if agent_info:
            agent_buf.agent_info[t, group.envs] = numpify_buffer(agent_info)

    def _finish_groups(self, groups: list[AttrDict]) -> None:
        """Bootstrap values and rnn resets per group, then tell the workers we are done."""
        for group in groups:
            step_pyt, done = group.step_pyt, group.step_np.done
            if self.mid_batch_reset:
                self._reset_done(done)
            if "bootstrap_value" in self.samples_np.agent:
                value = self._served().value(*_contiguous_inputs(step_pyt))
                self.samples_np.agent.bootstrap_value[0, group.envs] = value.numpy()
            if not self.mid_batch_reset:
                self._reset_done(done)
            self.agent.toggle_alt()  # value() does not advance the state: switch by hand
        for group in groups:
            _release_all(group.act_ready)

    def _eval_step(self, t: int) -> None:
        """Evaluation: all eval workers each step, the agent once per group (no overlap)."""
        step_np, step_pyt = self.eval_step_buffer_np, self.eval_step_buffer_pyt
        n_envs = len(step_np.done)
        for envs in self.eval_group_slices:
            if not len(range(n_envs)[envs]):
                self.agent.toggle_alt()  # keep the pair of states in step
                continue
            if t > 0:
                self._reset_done(step_np.done[envs])
            action, _agent_info = self.agent.step(*_contiguous_inputs(step_pyt[envs]))
            step_np.action[envs] = action.numpy()


def _contiguous_inputs(step_pyt: StepBuffer) -> tuple[torch.Tensor, ...]:
    """``(observation, prev_action, prev_reward)`` of a group's (strided) step buffer view.

    A group's envs are every other column, so its views are strided; models may ``view``
    their inputs, which needs contiguous memory (one small copy per forward).
    """
    return cast(
        tuple[torch.Tensor, ...],
        tuple(
            buffer_method(x, "contiguous")
            for x in (step_pyt.observation, step_pyt.action, step_pyt.reward)
        ),
    )


class NoOverlapAlternatingActionServer(AlternatingActionServer):
    """Like AlternatingActionServer, but the two groups never step their envs at once.

    A group's actions are released only when the other group has finished stepping (its
    observations arrived), so the agent serves one group while the other one steps, and the
    groups' env steps never overlap (for workers sharing cores, e.g. hyperthread pairs).
    """

    def serve_actions(self, itr: int) -> None:
        """Serve ``batch_T`` steps; one group steps while the agent serves the other."""
        groups = self._groups()
        pending = -1  # the group whose actions are computed but not yet released (-1: none)
        for t in range(self.batch_spec.T):
            for alt, group in enumerate(groups):
                self._acquire_all(group.obs_ready)
                if pending >= 0:
                    _release_all(groups[pending].act_ready)
                self._serve_group(t, group)
                pending = alt
        other = groups[1 - pending]
        self._acquire_all(other.obs_ready)  # final observations of the other group first
        _release_all(groups[pending].act_ready)
        self._acquire_all(groups[pending].obs_ready)
        self._finish_groups(groups)
