"""Recurrent-state mixins of the agents: the state carried between ``step`` calls.

Box: Agent. Recurrent agents combine one of these mixins with their family base
(``RecurrentAgentMixin`` for one state over all envs, ``AlternatingRecurrentAgentMixin`` for the
two env groups of the alternating samplers); ``BaseAgent`` calls their ``reset()`` from its
``__init__`` and their ``_leave_sampling`` / ``_resume_sampling`` from its mode switches.
Rnn state fields are ``[N, B, H]`` (cuDNN layout) on the model's device; ``None`` means zeros.
Invariant: evaluation episodes (eval mode) never disturb the state of the training
trajectories. ``rlpyt.agents.base`` re-exports these names (rlpyt's import path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from rlpyt.utils.buffer import buffer_func, buffer_method

if TYPE_CHECKING:
    from rlpyt.protocols import AgentMode

RnnStateT = tuple[torch.Tensor, ...] | None
"""An rnn state: a record of tensors (``RnnState(h, c)``), or None for zeros."""
AltRnnState = tuple[RnnStateT, RnnStateT, int]
"""The alternating agents' sampling state: ``(state of group 0, state of group 1, group)``."""


def recorded_rnn_state(prev_rnn_state: RnnStateT, new_rnn_state: tuple[torch.Tensor, ...]) -> Any:
    """The state to record in ``agent_info.prev_rnn_state``.

    That is the state before the step (zeros like ``new_rnn_state`` if it was None), transposed
    ``[N, B, H] -> [B, N, H]`` so that the samples buffer is ``[T, B, N, H]``.
    """
    if prev_rnn_state is None:
        prev_rnn_state = buffer_func(new_rnn_state, torch.zeros_like)
    return buffer_method(prev_rnn_state, "transpose", 0, 1)


class RecurrentAgentMixin:
    """Keeps the recurrent state ``prev_rnn_state`` (``[N, B, H]`` fields) between steps.

    ``reset()`` drops it (models treat None as zeros), ``reset_one(idx)`` zeros env ``idx``.
    Switching to train or eval mode stashes the sampling state; returning to sample mode
    restores it, so evaluation episodes never disturb the training trajectories.
    """

    recurrent = True
    _mode: AgentMode | None  # from BaseAgent
    # Replaced, never changed in place, so class-level None defaults are safe; BaseAgent's
    # __init__ calls reset(), so the constructor stays BaseAgent's (its keywords visible).
    _prev_rnn_state: Any = None
    _sample_rnn_state: Any = None

    def reset(self) -> None:  # noqa: D102
        self._prev_rnn_state = None

    def reset_one(self, idx: int) -> None:  # noqa: D102
        if self._prev_rnn_state is not None:
            self._prev_rnn_state[:, idx] = 0  # every field, through the namedarraytuple

    def advance_rnn_state(self, new_rnn_state: RnnStateT) -> None:
        """Keep ``new_rnn_state`` (on the model's device) for the next step."""
        self._prev_rnn_state = new_rnn_state

    @property
    def prev_rnn_state(self) -> RnnStateT:
        """The state the next ``step`` starts from (None = zeros); settable."""
        return self._prev_rnn_state

    @prev_rnn_state.setter
    def prev_rnn_state(self, rnn_state: RnnStateT) -> None:
        self._prev_rnn_state = rnn_state

    @property
    def sampling_rnn_state(self) -> RnnStateT:
        """The state training-data sampling continues from, in any mode (for snapshots).

        In train or eval mode that is the stashed sampling state, not ``prev_rnn_state``.
        Setting it restores a snapshot's value.
        """
        return self._prev_rnn_state if self._mode == "sample" else self._sample_rnn_state

    @sampling_rnn_state.setter
    def sampling_rnn_state(self, rnn_state: RnnStateT) -> None:
        if self._mode == "sample":
            self._prev_rnn_state = rnn_state
        else:
            self._sample_rnn_state = rnn_state

    def _leave_sampling(self) -> None:
        if self._mode == "sample":
            self._sample_rnn_state = self._prev_rnn_state
        self._prev_rnn_state = None

    def _resume_sampling(self) -> None:
        self._prev_rnn_state = self._sample_rnn_state


class AlternatingRecurrentAgentMixin:
    """Keeps two recurrent states, one per env group of an alternating sampler.

    Every ``advance_rnn_state`` stores the new state of the current group and switches to the
    other group, so successive ``step`` calls alternate between the groups. ``reset_one(idx)``
    acts on the current group (``idx`` is local to the group).
    """

    recurrent = True
    alternating = True
    _mode: AgentMode | None  # from BaseAgent
    # The sampling stash is replaced, never changed in place (class-level defaults are safe);
    # the current pair is changed in place, so reset() (called by BaseAgent's __init__) makes it.
    _prev_rnn_state_pair: list[Any]
    _alt: int
    _sample_rnn_state_pair: tuple[Any, ...] | list[Any] = (None, None)
    _sample_alt = 0

    def reset(self) -> None:  # noqa: D102
        self._prev_rnn_state_pair = [None, None]
        self._alt = 0

    def reset_one(self, idx: int) -> None:  # noqa: D102
        state = self._prev_rnn_state_pair[self._alt]
        if state is not None:
            state[:, idx] = 0

    def advance_rnn_state(self, new_rnn_state: RnnStateT) -> None:
        """Store the current group's new state, then switch to the other group."""
        self._prev_rnn_state_pair[self._alt] = new_rnn_state
        self._alt ^= 1

    @property
    def prev_rnn_state(self) -> RnnStateT:
        """The current group's state (None = zeros); settable."""
        return self._prev_rnn_state_pair[self._alt]

    @prev_rnn_state.setter
    def prev_rnn_state(self, rnn_state: RnnStateT) -> None:
        self._prev_rnn_state_pair[self._alt] = rnn_state

    @property
    def sampling_rnn_state(self) -> AltRnnState:
        """Where sampling continues, in any mode (for snapshots); settable.

        A tuple ``(state of group 0, state of group 1, current group)``.
        """
        if self._mode == "sample":
            return (*self._prev_rnn_state_pair, self._alt)
        return (*self._sample_rnn_state_pair, self._sample_alt)

    @sampling_rnn_state.setter
    def sampling_rnn_state(self, value: AltRnnState) -> None:
        pair, alt = [value[0], value[1]], int(value[2])
        if self._mode == "sample":
            self._prev_rnn_state_pair, self._alt = pair, alt
        else:
            self._sample_rnn_state_pair, self._sample_alt = pair, alt

    def get_alt(self) -> int:
        """Index (0 or 1) of the current env group."""
        return self._alt

    def toggle_alt(self) -> None:  # noqa: D102
        self._alt ^= 1

    def _leave_sampling(self) -> None:
        if self._mode == "sample":
            self._sample_rnn_state_pair = list(self._prev_rnn_state_pair)
            self._sample_alt = self._alt
        self._prev_rnn_state_pair = [None, None]
        self._alt = 0

    def _resume_sampling(self) -> None:
        self._prev_rnn_state_pair = list(self._sample_rnn_state_pair)
        self._alt = self._sample_alt
