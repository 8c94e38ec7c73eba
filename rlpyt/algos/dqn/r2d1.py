"""R2D1: recurrent deep Q-learning from replayed sequences (rlpyt's reproduction of R2D2).

Box: Algorithm (deep Q family). The runner calls ``initialize`` once, after the sampler built
the agent (an ``R2d1Agent``-like agent: ``agent(..., init_rnn_state) -> (q, rnn_state)``); it
builds a sequence replay (``rlpyt.replays.sequence``) storing the sampler's steps and, every
``store_rnn_state_interval`` steps, the recurrent state the agent had there
(``agent_info.prev_rnn_state``). Every iteration ``optimize_agent`` appends the batch (with
input priorities) and from ``min_itr_learn`` on takes ``updates_per_optimize`` gradient steps,
each on ``batch_B`` sequences of ``warmup_T + batch_T`` steps (plus the n-step tail).

One update (:meth:`R2D1.loss`), for each replayed sequence:

1. Warm-up: from the stored state of the start row, the online and the target networks run
   over the first ``warmup_T`` steps without gradients; a sequence with a ``done`` anywhere in
   the warm-up (its training steps belong to a later episode) gets zero states instead.
2. The online network runs from its warmed-up state over the ``batch_T`` training steps and
   the n-step tail (the tail only for double DQN's argmax), the target network from its own
   state over the same steps.
3. Target of training step j: ``y_j = h(return_j + (1 - done_n_j) * target_discount_j *
   h^-1(Q'(s_b, argmax_a Q(s_b, a))))``, ``s_b`` the bootstrap step ``bootstrap_t_j`` the
   replay gives (j + n, or earlier where a time limit cut the window), ``h`` the invertible
   value rescaling ``h(x) = sign(x)(sqrt(|x| + 1) - 1) + eps x`` (max of Q' without double).
4. Loss: squared error (Huber with ``delta_clip``) over the training steps up to and including
   each sequence's first ``done``, weighted by the importance weights, averaged over those
   steps. Sequence priority: ``eta * max_j |delta_j| + (1 - eta) * mean_j |delta_j|``.

Input priorities: :meth:`R2D1.samples_to_buffer` computes, from the Q values the sampler
recorded (``agent_info.q``), n-step TD errors with value rescaling for the steps of the batch
whose n-step window lies inside it, and gives one priority per stored-state row of the chunk
(see :meth:`R2D1.compute_input_priorities`).

Kapturowski et al., 2019, "Recurrent Experience Replay in Distributed Reinforcement Learning"
(R2D2); Pohlen et al., 2018, "Observe and Look Further" (value rescaling).
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from rlpyt.algos.base import MaskedRecord
from rlpyt.algos.dqn.dqn import DQN, PRIORITY_EPS, TD_ERROR_STRIDE
from rlpyt.algos.replay_base import HostCopy, Records, backward_into
from rlpyt.algos.replay_mixin import (
    SamplesToBuffer,
    SamplesToBufferTl,
    SamplesToBufferTlValid,
    SamplesToBufferValid,
    is_frame_stack,
)
from rlpyt.algos.utils import discount_return_n_step, valid_from_done
from rlpyt.replays.frame import stack_frames
from rlpyt.replays.non_sequence.prioritized import SamplesToBufferPri
from rlpyt.replays.sequence.frame import (
    PrioritizedSequenceReplayFrameBuffer,
    SequenceNStepFrameBuffer,
    UniformSequenceReplayFrameBuffer,
)
from rlpyt.replays.sequence.prioritized import PrioritizedSequenceReplayBuffer
from rlpyt.replays.sequence.uniform import UniformSequenceReplayBuffer
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.hyperparams import COUNT, FRACTION, NONNEGATIVE, STEPS, fixed, hyperparam
from rlpyt.utils.logging import logger
from rlpyt.utils.tensor import select_at_indexes, valid_mean

if TYPE_CHECKING:
    from rlpyt.agents.dqn.r2d1_agent import R2d1AgentBase as R2d1Agent
    from rlpyt.utils.collections import AttrDict, NamedArrayTupleLike
    from rlpyt.utils.records import BatchSpec, Samples

OptInfo = namedtuple("OptInfo", ["loss", "gradNorm", "tdAbsErr", "priority"])

# The replay's records with the agent's recorded state (every row; the replay keeps every
# store_rnn_state_interval-th): the mixin's records plus ``prev_rnn_state``.
SamplesToBufferRnn = namedarraytuple(
    "SamplesToBufferRnn", SamplesToBuffer._fields + ("prev_rnn_state",)
)
SamplesToBufferTlRnn = namedarraytuple(
    "SamplesToBufferTlRnn", SamplesToBufferTl._fields + ("prev_rnn_state",)
)
SamplesToBufferValidRnn = namedarraytuple(
    "SamplesToBufferValidRnn", SamplesToBufferValid._fields + ("prev_rnn_state",)
)
SamplesToBufferTlValidRnn = namedarraytuple(
    "SamplesToBufferTlValidRnn", SamplesToBufferTlValid._fields + ("prev_rnn_state",)
)
RNN_RECORDS = {
    SamplesToBuffer: SamplesToBufferRnn,
    SamplesToBufferTl: SamplesToBufferTlRnn,
    SamplesToBufferValid: SamplesToBufferValidRnn,
    SamplesToBufferTlValid: SamplesToBufferTlValidRnn,
}


def value_rescale(x: torch.Tensor, eps: float) -> torch.Tensor:
    """``h(x) = sign(x) * (sqrt(|x| + 1) - 1) + eps * x`` (Pohlen et al., 2018)."""
    return torch.sign(x) * (torch.sqrt(torch.abs(x) + 1) - 1) + eps * x


def inverse_value_rescale(x: torch.Tensor, eps: float) -> torch.Tensor:
    """The exact inverse of :func:`value_rescale` (``eps = 0`` included)."""
    if eps == 0:
        return torch.sign(x) * ((torch.abs(x) + 1) ** 2 - 1)
    root = (torch.sqrt(1 + 4 * eps * (torch.abs(x) + 1 + eps)) - 1) / (2 * eps)
    return torch.sign(x) * (root**2 - 1)


def sequence_priorities(
    abs_delta: torch.Tensor, valid: torch.Tensor, eta: float, dim: int = 0
) -> torch.Tensor:
    """``eta * max + (1 - eta) * mean`` of ``|delta|`` over the valid entries along ``dim``.

    Args:
        abs_delta: ``[T, B]`` absolute TD errors.
        valid: ``[T, B]`` 0/1 mask (at least one valid entry per column).
        eta: Weight of the max.
        dim: The time dim.

    Returns:
        ``[B]`` priorities.
    """
    max_d = (abs_delta * valid).max(dim=dim).values
    return eta * max_d + (1 - eta) * valid_mean(abs_delta, valid, dim=dim)


class R2D1(DQN):
    """R2D1: recurrent DQN from replayed sequences, with R2D2's defaults.

    Keywords not declared here are :class:`DQN`'s. ``batch_size`` is not a keyword:
    it is ``(batch_T + warmup_T) * batch_B``; ``target_update_tau`` is 1 (hard copies).
    ``optim_kwargs``: an optimizer that takes ``eps`` gets 1e-3 unless these set it.

    Raises:
        ValueError, TypeError: a number out of range (the message names keyword and range).
    """

    discount = hyperparam(0.997)
    batch_T: int = hyperparam(80, "Training steps per replayed sequence.", COUNT, after="discount")
    batch_B: int = hyperparam(64, "Sequences per gradient step.", COUNT, after="batch_T")
    warmup_T: int = hyperparam(
        40,
        "Steps before the training steps that only warm up the recurrent states.",
        STEPS,
        after="batch_B",
    )
    store_rnn_state_interval: int = hyperparam(
        40,
        "The replay keeps the recurrent state every this many steps, and sequences start only "
        "there (0: no states stored, sequences start from zeros anywhere).",
        STEPS,
        after="warmup_T",
    )
    batch_size = fixed()  # (batch_T + warmup_T) * batch_B, set by __post_init__
    min_steps_learn = hyperparam(int(1e5))
    delta_clip = hyperparam(None)
    replay_ratio = hyperparam(1, "Replayed steps (warm-up included) per sampled step.")
    target_update_tau = fixed()
    target_update_interval = hyperparam(2500)
    n_step_return = hyperparam(5)
    learning_rate = hyperparam(1e-4)
    clip_grad_norm = hyperparam(80.0)
    double_dqn = hyperparam(True)
    prioritized_replay = hyperparam(True, "Prioritized sequence replay.")
    pri_beta_init = hyperparam(0.9)
    pri_beta_final = hyperparam(0.9)
    pri_eta: float = hyperparam(
        0.9, "Weight of the max in sequence priorities.", FRACTION, after="pri_beta_steps"
    )
    input_priorities: bool = hyperparam(
        True,
        "Compute priorities of new sequences from the sampler's recorded Q values "
        "(:meth:`compute_input_priorities`).",
        after="default_priority",
    )
    input_priority_shift: int = hyperparam(
        None,
        "Stored-state rows between the rows whose TD errors a priority comes from and the "
        "sequence start that gets it; None: ``warmup_T // store_rnn_state_interval``.",
        STEPS,
        after="input_priorities",
        type=int | None,
    )
    value_scale_eps: float = hyperparam(
        1e-3, "``eps`` of the value rescaling.", NONNEGATIVE, after="input_priority_shift"
    )

    OptInfoCls = OptInfo
    agent: R2d1Agent  # set by initialize

    def __post_init__(self) -> None:
        """``batch_size`` from the sequence sizes; DQN's resolution; input priority defaults."""
        self.batch_size = (self.batch_T + self.warmup_T) * self.batch_B
        super().__post_init__()
        self.input_priorities = self.input_priorities and self.prioritized_replay
        if self.input_priority_shift is None:
            self.input_priority_shift = self.warmup_T // max(1, self.store_rnn_state_interval)

    @property
    def default_optim_eps(self) -> float:
        """Adam's ``eps`` unless ``optim_kwargs`` sets it: 1e-3 (R2D2's)."""
        return 1e-3

    # ---- value rescaling (rlpyt's method names) ----------------------------------------------

    def value_scale(self, x: torch.Tensor) -> torch.Tensor:
        """:func:`value_rescale` with ``value_scale_eps``."""
        return value_rescale(x, self.value_scale_eps)

    def inv_value_scale(self, z: torch.Tensor) -> torch.Tensor:
        """:func:`inverse_value_rescale` with ``value_scale_eps``."""
        return inverse_value_rescale(z, self.value_scale_eps)

    def _setup_schedules(self, batch_spec: BatchSpec) -> None:
        """DQN's schedules; learning waits at least until the replay holds whole sequences.

        A sequence spans ``warmup_T + batch_T + n_step_return`` rows plus the row before it
        and starts only at a stored-state row, so ``min_itr_learn`` is raised to the first
        iteration after which one can surely be drawn (a smaller ``min_steps_learn`` would make
        the first draw fail).
        """
        super()._setup_schedules(batch_spec)
        span = 1 + self.warmup_T + self.batch_T + self.n_step_return
        span += max(1, self.store_rnn_state_interval) - 1
        first_itr = -(-span // batch_spec.T)  # ceil
        if self.min_itr_learn < first_itr:
            logger.log(
                f"{type(self).__name__}: learning starts at iteration {first_itr}, when the "
                f"replay first holds a whole sequence ({span} rows), not at iteration "
                f"{self.min_itr_learn} (min_steps_learn={self.min_steps_learn})."
            )
            self.min_itr_learn = first_itr

    # ---- replay -----------------------------------------------------------------------------

    def replay_buffer_class(self, examples: AttrDict) -> type:
        """``ReplayBufferCls`` if given, else the sequence replay for the observation.

        ``(Prioritized|Uniform)SequenceReplayFrameBuffer`` for uint8 ``[C, H, W]`` frame
        stacks (each frame stored once), ``(Prioritized|Uniform)SequenceReplayBuffer`` else.
        """
        if self.ReplayBufferCls is not None:
            return super().replay_buffer_class(examples)
        self._auto_frames = is_frame_stack(examples.observation)
        if self._auto_frames:
            if self.prioritized_replay:
                return PrioritizedSequenceReplayFrameBuffer
            return UniformSequenceReplayFrameBuffer
        if self.prioritized_replay:
            return PrioritizedSequenceReplayBuffer
        return UniformSequenceReplayBuffer

    def replay_kwargs(self, examples: AttrDict, batch_spec: BatchSpec) -> dict[str, Any]:
        """The mixin's keywords plus the recurrent state, sequence sizes, input priorities.

        Raises:
            ValueError: states are to be stored but the agent records none (not recurrent).
        """
        kwargs = super().replay_kwargs(examples, batch_spec)
        if self.store_rnn_state_interval > 0:
            prev_rnn_state = getattr(examples.agent_info, "prev_rnn_state", None)
            if prev_rnn_state is None:
                raise ValueError(
                    f"{type(self).__name__}: store_rnn_state_interval="
                    f"{self.store_rnn_state_interval} stores the agent's recurrent state, but "
                    "its agent_info has no prev_rnn_state; use a recurrent agent (R2d1Agent, "
                    "AtariR2d1Agent, ClassicR2d1Agent) or store_rnn_state_interval=0."
                )
            example = kwargs["example"]
            kwargs["example"] = RNN_RECORDS[type(example)](*example, prev_rnn_state=prev_rnn_state)
        kwargs.update(
            rnn_state_interval=self.store_rnn_state_interval,
            batch_T=self.warmup_T + self.batch_T,
        )
        if self.prioritized_replay:
            kwargs.update(
                input_priorities=self.input_priorities,
                input_priority_shift=self.input_priority_shift,
            )
        return kwargs

    def samples_to_buffer(self, samples: Samples) -> Any:
        """The replay's record of a sampler batch: the mixin's, with the recorded states.

        With input priorities the record is ``SamplesToBufferPri(samples=record,
        priorities=[R, B])``, one priority per stored-state row the batch will fill
        (:meth:`compute_input_priorities`, for the replay's cursor now).
        """
        record = super().samples_to_buffer(samples)
        if self.store_rnn_state_interval > 0:
            prev_rnn_state = samples.agent.agent_info.prev_rnn_state
            record = RNN_RECORDS[type(record)](*record, prev_rnn_state=prev_rnn_state)
        if not self.input_priorities:
            return record
        priorities = self.compute_input_priorities(samples, t_start=int(self.replay_buffer.t))
        return SamplesToBufferPri(samples=record, priorities=priorities)

    # ---- training -------------------------------------------------------------------------

    @property
    def rows_per_update(self) -> int:
        """An update trains on ``batch_B`` replayed sequences."""
        return self.batch_B

    def updates_in_draw(self, remaining: int) -> int:
        """One draw per update (a draw of sequences is not split)."""
        return 1

    def draw(self, batch_size: int) -> Any:
        """``batch_size`` replayed sequences on the agent's device, frames stacked there.

        Off the CPU, a frame replay sends one frame per step (``compact_frames``): the host
        gathers and copies a quarter of the bytes (R2D1's Pong batch: 68 MB instead of 266 MB),
        and the device rebuilds the same ``[T + n, B, C, H, W]`` observations. On the CPU the
        replay stacks them itself (the same work, without the extra pass).
        """
        replay = self.replay_buffer
        compact = False
        if isinstance(replay, SequenceNStepFrameBuffer):
            compact = replay.compact_frames = self.device.type != "cpu"
        batch = super().draw(batch_size)
        if compact:
            batch = batch._replace(all_observation=stack_frames(batch.all_observation))
        return batch

    def update(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None, records: Records
    ) -> None:
        """One gradient step on ``batch_B`` replayed sequences (and the target update if due).

        Args:
            samples: The replayed sequences, on the agent's device (see :meth:`loss`).
            target: Unused (each sequence's targets need its own warm-up).
            records: OptInfo tensors, appended to: ``loss``, ``gradNorm``, every 8th valid
                ``tdAbsErr``, the sequence ``priority``.
        """
        loss, td_abs_errors, valid, priorities = self.loss(samples)
        if self.prioritized_replay:
            # The replay's sum tree is on the host: the update's one copy from the device,
            # started before the backward pass and waited for after the optimizer step.
            host_copy = HostCopy(priorities)
        backward_into(loss, self._params)
        grad_norm = self.step_optimizer(self.optimizer, self._params)
        if self.prioritized_replay:
            priorities = host_copy.wait()
            # + eps (Schaul et al.): a zero priority would never be replayed again.
            self.replay_buffer.update_batch_priorities(priorities.numpy() + PRIORITY_EPS)
        self.update_counter += 1
        self.update_target_if_due()
        records["loss"].append(loss.detach())
        records["gradNorm"].append(grad_norm)
        # Every 8th valid error, chosen on the host when the OptInfo is built.
        records["tdAbsErr"].append(MaskedRecord(td_abs_errors, valid > 0, TD_ERROR_STRIDE))
        records["priority"].append(priorities)

    def loss(self, samples: NamedArrayTupleLike, target: torch.Tensor | None = None) -> Any:
        """Loss of replayed sequences (see the module docstring for the steps).

        Args:
            samples: The replay's sequence batch: ``all_observation [T + n, B, ...]``,
                ``all_action``, ``all_reward [T + n + 1, B]`` (row 0: the step before the
                start), ``return_``, ``done``, ``done_n``, ``target_discount``, ``bootstrap_t
                [T, B]``, ``init_rnn_state`` (``[N, B, H]`` fields or None), ``is_weights
                [B]`` when prioritized; ``T = warmup_T + batch_T``.
            target: Unused (a sequence's targets need its own warm-up).

        Returns:
            ``(loss, td_abs_errors [batch_T, B], valid [batch_T, B], priorities [B])``, all
            on the model's device, all but the loss detached; ``td_abs_errors`` clipped at
            ``delta_clip``.
        """
        q, y, valid = self.q_and_targets(samples)
        delta = y - q
        abs_delta = delta.abs()
        losses = 0.5 * delta * delta
        if self.delta_clip is not None:
            linear = self.delta_clip * (abs_delta - 0.5 * self.delta_clip)
            losses = torch.where(abs_delta <= self.delta_clip, losses, linear)
        if self.prioritized_replay:
            losses = losses * samples.is_weights.unsqueeze(0)
        loss = valid_mean(losses, valid)
        td_abs_errors = abs_delta.detach()
        if self.delta_clip is not None:
            td_abs_errors = td_abs_errors.clamp(max=self.delta_clip)
        priorities = sequence_priorities(td_abs_errors, valid, self.pri_eta)
        return loss, td_abs_errors, valid, priorities

    def q_and_targets(
        self, samples: NamedArrayTupleLike
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Online ``Q(s_j, a_j)``, rescaled targets ``y_j`` and the valid mask, ``[batch_T, B]``.

        ``Q`` carries gradients; ``y`` and ``valid`` do not. All on the model's device.
        """
        wT, T = self.warmup_T, self.warmup_T + self.batch_T  # noqa: N806
        n = self.n_step_return
        agent = self.agent
        observation = samples.all_observation
        prev_action, prev_reward = samples.all_action[:-1], samples.all_reward[:-1]
        online_state, target_state = self.warmed_up_states(samples)
        # Training steps and the n-step tail: rows wT .. T + n - 1 of the span.
        span = slice(wT, T + n) if self.double_dqn else slice(wT, T)
        qs, _ = agent(observation[span], prev_action[span], prev_reward[span], online_state)
        action = samples.all_action[wT + 1 : T + 1]
        q = select_at_indexes(action, qs[: T - wT])
        with torch.no_grad():
            tail = slice(wT, T + n)
            target_qs, _ = agent.target(
                observation[tail], prev_action[tail], prev_reward[tail], target_state
            )
            # Bootstrap rows relative to the training start (masked rows may point earlier).
            rows = (samples.bootstrap_t[wT:] - wT).clamp(min=0)
            gather = rows.unsqueeze(-1).expand(-1, -1, target_qs.shape[-1])
            target_at = target_qs.gather(0, gather)
            if self.double_dqn:
                next_action = qs.detach().gather(0, gather).argmax(dim=-1)
                bootstrap = select_at_indexes(next_action, target_at)
            else:
                bootstrap = target_at.max(dim=-1).values
            y = self.rescaled_targets(samples, bootstrap, wT)
            valid = valid_from_done(samples.done[wT:]).to(q.dtype)
        return q, y, valid

    def rescaled_targets(
        self, samples: NamedArrayTupleLike, bootstrap: torch.Tensor, start: int
    ) -> torch.Tensor:
        """``h(return_ + (1 - done_n) * target_discount * h^-1(bootstrap))`` from row ``start``.

        Rows that met a terminal ignore ``bootstrap`` (not multiplied by zero: it may be
        anything there).
        """
        done_n = samples.done_n[start:].bool()
        discounted = samples.target_discount[start:] * self.inv_value_scale(bootstrap)
        ret = samples.return_[start:]
        return self.value_scale(ret + torch.where(done_n, torch.zeros_like(ret), discounted))

    @torch.no_grad()
    def warmed_up_states(self, samples: NamedArrayTupleLike) -> tuple[Any, Any]:
        """Online and target states at the first training step (``[N, B, H]`` fields).

        From ``init_rnn_state`` (None: zeros), run over the ``warmup_T`` warm-up steps without
        gradients; sequences with a ``done`` in the warm-up get zero states.
        """
        wT = self.warmup_T  # noqa: N806
        agent = self.agent
        init = samples.init_rnn_state
        if wT == 0:
            return init, init
        warmup = (
            samples.all_observation[:wT],
            samples.all_action[:wT],
            samples.all_reward[:wT],
        )
        _, online_state = agent(*warmup, init)
        _, target_state = agent.target(*warmup, init)
        ended = samples.done[:wT].bool().any(dim=0)  # [B]
        keep = (~ended).to(tuple(online_state)[0].dtype).view(1, -1, 1)
        online_state = type(online_state)(*(x * keep for x in online_state))
        target_state = type(target_state)(*(x * keep for x in target_state))
        return online_state, target_state

    # ---- input priorities -----------------------------------------------------------------

    @torch.no_grad()
    def compute_input_priorities(self, samples: Samples, t_start: int = 0) -> np.ndarray:
        """Priorities of the stored-state rows of a sampler batch, from its recorded Q values.

        For each step t whose n-step window lies in the batch (``t + n <= T - 1``): target
        ``y_t = h(R_t + (1 - done_n_t) * discount^n * h^-1(max_a q_{t+n}))`` with ``q`` the
        online Q values the sampler recorded (``agent_info.q``; a ``done`` ends the return, a
        time limit included), TD error ``|q_t(a_t) - y_t|`` (clipped at ``delta_clip``).
        A stored-state row r (``(t_start + r) % store_rnn_state_interval == 0``) gets
        ``eta * max + (1 - eta) * mean`` of the errors of the steps ``r .. r + interval - 1``
        that have one; a row with none gets ``default_priority``.

        Args:
            samples: The sampler's ``[T, B]`` batch.
            t_start: The replay row the batch's first step is written to (its cursor).

        Returns:
            ``[R, B]`` float64 priorities, ``R`` the number of stored-state rows in the batch
            (before the replay raises them to ``pri_alpha``).
        """
        abs_delta, has_error = self.input_td_errors(samples)
        T, B = has_error.shape  # noqa: N806
        interval = max(1, self.store_rnn_state_interval)
        starts = [r for r in range(T) if (t_start + r) % interval == 0]
        priorities = np.full((len(starts), B), self.default_priority, dtype=np.float64)
        for i, r in enumerate(starts):
            block = slice(r, r + interval)
            valid = has_error[block]
            seen = valid.any(dim=0)
            if seen.any():
                pri = sequence_priorities(abs_delta[block], valid.to(abs_delta.dtype), self.pri_eta)
                priorities[i, seen.numpy()] = pri[seen].double().numpy()
        return priorities

    def input_td_errors(self, samples: Samples) -> tuple[torch.Tensor, torch.Tensor]:
        """``|TD|`` errors ``[T, B]`` of a sampler batch and where they exist (bool ``[T, B]``).

        Steps without a full n-step window in the batch, and wait-reset padding (after a
        column's first ``done``, when the collector does not reset mid-batch), have none.
        """
        n = self.n_step_return
        q = torch.as_tensor(samples.agent.agent_info.q, dtype=torch.float32)
        action = torch.as_tensor(samples.agent.action).long()
        reward = torch.as_tensor(samples.env.reward, dtype=torch.float32)
        done = torch.as_tensor(samples.env.done).to(torch.float32)
        T = reward.shape[0]  # noqa: N806
        abs_delta = torch.zeros_like(reward)
        has_error = torch.zeros(reward.shape, dtype=torch.bool)
        if T <= n:
            return abs_delta, has_error
        return_, done_n = (
            torch.as_tensor(x) for x in discount_return_n_step(reward, done, n, self.discount)
        )
        m = T - n  # steps t with q_{t+n} in the batch
        bootstrap = self.inv_value_scale(q[n:].max(dim=-1).values)
        y = self.value_scale(return_[:m] + (1 - done_n[:m]) * self.discount**n * bootstrap)
        abs_delta[:m] = (select_at_indexes(action[:m], q[:m]) - y).abs()
        if self.delta_clip is not None:
            abs_delta = abs_delta.clamp(max=self.delta_clip)
        has_error[:m] = True
        if not self.mid_batch_reset:
            has_error &= valid_from_done(done) > 0
        return abs_delta, has_error
