"""Sum tree over the ``T x B`` priorities of a prioritized replay.

Box: Replay. Who calls it: ``PrioritizedReplay`` (``advance`` after each append, ``sample`` per
batch, ``update_batch_priorities`` after each gradient step). Leaves are the priorities in
row-major ``[T, B]`` order at the bottom of a float64 binary tree (float32 lets rounding walk a
draw onto a zero leaf); every inner node is the sum of its two children, so a uniform draw in
``[0, total)`` descended from the root lands on a leaf with probability proportional to it.
Invariant: leaves of rows near the cursor (``[t - off_backward, t + off_forward)``) and of rows
not yet written are 0. Everything is vectorized over samples; updates recompute only the
ancestors of the changed leaves, summing children (no drift from accumulated differences).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from rlpyt.replays.async_ import SharedCursorField, new_shared_cursor
from rlpyt.utils.shared_memory import np_mp_array

_MAX_REDRAWS = 100


class SumTree:
    """Binary sum tree with a cursor that turns rows on and off as a ring buffer fills.

    Args:
        T: Rows of the replay.
        B: Columns of the replay.
        off_backward: Rows behind the cursor that stay off (n_step_return).
        off_forward: Rows at and after the cursor that stay off (1, or frames - 1).
        default_value: Leaf value of a row when it becomes valid (already ``p ** alpha``).
        enable_input_priorities: Keep a ``[T, B]`` array of priorities given with the samples
            (``advance(T, priorities)``), used in place of ``default_value``.
        input_priority_shift: Priorities given with the chunk written at row ``t`` belong to
            row ``t - input_priority_shift`` (e.g. R2D1's ``warmup_T // rnn_state_interval``).
        rng: Generator for the draws (default: one seeded from numpy's global RNG).
        valid: Optional ``[T, B]`` bool flags of the replay; rows with False turn on at 0.
    """

    def __init__(
        self,
        T: int,
        B: int,
        off_backward: int,
        off_forward: int,
        default_value: float = 1,
        enable_input_priorities: bool = False,
        input_priority_shift: int = 0,
        *,
        rng: np.random.Generator | None = None,
        valid: np.ndarray | None = None,
    ) -> None:
        self.T, self.B, self.size = T, B, T * B
        self.off_backward = off_backward
        self.off_forward = off_forward
        self.default_value = float(default_value)
        self.input_priority_shift = input_priority_shift
        self.tree_levels = int(np.ceil(np.log2(self.size + 1))) + 1
        self.low_idx = 2 ** (self.tree_levels - 1) - 1  # tree index of leaf 0
        self.tree = self._allocate_tree(2**self.tree_levels - 1)
        self.priorities = self.tree[self.low_idx : self.low_idx + self.size].reshape(T, B)
        self.input_priorities = (
            self._allocate_tree(self.size).reshape(T, B) if enable_input_priorities else None
        )
        self.rng = rng if rng is not None else np.random.default_rng(np.random.randint(2**31 - 1))
        self.valid = valid
        self.prev_tree_idxs = np.zeros(0, np.int64)
        self.reset()

    def _allocate_tree(self, n: int) -> np.ndarray:
        """float64 zeros; AsyncSumTree overrides this to allocate in shared memory."""
        return np.zeros(n, np.float64)

    def reset(self) -> None:
        """All leaves off, cursor at row 0, input priorities back to the default."""
        self.tree.fill(0)
        self.t = 0
        self._buffer_full = False
        if self.input_priorities is not None:
            self.input_priorities.fill(self.default_value)

    def advance(self, T: int, priorities: ArrayLike | None = None) -> None:
        """Move the cursor by ``T`` rows.

        Turns on the rows whose future is now written and turns off the rows entering the zone
        ahead of the cursor.

        Args:
            T: Rows just written at the cursor.
            priorities: Optional ``[T, B]`` (or broadcastable) input priorities of those rows,
                already raised to alpha; stored at rows ``t - input_priority_shift``.
        """
        if T == 0:
            return
        if T > self.T - self.off_backward - self.off_forward:
            raise ValueError(
                f"SumTree.advance: {T} rows at once is more than the {self.T} rows minus the "
                f"{self.off_backward + self.off_forward} around the cursor; use a larger replay."
            )
        t_abs = self.t + (self.T if self._buffer_full else 0)  # rows written before, unwrapped
        if priorities is not None:
            self._store_input_priorities(t_abs, T, priorities)
        first_on = max(t_abs - self.off_backward, self.off_forward)  # lap 1: skip rows < f
        on = np.arange(first_on, t_abs + T - self.off_backward)
        # Off: rows of the previous lap entering the new zone [t' - b, t' + f), t' = t + T.
        first_off = max(t_abs + self.off_forward, t_abs + T - self.off_backward)
        off = np.arange(first_off, t_abs + T + self.off_forward) % self.T
        on %= self.T
        leaves = self.priorities
        changed = np.unique(np.concatenate([on, off]))
        if on.size:
            values = (
                self.default_value if self.input_priorities is None else self.input_priorities[on]
            )
            leaves[on] = values if self.valid is None else values * self.valid[on]
        leaves[off] = 0
        leaf_idxs = (changed[:, None] * self.B + np.arange(self.B)).reshape(-1) + self.low_idx
        self._propagate(leaf_idxs)
        self._buffer_full = self._buffer_full or self.t + T >= self.T
        self.t = (self.t + T) % self.T

    def _store_input_priorities(self, t_abs: int, T: int, priorities: ArrayLike) -> None:
        if self.input_priorities is None:
            raise ValueError(
                "SumTree.advance got input priorities, but the tree was built with "
                "enable_input_priorities=False; build it (the replay) with input_priorities=True."
            )
        rows = np.arange(t_abs, t_abs + T) - self.input_priority_shift
        values = np.broadcast_to(np.asarray(priorities, np.float64), (T, self.B))
        keep = rows >= 0  # priorities of rows before the first one have no leaf
        self.input_priorities[rows[keep] % self.T] = values[keep]

    def sample(self, n: int, unique: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Draw ``n`` leaves with probability proportional to their values.

        Args:
            n: Number of draws.
            unique: Draw without replacement (raises when fewer than n leaves are on).

        Returns:
            ``(T_idxs, B_idxs, priorities)``, each ``[n]``; the leaves are remembered for
            ``update_batch_priorities``.
        """
        total = float(self.tree[0])
        if total <= 0:
            raise ValueError(
                "The replay has 0 valid transitions with non-zero priority to sample from; "
                "sample only after enough steps were appended (raise min_steps_learn)."
            )
        tree_idxs = self.find(self.rng.random(n))
        if unique:
            tree_idxs = self._unique_draws(tree_idxs, n)
        tree_idxs = self._redraw_zero_leaves(tree_idxs)
        self.prev_tree_idxs = tree_idxs
        T_idxs, B_idxs = np.divmod(tree_idxs - self.low_idx, self.B)
        return T_idxs, B_idxs, self.tree[tree_idxs]

    def _unique_draws(self, tree_idxs: np.ndarray, n: int) -> np.ndarray:
        for _ in range(_MAX_REDRAWS):
            tree_idxs = np.unique(tree_idxs)
            if tree_idxs.size >= n:
                return self.rng.permutation(tree_idxs)[:n]
            extra = self.find(self.rng.random(2 * (n - tree_idxs.size)))
            tree_idxs = np.concatenate([tree_idxs, extra])
        n_on = int(np.count_nonzero(self.priorities))
        raise ValueError(
            f"Cannot draw {n} distinct transitions (unique=True): {n_on} transitions have "
            "non-zero priority; wait for more steps (min_steps_learn), use a smaller "
            "batch_size, or unique=False."
        )

    def _redraw_zero_leaves(self, tree_idxs: np.ndarray) -> np.ndarray:
        """Redraw the (rare) draws that rounding walked onto a zero leaf."""
        for _ in range(_MAX_REDRAWS):
            zero = np.flatnonzero(self.tree[tree_idxs] <= 0)
            if zero.size == 0:
                return tree_idxs
            tree_idxs[zero] = self.find(self.rng.random(zero.size))
        raise RuntimeError("SumTree: draws keep landing on zero leaves; the tree is corrupt.")

    def find(self, random_values: np.ndarray) -> np.ndarray:
        """Tree indexes of the leaves where ``random_values`` (in [0, 1)) times the total fall."""
        values = np.asarray(random_values, np.float64) * self.tree[0]
        idxs = np.zeros(values.shape, np.int64)
        for _ in range(self.tree_levels - 1):
            idxs = 2 * idxs + 1
            left = self.tree[idxs]
            go_right = values >= left
            values = np.where(go_right, values - left, values)
            idxs += go_right
        return idxs

    def update_batch_priorities(self, priorities: ArrayLike) -> None:
        """Set the leaves of the last ``sample`` to ``priorities`` (``[n]``, already ``p**alpha``).

        A leaf drawn several times takes the value given at its first occurrence. A leaf that
        an append turned off since the draw stays off (async replays: a memory copier wrote
        between the optimizer's sample and its update, and the row is being overwritten);
        drawn leaves are positive, so in a single process every leaf is updated.
        """
        values = np.asarray(priorities, np.float64).reshape(-1)
        if values.shape != self.prev_tree_idxs.shape:
            raise ValueError(
                f"update_batch_priorities got {values.shape[0]} priorities for a sampled batch "
                f"of {self.prev_tree_idxs.shape[0]}; give one priority per sampled transition."
            )
        idxs, first = np.unique(self.prev_tree_idxs, return_index=True)
        self.tree[idxs] = np.where(self.tree[idxs] > 0, values[first], 0.0)
        self._propagate(idxs)

    def _propagate(self, leaf_idxs: np.ndarray) -> None:
        """Recompute the ancestors of ``leaf_idxs`` (sorted, unique) from their children."""
        idxs = leaf_idxs
        for _ in range(self.tree_levels - 1):
            idxs = (idxs - 1) // 2
            idxs = idxs[np.concatenate([[True], idxs[1:] != idxs[:-1]])]
            self.tree[idxs] = self.tree[2 * idxs + 1] + self.tree[2 * idxs + 2]

    def print_tree(self, level: int | None = None) -> str:
        """The tree's values, one line per level (or only ``level``), as a string."""
        levels = range(self.tree_levels) if level is None else [level]
        return "\n".join(
            " ".join(f"{v:g}" for v in self.tree[2**k - 1 : 2 ** (k + 1) - 1]) for k in levels
        )

    def state_dict(self) -> dict[str, Any]:
        """Copies of the tree, input priorities and cursor."""
        state: dict[str, Any] = {
            "tree": self.tree.copy(),
            "t": self.t,
            "_buffer_full": self._buffer_full,
            "prev_tree_idxs": self.prev_tree_idxs.copy(),
        }
        if self.input_priorities is not None:
            state["input_priorities"] = self.input_priorities.copy()
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore ``state_dict()`` output of a tree of the same size."""
        if state["tree"].shape != self.tree.shape or (
            ("input_priorities" in state) != (self.input_priorities is not None)
        ):
            raise ValueError(
                f"Cannot load a sum tree of {state['tree'].shape[0]} nodes into one of "
                f"{self.tree.shape[0]} (or input priorities differ); build the replay with the "
                "same size, B and input_priorities."
            )
        self.tree[:] = state["tree"]
        if self.input_priorities is not None:
            self.input_priorities[:] = state["input_priorities"]
        self.t = int(state["t"])
        self._buffer_full = bool(state["_buffer_full"])
        self.prev_tree_idxs = np.array(state["prev_tree_idxs"], np.int64)


class AsyncSumTree(SumTree):
    """A ``SumTree`` whose nodes, input priorities and cursor live in shared memory.

    Who calls it: ``AsyncPrioritizedReplayBuffer`` (its ``SumTreeCls``), whose memory-copier
    processes ``advance`` it and whose optimizer process samples and updates it, always under
    the replay's lock. Everything that several processes change is shared: the tree, the input
    priorities (both copiers write them: a private copy per process would turn rows on with stale
    values) and the cursor ``t`` / ``_buffer_full``. What one reader keeps for itself stays
    private: the generator of its draws and the leaves of its last ``sample``
    (``prev_tree_idxs``, for its ``update_batch_priorities``). Keywords: ``SumTree``.
    """

    t = SharedCursorField(0, int)
    _buffer_full = SharedCursorField(1, bool)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._cursor = new_shared_cursor()  # before reset() sets t and _buffer_full
        super().__init__(*args, **kwargs)

    def _allocate_tree(self, n: int) -> np.ndarray:
        return np_mp_array(n, np.float64)
