"""The traversal of a :class:`mvlab.siamese.compact.CompactForest`'s flat arrays: compiled C, or scikit-learn's.

Every row's leaf in each tree, and the weighted sum of those leaves' class distributions, read straight from the
compact arrays (a few bytes a node). Rows compare their value with the node's threshold as scikit-learn's
``Tree.apply`` does: ``x <= threshold`` goes left, anything else (a NaN included) goes right, which a compact tree's
scikit-learn ``Tree`` would also do (its nodes send missing values right).

Two routes give the same sums bit for bit (``tests/test_compact_traverse.py``):

* **compiled** (``mvlab/_compiled/traverse.c``, a C extension built when mvlab is installed, where a C compiler and
  the Python headers are found): used whenever it was built (:data:`COMPILED`). It needs no runtime beyond the
  interpreter: an earlier version compiled the same loop with numba, whose runtime (LLVM's library) added about
  95 MB to a process's resident memory, more than a DF21 cascade's whole working set at 10,000 rows.
* **rebuilt** (:func:`accumulate_leaves_rebuilt`): each tree rebuilt as a scikit-learn ``Tree`` and its ``apply``;
  4-6 times slower. It is the reference the tests check the compiled route against, and the route taken where no
  compiler built the extension.

How the compiled route is fast. Each tree is first unpacked into one record of four 32-bit words a node (left
child, right child, feature, threshold as float32; a leaf is its own two children), so a step down reads one cache
line, not four arrays. All rows then step down the tree together, level by level, which keeps many independent
loads in flight (a row's next node does not wait for another row's): the first ``max_depth // 2`` steps for every
row, branch-free (a row on a leaf stays there), then only the rows not yet on a leaf, their list compacted every two
steps. A fully grown tree's rows reach their leaves at about half its depth (a cascade's trees on 10,000 rows: 12.7
steps on average against a depth of 21-25), so stepping every row the whole depth did nearly twice the work
(``bench/bench_compact_traversal.py`` times both). Every index the arrays hold (children, features, leaves, offsets,
classes) is checked against the arrays' sizes, and every tree's depth against its real depth, so a damaged forest
raises ``ValueError`` instead of reading memory it was not given or looping past its nodes; the loops run without
the GIL, on copies of what was checked (another thread writing the arrays, or an accumulator that aliases one, cannot
turn a checked index into an unchecked one), and index arrays must be integers, every buffer aligned.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

try:
    from mvlab._compiled.traverse import accumulate_leaves as _compiled
except ImportError:  # pragma: no cover - an install without a C compiler
    _compiled = None

__all__ = ["COMPILED", "ForestArrays", "accumulate_leaves", "accumulate_leaves_rebuilt", "implicit_left",
           "leaf_distributions", "rebuilt_tree"]

COMPILED = _compiled is not None
"""Whether the C extension was built (``pip install`` found a compiler); otherwise the rebuilt route is taken."""


class ForestArrays(NamedTuple):
    """A compact forest's flat arrays, as the traversal reads them (:meth:`CompactForest.arrays`).

    Shapes: ``node_offsets`` (T + 1,), ``leaf_offsets`` (T + 1,), ``max_depths`` (T,); ``right``, ``feature``,
    ``threshold`` (total nodes,), ``left`` the same, or ``None`` for depth-first trees (an internal node's left child
    is the next node). The leaves' distributions are one of: ``leaf_classes`` (total leaves,) when it is not empty
    (a leaf of one class: that class's unit vector), else ``leaf_values`` (total leaves, C) when it has rows, else
    ``leaf_counts / leaf_totals`` (counts (total leaves, C) over their sums, in float64, as scikit-learn divides
    them)."""

    node_offsets: np.ndarray
    leaf_offsets: np.ndarray
    max_depths: np.ndarray
    right: np.ndarray
    left: np.ndarray | None
    feature: np.ndarray
    threshold: np.ndarray
    leaf_classes: np.ndarray
    leaf_counts: np.ndarray
    leaf_totals: np.ndarray
    leaf_values: np.ndarray


def accumulate_leaves(X, trees, weights, forest: ForestArrays, acc, *, staged=True):
    """``acc[r, :] += weights[k] * p_k(r)`` for ``k = 0, 1, ...`` in order: ``p_k(r)`` the class distribution of the
    leaf that row ``r`` of ``X`` reaches in tree ``trees[k]`` of ``forest`` (Eq. 9's terms; Eq. 12's with tree
    weights).

    Shapes: ``X`` (n, d), C-contiguous, of float32 or, with byte thresholds, of uint8; ``trees`` (K,) of int,
    ``weights`` (K,) of float64; ``forest`` the arrays of :class:`ForestArrays`; ``acc`` (n, C) of float64,
    C-contiguous, updated in place. ``acc[r, c] += w * v`` is a product then a sum, as numpy's ``acc += w * P`` is.
    Thresholds are compared as float32, exactly as the rows' float32 (or byte) values are. ``staged=False`` steps
    every row the whole depth (the same leaves; for ``bench/bench_compact_traversal.py``). Without the compiled
    extension the rebuilt route gives the same sums (``staged`` has no meaning there). The C entry point takes
    every array by keyword (``left=None``: depth-first trees).
    """
    if _compiled is None:  # pragma: no cover - an install without a C compiler
        return accumulate_leaves_rebuilt(X, trees, weights, forest, acc)
    _compiled(X=X, trees=trees, weights=weights, acc=acc, staged=bool(staged), **forest._asdict())
    return acc


def implicit_left(right):
    """A depth-first tree's left children from its right ones (n_nodes,): the next node, -1 at leaves (-1)."""
    left = np.arange(1, np.size(right) + 1)
    left[np.asarray(right) == -1] = -1
    return left


def rebuilt_tree(t, n_features, n_classes, forest: ForestArrays):
    """Tree ``t`` of a compact forest's arrays (:class:`ForestArrays`) rebuilt as a scikit-learn ``Tree``: its
    children, features and thresholds, what its compiled ``apply`` reads (no leaf values). Returns the tree and its
    left children (n_nodes,), -1 at leaves."""
    from sklearn.tree._tree import NODE_DTYPE, Tree

    lo, hi = int(forest.node_offsets[t]), int(forest.node_offsets[t + 1])
    tree_right = np.asarray(forest.right[lo:hi], dtype=np.intp)
    if forest.left is None:
        tree_left = implicit_left(tree_right)
    else:
        tree_left = np.asarray(forest.left[lo:hi], dtype=np.intp)
    nodes = np.zeros(hi - lo, dtype=NODE_DTYPE)
    nodes["left_child"], nodes["right_child"] = tree_left, tree_right
    nodes["feature"] = forest.feature[lo:hi]
    nodes["threshold"] = forest.threshold[lo:hi]
    tree = Tree(n_features, np.array([n_classes], dtype=np.intp), 1)
    tree.__setstate__({"max_depth": int(forest.max_depths[t]), "node_count": hi - lo, "nodes": nodes,
                       "values": np.zeros((hi - lo, 1, n_classes))})
    return tree, tree_left


def leaf_distributions(t, n_classes, forest: ForestArrays):
    """Tree ``t``'s leaves' class distributions (its leaves, ``n_classes``) in float64: a one-class leaf's unit
    vector, the stored values, or the counts over their sum, as scikit-learn divides them."""
    a, b = int(forest.leaf_offsets[t]), int(forest.leaf_offsets[t + 1])
    if np.size(forest.leaf_classes):
        return np.eye(n_classes)[forest.leaf_classes[a:b]]
    if np.shape(forest.leaf_values)[0]:
        return np.asarray(forest.leaf_values[a:b], dtype=np.float64)
    return forest.leaf_counts[a:b] / forest.leaf_totals[a:b, None].astype(np.float64)


def accumulate_leaves_rebuilt(X, trees, weights, forest: ForestArrays, acc):
    """:func:`accumulate_leaves` the slow, obviously correct way: tree after tree, rebuilt as a scikit-learn
    ``Tree`` (:func:`rebuilt_tree`), its ``apply`` finds the rows' leaves, and ``acc += w * P`` adds their
    distributions. The reference of the tests, and the route where the C extension was not built."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    n_classes = acc.shape[1]
    for t, w in zip(np.asarray(trees).ravel(), np.asarray(weights, dtype=np.float64).ravel()):
        tree, tree_left = rebuilt_tree(int(t), X32.shape[1], n_classes, forest)
        leaf_rank = np.cumsum(tree_left == -1) - 1  # a node's index among its tree's leaves
        leaves = leaf_distributions(int(t), n_classes, forest)
        acc += w * leaves.take(leaf_rank.take(tree.apply(X32)), axis=0)
    return acc
