"""The depth-first layout of one fitted tree: leaf order, depths, and the leaf-to-leaf path
lengths of the Englund & Verikas dissimilarity (docs/algorithms.md §A.4)."""

from __future__ import annotations

import numpy as np


class _TreeLayout:
    """Depth-first layout of one fitted tree (vectorised over tree levels).

    Attributes
    ----------
    leaf_pos : ndarray (node_count,) int64
        Depth-first rank of each leaf among the leaves (-1 for internal nodes).
    leaf_depth : ndarray (n_leaves,) float64
        Depth (edges from the root) of each leaf, in depth-first order.
    h : ndarray (n_leaves - 1,) float64
        ``h[k]`` = depth of the LCA of leaves ``k`` and ``k + 1`` (depth-first order).
    """

    def __init__(self, tree):
        left = tree.children_left
        right = tree.children_right
        n_nodes = left.shape[0]
        depth = np.zeros(n_nodes, dtype=np.int64)
        levels = []
        frontier = np.array([0], dtype=np.int64)
        while frontier.size:
            levels.append(frontier)
            internal = frontier[left[frontier] != -1]
            kids_l, kids_r = left[internal], right[internal]
            depth[kids_l] = depth[internal] + 1
            depth[kids_r] = depth[internal] + 1
            frontier = np.concatenate([kids_l, kids_r])
        is_leaf = left == -1
        n_leaf_below = is_leaf.astype(np.int64)
        for lev in reversed(levels):
            internal = lev[left[lev] != -1]
            n_leaf_below[internal] = n_leaf_below[left[internal]] + n_leaf_below[right[internal]]
        leaves_before = np.zeros(n_nodes, dtype=np.int64)
        for lev in levels:
            internal = lev[left[lev] != -1]
            leaves_before[left[internal]] = leaves_before[internal]
            leaves_before[right[internal]] = leaves_before[internal] + n_leaf_below[left[internal]]
        n_leaves = int(is_leaf.sum())
        self.n_leaves = n_leaves
        self.leaf_pos = np.where(is_leaf, leaves_before, -1)
        leaf_nodes = np.flatnonzero(is_leaf)
        leaf_depth = np.empty(n_leaves, dtype=np.float64)
        leaf_depth[leaves_before[leaf_nodes]] = depth[leaf_nodes]
        self.leaf_depth = leaf_depth
        internal = np.flatnonzero(~is_leaf)
        h = np.empty(max(n_leaves - 1, 0), dtype=np.float64)
        h[leaves_before[internal] + n_leaf_below[left[internal]] - 1] = depth[internal]
        self.h = h

    def path_matrix(self, w: float) -> np.ndarray:
        """Per-tree path dissimilarity between leaves, ``1 - exp(-w g)`` (docs/algorithms.md §A.4).

        Returns
        -------
        E : ndarray of float32, shape (n_leaves, n_leaves)
            ``g = depth(a) + depth(b) - 2 depth(LCA(a, b))`` edges; LCA depths come from a
            range minimum of ``h`` over the depth-first order (``np.minimum.accumulate``).
        """
        L = self.n_leaves
        d = self.leaf_depth
        if L == 1:
            return np.zeros((1, 1), dtype=np.float32)
        hh = np.concatenate([[np.inf], self.h])  # column b carries h[b - 1]
        upper = np.triu(np.ones((L, L), dtype=bool), 1)
        X = np.where(upper, hh[None, :], np.inf)
        lca = np.minimum.accumulate(X, axis=1)  # lca[a, b] = min h[a..b-1] for b > a
        lca = np.minimum(lca, lca.T)
        np.fill_diagonal(lca, d)
        g = d[:, None] + d[None, :] - 2.0 * lca
        return (-np.expm1(-w * g)).astype(np.float32)
