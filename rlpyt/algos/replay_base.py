"""ReplayRlAlgorithm: what every replay-based algorithm shares, written once.

Box: Algorithm (replay families: DQN, CategoricalDQN, R2D1, DDPG, TD3, SAC, SAC_V). The runner
calls ``initialize`` once after the sampler built the agent (asynchronous runners:
``async_initialize``, then ``optim_initialize`` in the optimizer process), then
``optimize_agent(itr, samples)`` every iteration. This base

- declares the hyperparameters every replay algorithm takes, with defaults
  (``rlpyt.utils.hyperparams``: the constructor, its checks and the docstring table come from
  the declarations; the families add and change theirs);
- builds the replay and feeds it (``rlpyt.algos.replay_mixin``);
- turns env-step counts into iteration schedules (:meth:`_setup_schedules`, with a warning
  when the replay ratio run differs from the one asked);
- builds the optimizers (:meth:`optim_initialize`: :meth:`build_optimizers`, then
  ``initial_optim_state_dict``);
- runs the replay-draw loop of ``optimize_agent``: draws, moved to the agent's device in one
  call (``draw``), split into minibatches, each handed to the algorithm's ``update``;
- updates the targets every ``target_update_interval`` updates (:meth:`update_target_if_due`);
- builds the OptInfo from per-update tensors in one conversion (``opt_info_from``).

An algorithm writes ``update`` (one gradient step on a minibatch, appending to the OptInfo
records) and its OptInfo fields; where they apply, ``build_optimizers``, its losses,
``targets`` (with ``shares_targets``), ``updates_in_draw`` and ``_before_updates``. A subclass
that lacks ``update`` or OptInfo fields fails at construction, naming them.
docs/new-algorithm.md builds one.
"""

from __future__ import annotations

import math
import warnings
from abc import abstractmethod
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import torch

from rlpyt.algos.base import Record, RlAlgorithm, make_optimizer, opt_info_from
from rlpyt.algos.replay_mixin import ReplayAlgoMixin
from rlpyt.utils.hyperparams import (
    COUNT,
    FRACTION,
    POSITIVE,
    POSITIVE_OR_INF,
    STEPS,
    Range,
    copied_dict,
    hyperparam,
)
from rlpyt.utils.logging import logger

if TYPE_CHECKING:
    from rlpyt.protocols import Agent, ReplayAgent
    from rlpyt.utils.collections import AttrDict, NamedArrayTupleLike
    from rlpyt.utils.records import BatchSpec, Samples

Records = dict[str, list[Record]]
Inputs = tuple[torch.Tensor, torch.Tensor, torch.Tensor]

TAU = Range(low=0, high=1, low_open=True)


