"""Compiled traversal of a :class:`mvlab.siamese.compact.CompactForest`'s flat arrays (numba).

Every row's leaf in each tree, and the weighted sum of those leaves' class distributions, read straight from the
compact arrays (a few bytes a node) without rebuilding scikit-learn trees. The traversal is branch-free: all rows
step down a tree together, level by level, for the tree's ``max_depth`` steps, a leaf being its own two children
(rows that reach a leaf early stay on it), so the processor predicts no branch per node. Rows compare their value
with the node's threshold as scikit-learn's ``Tree.apply`` does: ``x <= threshold`` goes left, anything else
(a NaN included) goes right, which a compact tree's scikit-learn ``Tree`` would also do (its nodes send missing
values right). ``tests/test_compact_traverse.py`` checks it bit for bit against that rebuilt tree's ``apply``.

Compiled once per combination of the arrays' dtypes and cached on disk (``cache=True``), so only a fresh install
pays for the compilation (about half a second a combination).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["accumulate_leaves"]


@njit(cache=True, nogil=True)
def accumulate_leaves(X, trees, weights, node_offsets, leaf_offsets, max_depths, right, left, implicit, feature,
                      threshold, leaf_classes, leaf_counts, leaf_totals, leaf_values, acc):  # pragma: no cover
    """``acc[r, :] += weights[k] * p_k(r)`` for ``k = 0, 1, ...`` in order: ``p_k(r)`` the class distribution of the
    leaf that row ``r`` of ``X`` reaches in tree ``trees[k]`` (Eq. 9's terms; Eq. 12's with tree weights).

    Shapes: ``X`` (n, d), of float32 or, with byte thresholds, of uint8; ``trees``, ``weights`` (K,);
    ``node_offsets`` (T + 1,), ``leaf_offsets`` (T + 1,), ``max_depths`` (T,); ``right``, ``feature``,
    ``threshold`` (total nodes,), ``left`` the same unless ``implicit`` (depth-first trees: an internal node's left
    child is the next node); ``acc`` (n, C). The leaves' distributions are one of: ``leaf_classes`` (total leaves,)
    when it is not empty (a leaf of one class: that class's unit vector), else ``leaf_values`` (total leaves, C)
    when it has rows, else ``leaf_counts / leaf_totals`` (counts (total leaves, C) over their sums, in float64, as
    scikit-learn divides them). ``acc[r, c] += w * v`` is a product then a sum, as numpy's ``acc += w * P`` is.
    """
    n = X.shape[0]
    n_classes = acc.shape[1]
    node = np.empty(n, dtype=np.int32)
    to_left = np.empty(0, dtype=np.int32)
    to_right = np.empty(0, dtype=np.int32)
    column = np.empty(0, dtype=np.int32)
    cut = np.empty(0, dtype=X.dtype)
    leaf_of = np.empty(0, dtype=np.int64)
    by_class = leaf_classes.size > 0
    by_value = leaf_values.shape[0] > 0
    for k in range(trees.size):
        t = trees[k]
        base = node_offsets[t]
        n_nodes = node_offsets[t + 1] - base
        if to_left.size < n_nodes:
            to_left = np.empty(n_nodes, dtype=np.int32)
            to_right = np.empty(n_nodes, dtype=np.int32)
            column = np.empty(n_nodes, dtype=np.int32)
            cut = np.empty(n_nodes, dtype=X.dtype)
            leaf_of = np.empty(n_nodes, dtype=np.int64)
        leaf = leaf_offsets[t]
        for j in range(n_nodes):
            child = right[base + j]
            if child == -1:  # a leaf: its own children; its index among the forest's leaves
                to_left[j] = j
                to_right[j] = j
                column[j] = 0
                cut[j] = 0
                leaf_of[j] = leaf
                leaf += 1
            else:
                to_left[j] = j + 1 if implicit else left[base + j]
                to_right[j] = child
                column[j] = feature[base + j]
                cut[j] = threshold[base + j]
        node[:] = 0
        for _ in range(max_depths[t]):
            for r in range(n):
                at = node[r]
                node[r] = to_left[at] if X[r, column[at]] <= cut[at] else to_right[at]
        w = weights[k]
        for r in range(n):
            i = leaf_of[node[r]]
            if by_class:
                acc[r, leaf_classes[i]] += w
            elif by_value:
                for c in range(n_classes):
                    acc[r, c] += w * leaf_values[i, c]
            else:
                total = np.float64(leaf_totals[i])
                for c in range(n_classes):
                    acc[r, c] += w * (np.float64(leaf_counts[i, c]) / total)
