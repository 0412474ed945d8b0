"""Compiled traversal of a :class:`mvlab.siamese.compact.CompactForest`'s flat arrays (numba).

Every row's leaf in each tree, and the weighted sum of those leaves' class distributions, read straight from the
compact arrays (a few bytes a node) without rebuilding scikit-learn trees. Rows compare their value with the node's
threshold as scikit-learn's ``Tree.apply`` does: ``x <= threshold`` goes left, anything else (a NaN included) goes
right, which a compact tree's scikit-learn ``Tree`` would also do (its nodes send missing values right).
``tests/test_compact_traverse.py`` checks it bit for bit against that rebuilt tree's ``apply``.

How it is fast. Each tree is first unpacked into one record of four 32-bit words a node (left child, right child,
feature, threshold as float32; a leaf is its own two children), so a step down reads one cache line, not four
arrays. All rows then step down the tree together, level by level, which keeps many independent loads in flight
(a row's next node does not wait for another row's): the first ``max_depth // 2`` steps for every row, branch-free
(a row on a leaf stays there), then only the rows not yet on a leaf, their list compacted every two steps. A fully
grown tree's rows reach their leaves at about half its depth (a cascade's trees on 10,000 rows: 12.7 steps on
average against a depth of 21-25), so stepping every row the whole depth did nearly twice the work
(``bench/bench_compact_traversal.py`` times both). Every index in the loop is unsigned, so numba leaves out the check
it makes on a signed index for a negative one (wrapping it around): with signed indices the same loop took about
1.4 times as long.

Compiled once per combination of the arrays' dtypes and cached on disk (``cache=True``), so only a fresh install
pays for the compilation (about half a second a combination).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["accumulate_leaves"]

_COMPACT_EVERY = 2  # steps between two compactions of the list of rows not yet on a leaf


@njit(cache=True, nogil=True)
def _unpack_tree(t, node_offsets, leaf_offsets, right, left, implicit, feature, threshold, rec,
                 leaf_of):  # pragma: no cover
    """Tree ``t``'s nodes as records ``rec[4j:4j+4]`` = (left, right, feature, threshold's float32 bits) and each
    leaf's index among the forest's leaves in ``leaf_of[j]`` (the tree's first leaf for an internal node); a leaf
    is its own two children."""
    cuts = rec.view(np.float32)
    base = node_offsets[t]
    n_nodes = node_offsets[t + 1] - base
    leaf = leaf_offsets[t]
    for j in range(n_nodes):
        child = right[base + j]
        o = 4 * j
        if child == -1:
            rec[o] = j
            rec[o + 1] = j
            rec[o + 2] = 0
            cuts[o + 3] = 0
            leaf_of[j] = leaf
            leaf += 1
        else:
            rec[o] = j + 1 if implicit else left[base + j]
            rec[o + 1] = child
            rec[o + 2] = feature[base + j]
            cuts[o + 3] = np.float32(threshold[base + j])
            leaf_of[j] = leaf_offsets[t]  # never read for a row that reached its leaf; in bounds if it were


@njit(cache=True, nogil=True, inline="always")
def _child(X, r, rec, cuts, at):  # pragma: no cover
    """The child of node ``at`` that row ``r`` of ``X`` goes to: left when ``x <= threshold``, else right (a NaN
    too). Every index is unsigned, so numba leaves out its check for negative indices (a third of the loop's time
    with signed ones)."""
    o = np.uint64(4) * np.uint64(at)
    x = np.float32(X[np.uint64(r), np.uint64(rec[o + np.uint64(2)])])
    return rec[o + np.uint64(not x <= cuts[o + np.uint64(3)])]


@njit(cache=True, nogil=True, inline="always")
def _on_leaf(rec, at):  # pragma: no cover
    """Whether node ``at`` of the unpacked tree ``rec`` is a leaf: its own left child."""
    return rec[np.uint64(4) * np.uint64(at)] == at


@njit(cache=True, nogil=True)
def _descend(X, rec, max_depth, node, rows, at, staged):  # pragma: no cover
    """Every row's leaf in the unpacked tree ``rec``, into ``node`` (n,): ``max_depth // 2`` steps for all rows,
    then steps for the rows not yet on a leaf (``rows``, their nodes ``at``: scratch of size n); with ``staged``
    False, ``max_depth`` steps for all rows (as before 0.7.8; the bench compares the two). All of uint32."""
    cuts = rec.view(np.float32)
    n = np.uint64(X.shape[0])
    node[:n] = 0
    done = max_depth // 2 if staged else max_depth
    for _ in range(done):
        for r in range(n):
            node[r] = _child(X, r, rec, cuts, node[r])
    m = np.uint64(0)
    for r in range(n):
        rows[m] = r
        at[m] = node[r]
        m += np.uint64(not _on_leaf(rec, node[r]))
    while done < max_depth and m > 0:
        steps = min(_COMPACT_EVERY, max_depth - done)
        for _ in range(steps):
            for i in range(m):
                at[i] = _child(X, rows[i], rec, cuts, at[i])
        done += steps
        kept = np.uint64(0)
        for i in range(m):
            r = np.uint64(rows[i])
            node[r] = at[i]
            rows[kept] = r
            at[kept] = at[i]
            kept += np.uint64(not _on_leaf(rec, at[i]))
        m = kept


@njit(cache=True, nogil=True)
def accumulate_leaves(X, trees, weights, node_offsets, leaf_offsets, max_depths, right, left, implicit, feature,
                      threshold, leaf_classes, leaf_counts, leaf_totals, leaf_values, acc,
                      staged=True):  # pragma: no cover
    """``acc[r, :] += weights[k] * p_k(r)`` for ``k = 0, 1, ...`` in order: ``p_k(r)`` the class distribution of the
    leaf that row ``r`` of ``X`` reaches in tree ``trees[k]`` (Eq. 9's terms; Eq. 12's with tree weights).

    Shapes: ``X`` (n, d), of float32 or, with byte thresholds, of uint8; ``trees``, ``weights`` (K,);
    ``node_offsets`` (T + 1,), ``leaf_offsets`` (T + 1,), ``max_depths`` (T,); ``right``, ``feature``,
    ``threshold`` (total nodes,), ``left`` the same unless ``implicit`` (depth-first trees: an internal node's left
    child is the next node); ``acc`` (n, C). The leaves' distributions are one of: ``leaf_classes`` (total leaves,)
    when it is not empty (a leaf of one class: that class's unit vector), else ``leaf_values`` (total leaves, C)
    when it has rows, else ``leaf_counts / leaf_totals`` (counts (total leaves, C) over their sums, in float64, as
    scikit-learn divides them). ``acc[r, c] += w * v`` is a product then a sum, as numpy's ``acc += w * P`` is.
    Thresholds are compared as float32, exactly as the rows' float32 (or byte) values are. ``staged=False`` steps
    every row the whole depth (the same leaves; for ``bench/bench_compact_traversal.py``).
    """
    n = X.shape[0]
    n_classes = acc.shape[1]
    most = 1
    for k in range(trees.size):
        most = max(most, node_offsets[trees[k] + 1] - node_offsets[trees[k]])
    rec = np.empty(4 * most, dtype=np.uint32)
    leaf_of = np.empty(most, dtype=np.int64)
    node = np.empty(n, dtype=np.uint32)
    rows = np.empty(n, dtype=np.uint32)
    at = np.empty(n, dtype=np.uint32)
    by_class = leaf_classes.size > 0
    by_value = leaf_values.shape[0] > 0
    for k in range(trees.size):
        t = trees[k]
        _unpack_tree(t, node_offsets, leaf_offsets, right, left, implicit, feature, threshold, rec, leaf_of)
        _descend(X, rec, max_depths[t], node, rows, at, staged)
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
