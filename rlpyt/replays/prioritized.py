"""The prioritized-replay mixin of both replay families (Schaul et al. 2016, arXiv 1511.05952).

Box: Replay. ``PrioritizedReplay`` keeps a ``SumTree`` beside a storage class: the non-sequence
``PrioritizedReplayBuffer`` (DQN with ``prioritized_replay=True``) and the sequence
``PrioritizedSequenceReplayBuffer`` (R2D1) are this mixin over their storage. Who calls it: the
algorithm samples (``sample_batch``), then reports the batch's TD errors
(``update_batch_priorities``) and anneals beta (``set_beta``). Priorities live in the tree as
``p ** alpha``; new rows enter at ``default_priority ** alpha`` (or their input priority), rows
appended with ``valid=False`` at 0. Importance weights follow rlpyt:
``is_weights = (1 / leaf) ** beta / max(...)`` over the batch, leaf = the sampled ``p ** alpha``.
``rlpyt.replays.non_sequence.prioritized`` (rlpyt's path) exports both names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from rlpyt.replays.n_step import BaseNStepReturnBuffer
from rlpyt.replays.sum_tree import SumTree
from rlpyt.utils.buffer import numpify_buffer
from rlpyt.utils.checks import check_number
from rlpyt.utils.collections import namedarraytuple

if TYPE_CHECKING:
    from rlpyt.utils.collections import NamedArrayTupleLike

SamplesToBufferPri = namedarraytuple("SamplesToBufferPri", ["samples", "priorities"])
"""What ``append_samples`` takes with ``input_priorities=True``: samples and ``[T_new, B]``."""


class PrioritizedReplay(BaseNStepReturnBuffer):
    """Mixin adding a sum tree, proportional sampling and importance weights.

    A subclass of the n-step storage it samples; listed before the concrete storage class
    (``class PrioritizedReplayBuffer(PrioritizedReplay, NStepReturnBuffer)``), whose
    ``extract_batch`` builds the batch.

    Args:
        alpha: Priority exponent (0: uniform).
        beta: Importance-weight exponent (annealed by the algorithm through ``set_beta``).
        default_priority: Priority of new rows (stored as ``default_priority ** alpha``).
        unique: Sample without replacement.
        input_priorities: ``append_samples`` takes ``SamplesToBufferPri(samples, priorities)``.
        input_priority_shift: Rows by which input priorities are shifted back (see ``SumTree``).
        **kwargs: The storage keywords (``example``, ``size``, ``B``, ``discount``,
            ``n_step_return``).
    """

    # A sum tree class; sequence replays' trees take keywords of their own (``period``).
    SumTreeCls: Callable[..., SumTree] = SumTree

    def __init__(
        self,
        alpha: float = 0.6,
        beta: float = 0.4,
        default_priority: float = 1,
        unique: bool = False,
        input_priorities: bool = False,
        input_priority_shift: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        owner = type(self).__name__
        self.alpha = float(check_number(owner, "alpha", alpha, low=0))
        self.beta = float(check_number(owner, "beta", beta, low=0))
        self.default_priority = float(
            check_number(owner, "default_priority", default_priority, low=0, low_open=True)
        )
        self.unique = bool(unique)
        self.input_priorities = bool(input_priorities)
        self.input_priority_shift = check_number(
            owner, "input_priority_shift", input_priority_shift, low=0, integer=True
        )
        self.init_priority_tree()

    def init_priority_tree(self) -> None:
        """Build the sum tree (``SumTreeCls``) from :meth:`priority_tree_kwargs`."""
        self.priority_tree = self.SumTreeCls(**self.priority_tree_kwargs())

    def priority_tree_kwargs(self) -> dict[str, Any]:
        """The sum tree's keywords.

        One leaf per ``[T, B]`` row (sequence replays: per stored-state row), the rows it must
        not sample, the default and the input priorities.
        """
        return dict(
            T=self.T,
            B=self.B,
            off_backward=self.off_backward,
            off_forward=self.off_forward,
            default_value=self.default_priority**self.alpha,
            enable_input_priorities=self.input_priorities,
            input_priority_shift=self.input_priority_shift,
            rng=self.rng,
            valid=self.valid,
        )

    def set_beta(self, beta: float) -> None:
        """Set the importance-weight exponent (the algorithm anneals it)."""
        self.beta = float(beta)

    def append_samples(
        self, samples: NamedArrayTupleLike, valid: ArrayLike | None = None
    ) -> tuple[int, np.ndarray]:
        """Store a ``[T_new, B]`` chunk and advance the tree.

        Args:
            samples: The samples record, or with ``input_priorities=True`` a
                ``SamplesToBufferPri(samples, priorities)`` with ``[T_new, B]`` priorities
                (raised to alpha here).
            valid: Optional ``[T_new, B]`` bool; False rows get priority 0.

        Returns:
            ``(T_new, idxs)`` as the storage's ``append_samples``.
        """
        priorities = None
        if self.input_priorities:
            if not hasattr(samples, "priorities"):
                raise ValueError(
                    f"{type(self).__name__} was built with input_priorities=True: pass "
                    "SamplesToBufferPri(samples=..., priorities=[T_new, B]) to append_samples."
                )
            priorities = np.asarray(numpify_buffer(samples.priorities), np.float64) ** self.alpha
            samples = samples.samples
        T_new, idxs = super().append_samples(samples, valid)
        self.priority_tree.advance(T_new, priorities=priorities)
        return T_new, idxs

    def sample_batch(self, batch_B: int) -> Any:
        """Draw ``batch_B`` transitions proportionally to priority, with ``is_weights``.

        Returns:
            The replayed record (torch tensors, leading dim ``[batch_B]``) with
            ``is_weights = (1 / leaf) ** beta`` normalised by the batch max (float32).
        """
        self.check_batch_size(batch_B)
        T_idxs, B_idxs, leaves = self.priority_tree.sample(batch_B, unique=self.unique)
        is_weights = (1.0 / leaves) ** self.beta
        is_weights /= is_weights.max()
        return self.extract_batch(T_idxs, B_idxs, is_weights=is_weights.astype(np.float32))

    def update_batch_priorities(self, priorities: ArrayLike) -> None:
        """New priorities for the last sampled batch: ``[batch_B]`` |TD| errors (numpy or torch)."""
        values = np.asarray(numpify_buffer(priorities), np.float64)
        with self.write_guard():
            self.priority_tree.update_batch_priorities(values**self.alpha)

    def state_dict(self) -> dict[str, Any]:
        """Storage state plus the sum tree's."""
        state = super().state_dict()
        state["sum_tree"] = self.priority_tree.state_dict()
        state["beta"] = self.beta
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore storage and sum tree (same sizes required)."""
        if "sum_tree" not in state:
            raise ValueError(
                f"{type(self).__name__}.load_state_dict: the state has no sum tree; it was "
                "saved by a non-prioritized replay."
            )
        tree_state, beta = state["sum_tree"], state.get("beta", self.beta)
        super().load_state_dict({k: v for k, v in state.items() if k not in ("sum_tree", "beta")})
        self.priority_tree.load_state_dict(tree_state)
        self.beta = float(beta)
