"""SumTree: sums consistent at every node, draws proportional to leaves, updates with
duplicate indexes, advance turning rows on and off around the cursor."""

import numpy as np
import pytest

from rlpyt.replays.sum_tree import SumTree


def assert_sums_consistent(tree):
    for k in range(tree.tree_levels - 1):
        parents = np.arange(2**k - 1, 2 ** (k + 1) - 1)
        np.testing.assert_allclose(
            tree.tree[parents], tree.tree[2 * parents + 1] + tree.tree[2 * parents + 2]
        )
    assert tree.tree[0] == pytest.approx(tree.priorities.sum())


def set_leaves(tree, values):
    """Set every leaf (on or off) and recompute the sums above them."""
    leaves = tree.low_idx + np.arange(tree.size)
    tree.tree[leaves] = values.reshape(-1)
    tree._propagate(leaves)


def naive_on_rows(t_abs, T, ob, of):
    """Rows that are on after ``t_abs`` rows were written (the documented rule)."""
    if t_abs < T:
        return {r for r in range(T) if of <= r < t_abs - ob}
    t = t_abs % T
    zone = {(t + d) % T for d in range(-ob, of)}
    return set(range(T)) - zone


def test_draws_are_proportional_to_leaves():
    T, B = 6, 3
    tree = SumTree(T, B, off_backward=1, off_forward=1, rng=np.random.default_rng(0))
    values = np.random.default_rng(1).uniform(0, 5, (T, B))
    values[2, 1] = 0.0  # a zero leaf is never drawn
    set_leaves(tree, values)
    assert_sums_consistent(tree)
    n = 60_000
    T_idxs, B_idxs, priorities = tree.sample(n)
    np.testing.assert_array_equal(priorities, values[T_idxs, B_idxs])
    counts = np.zeros((T, B))
    np.add.at(counts, (T_idxs, B_idxs), 1)
    assert counts[2, 1] == 0
    expected = n * values / values.sum()
    on = values > 0
    chi2 = ((counts[on] - expected[on]) ** 2 / expected[on]).sum()
    dof = on.sum() - 1
    assert chi2 < dof + 5 * np.sqrt(2 * dof)


def test_update_with_duplicates_takes_first_occurrence_and_keeps_sums():
    tree = SumTree(4, 2, off_backward=1, off_forward=1, rng=np.random.default_rng(0))
    set_leaves(tree, np.ones((4, 2)))
    tree.prev_tree_idxs = tree.low_idx + np.array([3, 5, 3, 0])
    tree.update_batch_priorities(np.array([7.0, 2.0, 9.0, 0.5]))
    flat = tree.priorities.reshape(-1)
    assert (flat[3], flat[5], flat[0]) == (7.0, 2.0, 0.5)
    assert_sums_consistent(tree)
    with pytest.raises(ValueError, match="one priority per sampled"):
        tree.update_batch_priorities(np.ones(3))


@pytest.mark.parametrize("ob,of", [(1, 1), (3, 1), (2, 3)])
def test_advance_turns_rows_on_and_off(ob, of):
    T, B = 10, 2
    tree = SumTree(T, B, ob, of, default_value=2.0, rng=np.random.default_rng(0))
    t_abs = 0
    for step in [3, 1, 4, 2, 3, 3, 1, 4, 4, 2]:
        tree.advance(step)
        t_abs += step
        on = naive_on_rows(t_abs, T, ob, of)
        for r in range(T):
            expected = 2.0 if r in on else 0.0
            assert (tree.priorities[r] == expected).all(), (t_abs, r)
        assert_sums_consistent(tree)


def test_advance_respects_valid_flags_and_unique_sampling():
    T, B = 10, 2
    valid = np.ones((T, B), bool)
    valid[4, 0] = False
    tree = SumTree(T, B, 1, 1, rng=np.random.default_rng(0), valid=valid)
    tree.advance(8)  # rows 1..6 on: 11 leaves (one invalid)
    assert tree.priorities[4, 0] == 0 and tree.priorities[4, 1] == 1
    T_idxs, B_idxs, _ = tree.sample(9, unique=True)
    assert len(set(zip(T_idxs.tolist(), B_idxs.tolist(), strict=True))) == 9
    with pytest.raises(ValueError, match="Cannot draw 12 distinct"):
        tree.sample(12, unique=True)
    with pytest.raises(ValueError, match="9 rows at once"):
        tree.advance(9)
    assert "\n" in tree.print_tree() and tree.print_tree(0) == f"{tree.tree[0]:g}"


def test_input_priorities_are_shifted_and_reset_clears():
    T, B, shift = 12, 1, 2
    # off_backward >= shift: a row turns on once the priority given for it has arrived
    tree = SumTree(
        T,
        B,
        3,
        1,
        default_value=0.5,
        enable_input_priorities=True,
        input_priority_shift=shift,
        rng=np.random.default_rng(0),
    )
    given = {}
    t_abs = 0
    for step in [3, 3, 3]:
        values = np.arange(t_abs, t_abs + step, dtype=float)[:, None] + 10
        tree.advance(step, priorities=values)
        for i in range(step):
            given[t_abs + i] = values[i, 0]
        t_abs += step
    on = naive_on_rows(t_abs, T, 3, 1)
    assert len(on) == 5
    for r in on:
        # the leaf of row r holds the priority given with the row written at r + shift
        assert tree.priorities[r, 0] == given[r + shift]
    tree.reset()
    assert tree.tree.sum() == 0 and (tree.input_priorities == 0.5).all()
    with pytest.raises(ValueError, match="0 valid transitions"):
        tree.sample(1)
    plain = SumTree(T, B, 1, 1)
    with pytest.raises(ValueError, match="enable_input_priorities=False"):
        plain.advance(1, priorities=np.ones((1, 1)))


def test_update_keeps_a_leaf_turned_off_after_the_draw_off():
    """Async replays: a copier may turn a drawn leaf off before the optimizer's update."""
    T, B = 4, 2
    tree = SumTree(T, B, off_backward=1, off_forward=1, rng=np.random.default_rng(0))
    set_leaves(tree, np.ones((T, B)))
    T_idxs, B_idxs, _ = tree.sample(16)
    off_leaf = tree.prev_tree_idxs[0]
    tree.tree[off_leaf] = 0.0  # what advance() does to a row entering the cursor zone
    tree._propagate(np.array([off_leaf]))
    tree.update_batch_priorities(np.full(16, 3.0))
    assert tree.tree[off_leaf] == 0.0
    others = np.setdiff1d(tree.prev_tree_idxs, [off_leaf])
    assert np.all(tree.tree[others] == 3.0)
    assert_sums_consistent(tree)