class ReplayRlAlgorithm(ReplayAlgoMixin, RlAlgorithm):
    """Base of the replay algorithms: hyperparameters, set-up, schedules, the draw loop, OptInfo.

    The defaults here are DQN's; each family changes those that differ.

    Class attributes a subclass sets:
        OptInfoCls or opt_info_fields: Its OptInfo (the other follows).
        shares_targets: Whether the bootstrap targets stay fixed between target updates, so
            that the updates of one draw can share one ``targets`` pass.
        prioritized_replay: Whether the replay is prioritized (DQN declares it a keyword).
    """

    discount: float = hyperparam(0.99, "Discount gamma.", FRACTION)
    batch_size: int = hyperparam(32, "Replayed transitions per gradient step.", COUNT)
    min_steps_learn: int = hyperparam(
        int(5e4), "Env steps (over all envs) before the first gradient step.", STEPS
    )
    replay_size: int = hyperparam(int(1e6), "Replay capacity in transitions.", COUNT)
    replay_ratio: float = hyperparam(
        8,
        "Replayed transitions per sampled transition: each iteration takes ``max(1, "
        "round(replay_ratio * T * B / batch_size))`` gradient steps.",
        POSITIVE,
    )
    target_update_tau: float = hyperparam(
        1, "1: copy the online weights into the targets; below 1: Polyak weight.", TAU
    )
    target_update_interval: int = hyperparam(312, "Gradient steps between target updates.", COUNT)
    n_step_return: int = hyperparam(1, "Rewards summed before bootstrapping.", COUNT)
    learning_rate: float = hyperparam(2.5e-4, "Optimizer learning rate.", POSITIVE)
    OptimCls: type[torch.optim.Optimizer] = hyperparam(torch.optim.Adam, "Torch optimizer class.")
    optim_kwargs: dict[str, Any] = hyperparam(
        None, "Extra optimizer keywords.", copied_dict, type=dict[str, Any] | None
    )
    initial_optim_state_dict: dict[str, Any] | None = hyperparam(
        None, "Optimizer state to start from (``optim_state_dict()`` output)."
    )
    clip_grad_norm: float = hyperparam(10.0, "Max global gradient norm.", POSITIVE_OR_INF)
    ReplayBufferCls: type | None = hyperparam(
        None, "Replay class to use instead of the one chosen from the observation."
    )
    updates_per_sync: int = hyperparam(
        1, "Gradient steps between parameter publications (asynchronous runners).", COUNT
    )
    snapshot_replay: bool = hyperparam(
        False, "Put the replay in every snapshot, so that a resumed run continues exactly."
    )

    shares_targets: bool = False
    prioritized_replay: bool = False
    agent: ReplayAgent  # set by initialize / async_initialize
    _params: list[torch.Tensor]  # set by build_optimizers (one optimizer)

    @classmethod
    def missing_parts(cls) -> list[str]:
        """The abstract methods left, OptInfo fields, and ``targets`` where targets are shared."""
        missing = super().missing_parts()
        if not cls.opt_info_fields:
            missing.append("OptInfoCls (or opt_info_fields)")
        if cls.shares_targets and cls.targets is ReplayRlAlgorithm.targets:
            missing.append("targets (shares_targets is True)")
        return missing

    # ---- set-up ---------------------------------------------------------------------------

    def initialize(
        self,
        agent: Agent,
        n_itr: int,
        batch_spec: BatchSpec,
        mid_batch_reset: bool,
        examples: AttrDict,
        world_size: int = 1,
        rank: int = 0,
    ) -> None:
        """Build the replay and the optimizers; hand the agent its schedules.

        Args:
            agent: The initialized agent (a ``ReplayAgent``: targets, ``update_target``).
            n_itr: Iterations of the run.
            batch_spec: The sampler's ``BatchSpec(T, B)``; the replay has B columns.
            mid_batch_reset: False for wait-reset collectors: the steps after a column's
                first ``done`` in a batch are padding, never replayed.
            examples: The sampler's example step (observation, action, reward, done,
                env_info), from which the replay's storage is built.
            world_size: Data-parallel processes.
            rank: This process's rank.
        """
        self.agent = cast("ReplayAgent", agent)
        self.n_itr = n_itr
        self.mid_batch_reset = mid_batch_reset
        self.world_size = world_size
        self.rank = rank
        self._setup_schedules(batch_spec)
        self.replay_buffer = self.make_replay_buffer(examples, batch_spec)
        self.optim_initialize(rank)

    def _setup_schedules(self, batch_spec: BatchSpec) -> None:
        """Updates per iteration and learning start, in iterations of ``batch_spec.size``.

        ``updates_per_optimize = max(1, round(replay_ratio * T * B / batch_size))``; where
        that replays a different ratio than ``replay_ratio`` asked, a warning names both.
        Subclasses add their own schedules (epsilon, beta, exploration).
        """
        self.batch_spec = batch_spec
        self.sampler_bs = sampler_bs = batch_spec.size
        self.updates_per_optimize = max(1, round(self.replay_ratio * sampler_bs / self.batch_size))
        self.min_itr_learn = self.min_steps_learn // sampler_bs
        ratio = self.updates_per_optimize * self.batch_size / sampler_bs
        logger.log(
            f"{type(self).__name__}: {self.updates_per_optimize} updates of "
            f"{self.batch_size} per iteration of {sampler_bs} samples (replay ratio "
            f"{ratio:g}), learning from iteration {self.min_itr_learn}."
        )
        if not math.isclose(ratio, self.replay_ratio, rel_tol=1e-6):
            warnings.warn(
                f"{type(self).__name__}: replay_ratio={self.replay_ratio:g} asks for "
                f"{self.replay_ratio * sampler_bs / self.batch_size:g} updates of "
                f"{self.batch_size} per iteration of {sampler_bs} samples; whole updates "
                f"(at least 1) make it replay_ratio={ratio:g}. Choose batch_size, the "
                "sampler's batch_T * batch_B and replay_ratio so that the updates come out "
                "whole to run the ratio asked.",
                stacklevel=3,
            )

    def optim_initialize(self, rank: int = 0) -> None:
        """Build the optimizers (:meth:`build_optimizers`); load ``initial_optim_state_dict``.

        Asynchronous runners call it in the optimizer process (after ``async_initialize``);
        the agent then trains a model of its own (``own_optim_model``).
        """
        self.rank = rank
        self.own_optim_model()
        self.build_optimizers()
        if self.initial_optim_state_dict is not None:
            self.load_optim_state_dict(self.initial_optim_state_dict)

    def build_optimizers(self) -> None:
        """One optimizer (``optimizer``) over the agent's parameters at ``learning_rate``.

        Algorithms with several networks (the QPG family) build one per network instead.
        """
        self.optimizer = self.make_optimizer(self.agent.parameters(), self.learning_rate)
        # What the optimizer steps: clipping walks this list, not agent.parameters().
        self._params = [p for group in self.optimizer.param_groups for p in group["params"]]

    def make_optimizer(
        self, params: Iterable[torch.Tensor], learning_rate: float
    ) -> torch.optim.Optimizer:
        """``OptimCls`` over ``params`` at ``learning_rate`` with ``optim_kwargs``."""
        return make_optimizer(self.OptimCls, list(params), learning_rate, self.optim_kwargs or {})

    # ---- snapshots ------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """The algorithm's state (optimizers, counters); with ``snapshot_replay``, the replay."""
        state = super().state_dict()
        if self.snapshot_replay:
            state["replay"] = self.replay_buffer.state_dict()
        return state

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict`'s output.

        Without the replay in it (``snapshot_replay=False``), learning pauses for
        ``min_steps_learn`` env steps while the empty replay refills.
        """
        super().load_state_dict(state)
        if "replay" in state:
            self.replay_buffer.load_state_dict(state["replay"])
        else:
            self._refill_replay = self.min_itr_learn > 0
            logger.log(
                f"{type(self).__name__}: the snapshot holds no replay (snapshot_replay=False); "
                "the replay starts empty and learning resumes once it holds min_steps_learn "
                "steps again."
            )

    # ---- training -------------------------------------------------------------------------

    def optimize_agent(
        self, itr: int, samples: Samples | None = None, sampler_itr: int | None = None
    ) -> Any:
        """Append the batch to the replay; from ``min_itr_learn`` on, take gradient steps.

        Each draw serves ``updates_in_draw`` updates: it is moved to the agent's device once,
        split into minibatches of ``rows_per_update`` rows, and, with ``shares_targets``, its
        targets are computed in one pass.

        Args:
            itr: The runner's iteration.
            samples: The sampler's ``[T, B]`` batch (None: asynchronous runners, whose
                memory copiers append).
            sampler_itr: The sampler's iteration (asynchronous runners; schedules follow it).

        Returns:
            The algorithm's OptInfo of lists of floats; empty lists before learning starts.
        """
        itr = itr if sampler_itr is None else sampler_itr
        if samples is not None:
            self.append_samples(samples)
        records: Records = {field: [] for field in self.OptInfoCls._fields}
        if not self.learning_at(itr):
            return opt_info_from(self.OptInfoCls, records)
        self._before_updates(itr)
        size, remaining = self.rows_per_update, self.updates_per_optimize
        while remaining:
            k = self.updates_in_draw(remaining)
            batch = self.draw(size * k)
            targets = self.targets(batch) if self.shares_targets and k > 1 else None
            for j in range(k):
                rows = slice(j * size, (j + 1) * size)
                minibatch = batch if k == 1 else batch[rows]
                self.update(minibatch, None if targets is None else targets[rows], records)
            remaining -= k
        return opt_info_from(self.OptInfoCls, records)

    @property
    def rows_per_update(self) -> int:
        """Replay rows one update trains on (``batch_size``; R2D1: ``batch_B`` sequences)."""
        return self.batch_size

    def updates_in_draw(self, remaining: int) -> int:
        """Updates one replay draw serves (at least 1).

        Uniform draws serve several (only up to the next target update where they share
        targets); prioritized ones one (the priorities change with each update).
        """
        if self.prioritized_replay:
            return 1
        return self.updates_per_draw(remaining, self.shares_targets)

    def _before_updates(self, itr: int) -> None:
        """Called once per learning iteration before the first draw (DQN: PER beta)."""

    def targets(self, samples: NamedArrayTupleLike) -> torch.Tensor:
        """Bootstrap targets ``[rows]`` of replayed rows (algorithms with ``shares_targets``)."""
        raise NotImplementedError

    @abstractmethod
    def update(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None, records: Records
    ) -> None:
        """One gradient step on a minibatch (on the agent's device); appends to ``records``.

        Args:
            samples: The replayed minibatch.
            target: Its precomputed :meth:`targets` rows, or None (compute them).
            records: OptInfo field -> list of tensors, appended to.
        """

    def update_target_if_due(self) -> None:
        """Update the targets when ``update_counter`` is a multiple of the interval.

        Call it after counting the update (``update_counter += 1``).
        """
        if self.update_counter % self.target_update_interval == 0:
            self.agent.update_target(self.target_update_tau)

    def step_optimizer(
        self, optimizer: torch.optim.Optimizer, params: Sequence[torch.Tensor]
    ) -> torch.Tensor:
        """Clip the gradients of ``params`` to ``clip_grad_norm``, step; return their norm."""
        grad_norm = torch.nn.utils.clip_grad_norm_(params, self.clip_grad_norm)
        optimizer.step()
        return grad_norm


class HostCopy:
    """A copy of a device tensor to the host, started at construction, waited for by ``wait``.

    On CUDA the copy goes into pinned memory without blocking, behind the work queued so far;
    an update starts it right after its loss, queues its backward pass and optimizer step,
    then waits: the host waits only for the forward pass, and draws the next minibatch while
    the device runs the rest. Elsewhere (the CPU, a device that is not CUDA) it is a plain
    copy.

    Args:
        tensor: The tensor to copy (e.g. new priorities ``[batch]``).
    """

    def __init__(self, tensor: torch.Tensor):
        self._done: torch.cuda.Event | None = None
        if tensor.device.type == "cuda" and torch.cuda.is_available():
            self._host = tensor.to("cpu", non_blocking=True)
            self._done = torch.cuda.Event()
            self._done.record()
        else:
            self._host = tensor.cpu()

    def wait(self) -> torch.Tensor:
        """The copy on the host, once it has arrived."""
        if self._done is not None:
            self._done.synchronize()
        return self._host


def agent_inputs(samples: NamedArrayTupleLike) -> Inputs:
    """``(observation, prev_action, prev_reward)`` of a replayed batch, typed.

    Replay batches are namedarraytuples (classes made at run time, ``Any`` to a type
    checker); this names what their ``agent_inputs`` hold.
    """
    return cast(Inputs, samples.agent_inputs)


def backward_into(loss: torch.Tensor, params: Sequence[torch.Tensor]) -> None:
    """Gradients of ``loss`` into ``params`` only (their old gradients dropped).

    ``backward(inputs=...)`` skips the weight gradients of every other network the loss passes
    through (the Q networks under a policy loss) and still fires data-parallel hooks.
    """
    for param in params:
        param.grad = None
    loss.backward(inputs=params)
