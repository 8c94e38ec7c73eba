"""Replay plumbing of replay-based algorithms: choose and build the replay, append batches.

Box: Algorithm (replay families). ``rlpyt.algos.replay_base.ReplayRlAlgorithm`` (the base of
DQN, CategoricalDQN, R2D1, DDPG, TD3, SAC and SAC_V) mixes in :class:`ReplayAlgoMixin`: at
``initialize`` it builds the replay from the sampler's example step (``make_replay_buffer``),
every ``optimize_agent`` hands it the sampler's ``[T, B]`` batch (``append_samples``), marking
the padding steps of wait-reset collectors not valid, and ``draw`` returns a replayed batch on
the agent's device. It also says when learning runs (``learning_at``). For the asynchronous
runner, ``async_initialize`` builds the ``Async*`` twin of the same replay in shared memory and
returns it: the runner's memory copiers then call ``samples_to_buffer`` and the replay's
``append_samples``, and the optimizer process ``optim_initialize`` and ``optimize_agent(itr,
sampler_itr=...)`` (no samples: nothing appended, ``updates_per_sync`` updates). Subclasses
choose the replay class (``replay_buffer_class``) and whether time limits are stored
(``stores_timeout``).

Attributes the mixin reads from the algorithm: ``replay_size``, ``discount``, ``n_step_return``,
``prioritized_replay`` (and ``pri_alpha``, ``pri_beta_init``, ``default_priority`` with it),
``ReplayBufferCls``, ``mid_batch_reset``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import torch

from rlpyt.algos.base import batch_to_device
from rlpyt.algos.utils import valid_from_done
from rlpyt.replays.async_ import async_twin
from rlpyt.replays.non_sequence.frame import (
    PrioritizedReplayFrameBuffer,
    UniformReplayFrameBuffer,
)
from rlpyt.replays.non_sequence.prioritized import PrioritizedReplayBuffer
from rlpyt.replays.non_sequence.uniform import UniformReplayBuffer
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.logging import logger

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from rlpyt.protocols import Agent, ReplayAgent
    from rlpyt.replays.base import BaseReplayBuffer
    from rlpyt.utils.collections import AttrDict
    from rlpyt.utils.records import BatchSpec, Samples

SamplesToBuffer = namedarraytuple("SamplesToBuffer", ["observation", "action", "reward", "done"])
SamplesToBufferTl = namedarraytuple(
    "SamplesToBufferTl", ["observation", "action", "reward", "done", "timeout"]
)
# With wait-reset collectors (mid_batch_reset=False) the record carries the [T, B] flags of the
# steps that are not padding; the replay's append_samples takes them from the record.
SamplesToBufferValid = namedarraytuple("SamplesToBufferValid", SamplesToBuffer._fields + ("valid",))
SamplesToBufferTlValid = namedarraytuple(
    "SamplesToBufferTlValid", SamplesToBufferTl._fields + ("valid",)
)


class ReplayAlgoMixin:
    """Builds the algorithm's replay (``self.replay_buffer``) and feeds it sampler batches."""

    replay_size: int
    discount: float
    n_step_return: int
    prioritized_replay: bool
    pri_alpha: float
    pri_beta_init: float
    default_priority: float
    ReplayBufferCls: type | None
    mid_batch_reset: bool = True  # set by initialize (False: wait-reset collectors)
    replay_buffer: Any = None  # built by initialize / async_initialize
    snapshot_replay: bool
    min_itr_learn: int
    target_update_interval: int
    update_counter: int
    batch_size: int
    # Raised after a resume whose snapshot held no replay (class defaults, set per instance):
    _learn_from_itr = 0
    _refill_replay = False
    _async_optim = False  # set by async_initialize: the optimizer trains a model of its own
    agent: ReplayAgent
    updates_per_sync: int
    updates_per_optimize: int

    def async_initialize(
        self,
        agent: Agent,
        sampler_n_itr: int,
        batch_spec: BatchSpec,
        mid_batch_reset: bool,
        examples: AttrDict,
        world_size: int = 1,
    ) -> Any:
        """Asynchronous runners, in the master before starting processes: the shared replay.

        Sets the schedules (learning start, epsilon or exploration, beta) in sampler
        iterations and builds the ``Async*`` twin of the replay :meth:`make_replay_buffer`
        would build. The optimizer process then calls ``optim_initialize`` (not done here).

        Args:
            agent: The agent, initialized by the sampler with ``share_memory=True``.
            sampler_n_itr: Iterations the sampler process will run.
            batch_spec: The sampler's ``BatchSpec(T, B)``; the replay has B columns.
            mid_batch_reset: False for wait-reset collectors (padding steps never replayed).
            examples: The sampler's example step.
            world_size: Optimizer processes.

        Returns:
            The replay, in shared memory: pass it to the memory-copier processes.
        """
        self.agent = cast("ReplayAgent", agent)
        self.n_itr = sampler_n_itr
        self.mid_batch_reset = mid_batch_reset
        self.world_size = world_size
        self.rank = 0
        self._setup_schedules(batch_spec)
        self.updates_per_optimize = self.updates_per_sync  # per optimize_agent call
        self.replay_buffer = self.make_replay_buffer(examples, batch_spec, async_=True)
        self._async_optim = True
        logger.log(
            f"{type(self).__name__} (asynchronous): {self.updates_per_sync} updates of "
            f"{self.batch_size} per optimize_agent call into {type(self.replay_buffer).__name__}."
        )
        return self.replay_buffer

    def _setup_schedules(self, batch_spec: BatchSpec) -> None:
        """Learning start and the other schedules, in iterations of ``batch_spec.size`` steps."""
        raise NotImplementedError

    def own_optim_model(self) -> None:
        """Asynchronous runs: make the agent train a model apart from the shared one.

        Each ``optim_initialize`` calls this before building its optimizers. Then
        ``agent.send_shared_memory()`` copies the trained weights into the shared model under
        its lock, and the samplers receive them (rlpyt trained the shared model itself on CPU,
        so the send was skipped and the samplers kept the initial weights).
        """
        if self._async_optim:
            self.agent.separate_optim_model()

    def replay_buffer_class(self, examples: AttrDict) -> type:
        """The replay class: ``ReplayBufferCls`` if given, else chosen from the observation.

        A uint8 ``[C, H, W]`` observation is a stack of frames (AtariEnv): each frame is
        stored once (``*ReplayFrameBuffer``). Anything else (state vectors) is stored whole.
        """
        if self.ReplayBufferCls is not None:
            logger.log(f"{type(self).__name__}: replay class given: {self.ReplayBufferCls}.")
            return self.ReplayBufferCls
        self._auto_frames = is_frame_stack(examples.observation)
        if self._auto_frames:
            return (
                PrioritizedReplayFrameBuffer
                if self.prioritized_replay
                else UniformReplayFrameBuffer
            )
        return PrioritizedReplayBuffer if self.prioritized_replay else UniformReplayBuffer

    def stores_timeout(self, examples: AttrDict) -> bool:
        """Whether the replay stores ``timeout`` (a time limit then bootstraps, not a terminal).

        Here: whenever the env reports ``env_info.timeout``. The Q-function policy gradients
        store it only with ``bootstrap_timelimit=True``.
        """
        return hasattr(examples.env_info, "timeout")

    def make_replay_buffer(
        self, examples: AttrDict, batch_spec: BatchSpec, async_: bool = False
    ) -> Any:
        """Build the replay from the example step (stores ``timeout`` per ``stores_timeout``).

        Args:
            examples: The sampler's example step.
            batch_spec: The sampler's ``BatchSpec(T, B)``.
            async_: Build the shared-memory ``Async*`` twin of the chosen class.
        """
        self._auto_frames = False
        self._store_timeout = self.stores_timeout(examples)
        ReplayCls = self.replay_buffer_class(examples)  # noqa: N806
        if async_:
            ReplayCls = self.async_replay_class(ReplayCls)  # noqa: N806
        self._frame_checks_left = 2 if self._auto_frames else 0
        self._last_frames: Any = None
        return ReplayCls(**self.replay_kwargs(examples, batch_spec))

    def replay_kwargs(self, examples: AttrDict, batch_spec: BatchSpec) -> dict[str, Any]:
        """Keywords of the replay class: the stored example, sizes, discount, priorities.

        Subclasses add their own (R2D1: the recurrent state in the example, sequence sizes).
        """
        fields: dict[str, Any] = dict(
            observation=examples.observation,
            action=examples.action,
            reward=examples.reward,
            done=examples.done,
        )
        if self._store_timeout:
            fields["timeout"] = np.asarray(examples.env_info.timeout, dtype=bool)
            example: Any = SamplesToBufferTl(**fields)
        else:
            example = SamplesToBuffer(**fields)
        kwargs: dict[str, Any] = dict(
            example=example,
            size=self.replay_size,
            B=batch_spec.B,
            discount=self.discount,
            n_step_return=self.n_step_return,
        )
        if self.prioritized_replay:
            kwargs.update(
                alpha=self.pri_alpha,
                beta=self.pri_beta_init,
                default_priority=self.default_priority,
            )
        return kwargs

    def async_replay_class(self, cls: type) -> type:
        """The shared-memory twin of a replay class (itself if already async).

        The twin is the class declared with ``twin_of=cls`` (``rlpyt.replays.async_``), e.g.
        ``AsyncUniformReplayBuffer`` for ``UniformReplayBuffer``.

        Raises:
            ValueError: ``ReplayBufferCls`` names a replay with no async twin, or a sync class.
        """
        twin = async_twin(cls)
        if twin is cls:
            return cls
        given = self.ReplayBufferCls is not None
        if given or twin is None:
            hint = (
                f"pass ReplayBufferCls={twin.__name__} ({twin.__module__})"
                if twin
                else ("pass a replay class with async_ = True (an Async* replay)")
            )
            raise ValueError(
                f"{type(self).__name__}: the asynchronous runner shares the replay between "
                f"processes, but ReplayBufferCls={cls.__name__} keeps it in one process; "
                f"{hint}, or leave ReplayBufferCls=None to have it chosen."
            )
        return twin

    def samples_to_buffer(self, samples: Samples) -> Any:
        """The replay's record of a sampler batch: ``[T, B]`` observation, action, ... .

        Asynchronous runners' memory copiers call it and hand the result to the replay's
        ``append_samples``. With ``mid_batch_reset=False`` the record also carries ``valid``
        (False on wait-reset padding steps), which the replay takes from it.
        """
        env = samples.env
        fields = dict(
            observation=env.observation,
            action=samples.agent.action,
            reward=env.reward,
            done=env.done,
        )
        if self._store_timeout:
            fields["timeout"] = env.env_info.timeout
        if self._frame_checks_left:
            self._check_frame_stacking(env.observation, env.done)
            if self._async_optim:  # each copier sees every other batch: check within batches
                self._last_frames = None
        if self.mid_batch_reset:
            return (SamplesToBufferTl if self._store_timeout else SamplesToBuffer)(**fields)
        valid = np.asarray(valid_from_done(np.asarray(env.done, dtype=np.float32)) > 0)
        RecordCls = SamplesToBufferTlValid if self._store_timeout else SamplesToBufferValid  # noqa: N806
        return RecordCls(**fields, valid=valid)

    def append_samples(self, samples: Samples) -> None:
        """Put a sampler batch into the replay (wait-reset padding marked not valid)."""
        self.replay_buffer.append_samples(self.samples_to_buffer(samples))

    @property
    def device(self) -> torch.device:
        """Where the agent's models live (each replay draw is moved there in one call)."""
        return self.agent.device

    def draw(self, batch_size: int) -> Any:
        """``batch_size`` replayed rows (or sequences), on the agent's device.

        The one place a replayed batch crosses to the device (:func:`batch_to_device`:
        pinned and non-blocking towards CUDA, no walk on the CPU); losses and targets then
        find every tensor where the models are.
        """
        return batch_to_device(self.replay_buffer.sample_batch(batch_size), self.device)

    def updates_per_draw(self, remaining: int, until_target_update: bool) -> int:
        """Updates whose minibatches one uniform replay draw can serve (at least 1).

        All ``remaining`` ones, at most what the replay holds, and with
        ``until_target_update`` only those up to the next target update (so that they can
        also share one pass of the target network).
        """
        k = remaining
        if until_target_update:
            interval = self.target_update_interval
            k = min(k, interval - self.update_counter % interval)
        replay: BaseReplayBuffer = self.replay_buffer
        return max(1, min(k, replay.sampleable_transitions // self.batch_size))

    def learning_at(self, itr: int) -> bool:
        """Whether iteration ``itr`` takes gradient steps.

        From ``min_itr_learn`` on; after a resume without the replay, only once the empty
        replay has refilled for another ``min_itr_learn`` iterations.
        """
        if self._refill_replay:
            self._learn_from_itr = itr + self.min_itr_learn
            self._refill_replay = False
        return itr >= max(self.min_itr_learn, self._learn_from_itr)

    def _check_frame_stacking(self, observation: ArrayLike, done: ArrayLike) -> None:
        """The automatic frame buffer needs observations that are stacks of frames.

        Checks on the first batches that within an episode ``obs[t][:-1] == obs[t-1][1:]``;
        image observations that are not frame stacks must use a whole-observation replay.
        """
        observation, done = np.asarray(observation), np.asarray(done)
        previous = self._last_frames
        pairs = [(observation[t - 1], done[t - 1], observation[t]) for t in range(1, len(done))]
        if previous is not None:
            pairs.insert(0, (previous[0], previous[1], observation[0]))
        for before, ended, after in pairs:
            same = np.all(before[:, 1:] == after[:, :-1], axis=tuple(range(1, before.ndim)))
            if not np.all(same | ended):
                raise ValueError(
                    f"{type(self).__name__}: the observations are uint8 [C, H, W] images "
                    "but not stacks of frames shifted by one per step, so the frame replay "
                    "(chosen for such observations) cannot rebuild them. Pass "
                    "ReplayBufferCls=UniformReplayBuffer (or PrioritizedReplayBuffer with "
                    "prioritized_replay=True) to store whole observations."
                )
        self._last_frames = (observation[-1].copy(), done[-1].copy())
        self._frame_checks_left -= 1


def is_frame_stack(observation: object) -> bool:
    """Whether an example observation is a uint8 ``[C, H, W]`` stack of frames."""
    return (
        isinstance(observation, np.ndarray)
        and observation.ndim == 3
        and observation.dtype == np.uint8
    )
