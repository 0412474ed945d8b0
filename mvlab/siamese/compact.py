"""Fitted forests kept in a few bytes a node, predicting exactly as the scikit-learn forests they came from.

A scikit-learn tree keeps 64 bytes a node (children, feature, threshold, impurity, sample counts) and a
class distribution of ``8 n_classes`` bytes for every node, internal ones included: a cascade of fully grown
trees on 10,000 rows holds gigabytes. :class:`CompactForest` keeps what prediction reads, for all the trees
of a forest in flat arrays: the two children (2 or 4 bytes each), the feature (1, 2 or 4 bytes), the
threshold as ``float32`` (4 bytes) and, for leaves only, their class counts and total (1, 2 or 4 bytes
each).

Exactness. scikit-learn compares a ``float32`` feature value ``x`` with a ``float64`` threshold ``t``;
``x <= t`` holds exactly when ``x <= t32``, ``t32`` the largest ``float32`` not above ``t``, which is
what is stored. A leaf's class distribution is its (bootstrap-weighted) class counts divided by their
sum, which is how scikit-learn computes it; the counts are read back from the tree and checked to give
its distribution bit for bit (a tree whose leaves do not, e.g. one fitted with fractional sample weights,
keeps its distributions as ``float64`` instead). To predict, a compiled traversal reads the flat arrays
themselves (:func:`mvlab.siamese._traverse.accumulate_leaves`, a C extension; all a forest's trees in one call), finds
each row's leaf with the comparison scikit-learn's ``apply`` makes, and divides the leaves' counts by their sums,
so the probabilities are those of the original forest, bit for bit (``tests/test_cascade_compact.py``). The
reference it is checked against rebuilds a tree's nodes as a scikit-learn ``Tree`` and calls its ``apply``
(``tests/test_compact_traverse.py``).

Two savings need no switch and one does. A tree grown depth first (every scikit-learn forest without
``max_leaf_nodes``) numbers an internal node's left child right after it, so the left children are not stored
at all when that holds (checked tree by tree; otherwise they are). With ``integer_inputs=True`` (the cascade's
bins: every input a whole number from 0 to 255) a threshold ``t`` is stored as one byte, ``floor(t)``: for a
whole number ``x``, ``x <= t`` exactly when ``x <= floor(t)``, so the leaves found are the same; this is how
DF21 keeps its thresholds. A forest whose thresholds lie outside 0..255 keeps them as ``float32``. Together a
node of a binned cascade's tree takes 4 bytes (right child, feature, threshold) and a leaf ``n_classes + 1``
more, against scikit-learn's 64 and ``8 n_classes``; when every leaf holds a single class (fully grown trees on
distinct rows), a leaf keeps that class alone (one byte), whose unit vector is its distribution bit for bit.

A forest can also be made compact tree by tree, as it grows: :meth:`CompactForest.tree_part` keeps what the
compact forest needs of one tree (each array in that tree's narrowest dtype, thresholds as ``float32``), and
:meth:`CompactForest.from_parts` joins the parts into the arrays ``CompactForest(forest)`` would hold, so a
forest's full scikit-learn trees need never be alive together (the DF21 setting's out-of-bag forests,
:mod:`mvlab.siamese.cascade`).
"""

from __future__ import annotations

import numpy as np

from mvlab.siamese._traverse import ForestArrays, accumulate_leaves, implicit_left

__all__ = ["CompactForest", "CompactTree", "float32_floor"]

_LEAF = -1  # scikit-learn's TREE_LEAF


def float32_floor(t):
    """The largest ``float32`` not above each ``float64`` in ``t``: for every ``float32`` x,
    ``x <= t`` exactly when ``x <= float32_floor(t)``."""
    t = np.asarray(t, dtype=np.float64)
    t32 = t.astype(np.float32)
    above = t32.astype(np.float64) > t
    t32[above] = np.nextafter(t32[above], np.float32(-np.inf))
    return t32


def _smallest_int(max_value, signed):
    """The narrowest integer dtype holding ``max_value`` (and -1 when ``signed``)."""
    for dt in ((np.int16, np.int32, np.int64) if signed else (np.uint8, np.uint16, np.uint32, np.uint64)):
        if max_value <= np.iinfo(dt).max:
            return dt
    raise ValueError(f"{max_value} does not fit a 64-bit integer.")


def _whole_bytes(X32):
    """Whether every value of ``X32`` is a whole number from 0 to 255 (bin codes); False for no values."""
    return bool(X32.size and X32.min() >= 0 and X32.max() <= 255 and np.array_equal(X32, np.floor(X32)))


def _leaf_counts(value, weighted_n):
    """Integer class counts of the leaves from their distributions ``value`` (n_leaves, C) and weights
    ``weighted_n`` (n_leaves,), or None when the counts do not give back ``value`` bit for bit."""
    counts = np.rint(value * weighted_n[:, None])
    total = counts.sum(axis=1)
    if counts.min(initial=0) < 0 or not np.array_equal(total, weighted_n):
        return None
    with np.errstate(invalid="ignore", divide="ignore"):
        if not np.array_equal(counts / total[:, None], value):
            return None
    return counts.astype(_smallest_int(int(counts.max(initial=0)), signed=False))


class CompactTree:
    """One tree of a :class:`CompactForest`, read as scikit-learn reads a tree: ``tree.tree_.predict(X32)``.

    ``predict`` finds every row's leaf by the compiled traversal of the forest's arrays and divides that leaf's
    class counts by their sum, as scikit-learn computed the leaf's distribution.
    """

    __slots__ = ("_forest", "_index")

    def __init__(self, forest, index):
        self._forest = forest
        self._index = index

    @property
    def tree_(self):
        """The object whose ``predict`` gives the tree's class distributions (this tree)."""
        return self

    def predict(self, X32):
        """Class distribution of the leaf of every row of ``X32`` (float32, C-contiguous), shape
        (n_samples, ``n_classes_``): what the original ``tree_.predict`` gave, bit for bit."""
        return self._forest._tree_predict(self._index, X32)


class CompactForest:
    """A fitted ``RandomForestClassifier`` / ``ExtraTreesClassifier`` in flat compact arrays.

    It predicts as the forest it was made from did, bit for bit, and offers what the cascade reads of a
    forest: ``estimators_`` (trees whose ``tree_`` predicts), ``classes_``, ``n_features_in_`` and
    :meth:`predict_proba`. The fitted forest itself is not kept.

    Parameters
    ----------
    forest : fitted RandomForestClassifier or ExtraTreesClassifier (one output)
    integer_inputs : bool, default=False
        The forest will only be asked about whole numbers from 0 to 255 (bin codes): thresholds are kept as
        one byte each (``floor``), which finds the same leaves for such inputs. :meth:`predict_proba` refuses
        other inputs; the trees' ``tree_.predict`` (what the cascade reads) does not check them.

    Attributes
    ----------
    children_left_ : ndarray or None
        None when every tree numbers its left children right after their parents (depth-first trees).
    threshold_ : ndarray of float32, or of uint8 with ``integer_inputs``
    leaf_counts_, leaf_totals_ : ndarray of unsigned int, or None
        Every leaf's class counts (n_leaves, n_classes) and their sums (n_leaves,).
    leaf_classes_ : ndarray of uint8 or None
        When every leaf holds one class only: that class (n_leaves,), and ``leaf_counts_``, ``leaf_totals_`` are
        None.
    leaf_values_ : ndarray of float64 or None
        The leaves' distributions (n_leaves, n_classes) when their counts do not give them back exactly.
    """

    def __init__(self, forest, integer_inputs=False):
        trees = [est.tree_ for est in forest.estimators_]
        if not trees or trees[0].n_outputs != 1:
            raise ValueError("CompactForest needs a fitted single-output forest with at least one tree.")
        self.classes_ = np.asarray(forest.classes_)
        self.n_features_in_ = int(forest.n_features_in_)
        self.n_classes_ = int(trees[0].n_classes[0])
        node_counts = np.array([t.node_count for t in trees])
        self.node_offsets_ = np.concatenate([[0], np.cumsum(node_counts)])
        child_dt = _smallest_int(int(node_counts.max()), signed=True)
        feat_dt = _smallest_int(self.n_features_in_, signed=False)
        left, right, feature, threshold, leaf_values, leaf_counts = [], [], [], [], [], []
        exact_counts = True
        depth_first = True
        byte_thresholds = bool(integer_inputs)
        for t in trees:
            is_leaf = t.children_left == _LEAF
            internal = np.flatnonzero(~is_leaf)
            depth_first = depth_first and np.array_equal(t.children_left[internal], internal + 1)
            if byte_thresholds:
                cut = np.floor(t.threshold[internal])
                byte_thresholds = bool(cut.size == 0 or (cut.min() >= 0 and cut.max() <= 255))
            left.append(t.children_left.astype(child_dt))
            right.append(t.children_right.astype(child_dt))
            feature.append(np.where(is_leaf, 0, t.feature).astype(feat_dt))
            threshold.append(np.where(is_leaf, np.float32(0), float32_floor(t.threshold)))
            value = t.value[is_leaf, 0, :]
            leaf_values.append(value)
            if exact_counts:
                counts = _leaf_counts(value, t.weighted_n_node_samples[is_leaf])
                exact_counts = counts is not None
                leaf_counts.append(counts)
        self.max_depths_ = np.array([t.max_depth for t in trees], dtype=np.int32)
        self.integer_inputs = bool(integer_inputs)
        self.children_left_ = None if depth_first else np.concatenate(left)
        del left
        self.children_right_ = np.concatenate(right)
        self.feature_ = np.concatenate(feature)
        threshold = np.concatenate(threshold)
        self.threshold_ = np.floor(threshold).astype(np.uint8) if byte_thresholds else threshold
        self.leaf_offsets_ = np.concatenate([[0], np.cumsum([v.shape[0] for v in leaf_values])])
        if exact_counts:
            counts_dt = np.result_type(*[c.dtype for c in leaf_counts])
            self.leaf_counts_, self.leaf_values_ = np.concatenate(leaf_counts).astype(counts_dt), None
            totals = self.leaf_counts_.sum(axis=1, dtype=np.uint64)
            self.leaf_totals_ = totals.astype(_smallest_int(int(totals.max(initial=0)), signed=False))
        else:
            self.leaf_counts_, self.leaf_totals_, self.leaf_values_ = None, None, np.concatenate(leaf_values)
        self._pure_leaves()

    @staticmethod
    def tree_part(tree):
        """What a compact forest keeps of one fitted tree (a scikit-learn ``Tree``, or an estimator holding one
        as ``tree_``), to be joined by :meth:`from_parts`: a dict of its children, features, float32 thresholds
        and leaves, each array in the narrowest dtype for this tree (a few bytes a node)."""
        t = getattr(tree, "tree_", tree)
        if t.n_outputs != 1:
            raise ValueError("CompactForest needs single-output trees.")
        is_leaf = t.children_left == _LEAF
        internal = np.flatnonzero(~is_leaf)
        cut = np.floor(t.threshold[internal])
        value = t.value[is_leaf, 0, :]
        counts = _leaf_counts(value, t.weighted_n_node_samples[is_leaf])
        child_dt = _smallest_int(int(t.node_count), signed=True)
        depth_first = bool(np.array_equal(t.children_left[internal], internal + 1))
        return {
            "node_count": int(t.node_count),
            "max_depth": int(t.max_depth),
            "n_classes": int(t.n_classes[0]),
            "left": None if depth_first else t.children_left.astype(child_dt),
            "right": t.children_right.astype(child_dt),
            "feature": np.where(is_leaf, 0, t.feature).astype(_smallest_int(int(t.feature.max(initial=0)), False)),
            "threshold": np.where(is_leaf, np.float32(0), float32_floor(t.threshold)),
            "byte_thresholds": bool(cut.size == 0 or (cut.min() >= 0 and cut.max() <= 255)),
            "leaf_counts": counts,
            "leaf_values": value.copy() if counts is None else None,
        }

    @classmethod
    def from_parts(cls, parts, classes, n_features_in, integer_inputs=False):
        """The compact forest of the trees whose :meth:`tree_part` are ``parts`` (in the forest's order):
        the same arrays, hence the same predictions, as ``CompactForest(forest, integer_inputs)``, without the
        forest's trees all alive at once (the cascade makes each tree's part as soon as it is grown;
        ``tests/test_cascade_compact.py`` compares the two routes).

        Parameters
        ----------
        parts : list of dict
            ``CompactForest.tree_part(tree)`` of every tree of the forest, at least one.
        classes : ndarray of shape (n_classes,)
            The forest's ``classes_``.
        n_features_in : int
            The forest's ``n_features_in_``.
        integer_inputs : bool, default=False
        """
        if not parts:
            raise ValueError("CompactForest needs a fitted single-output forest with at least one tree.")
        self = cls.__new__(cls)
        self._assemble(parts, classes, n_features_in, integer_inputs)
        return self

    def _assemble(self, parts, classes, n_features_in, integer_inputs):
        """Join the trees' parts (:meth:`tree_part`) into the forest's flat arrays, in the forest-wide dtypes."""
        self.classes_ = np.asarray(classes)
        self.n_features_in_ = int(n_features_in)
        self.n_classes_ = parts[0]["n_classes"]
        node_counts = np.array([p["node_count"] for p in parts])
        self.node_offsets_ = np.concatenate([[0], np.cumsum(node_counts)])
        child_dt = _smallest_int(int(node_counts.max()), signed=True)
        feat_dt = _smallest_int(self.n_features_in_, signed=False)
        self.max_depths_ = np.array([p["max_depth"] for p in parts], dtype=np.int32)
        self.integer_inputs = bool(integer_inputs)
        if all(p["left"] is None for p in parts):
            self.children_left_ = None
        else:  # a depth-first tree's left children, rebuilt where a part left them out
            self.children_left_ = np.concatenate([
                (p["left"] if p["left"] is not None else implicit_left(p["right"])).astype(child_dt) for p in parts])
        self.children_right_ = np.concatenate([p["right"].astype(child_dt) for p in parts])
        self.feature_ = np.concatenate([p["feature"].astype(feat_dt) for p in parts])
        threshold = np.concatenate([p["threshold"] for p in parts])
        byte_thresholds = self.integer_inputs and all(p["byte_thresholds"] for p in parts)
        self.threshold_ = np.floor(threshold).astype(np.uint8) if byte_thresholds else threshold
        del threshold
        n_leaves = [p["leaf_counts"].shape[0] if p["leaf_counts"] is not None else p["leaf_values"].shape[0]
                    for p in parts]
        self.leaf_offsets_ = np.concatenate([[0], np.cumsum(n_leaves)])
        if all(p["leaf_counts"] is not None for p in parts):
            counts_dt = np.result_type(*[p["leaf_counts"].dtype for p in parts])
            self.leaf_counts_ = np.concatenate([p["leaf_counts"] for p in parts]).astype(counts_dt)
            self.leaf_values_ = None
            totals = self.leaf_counts_.sum(axis=1, dtype=np.uint64)
            self.leaf_totals_ = totals.astype(_smallest_int(int(totals.max(initial=0)), signed=False))
        else:  # counts give a tree's distributions back bit for bit (checked), so they stand for them
            self.leaf_counts_, self.leaf_totals_ = None, None
            self.leaf_values_ = np.concatenate([
                p["leaf_values"] if p["leaf_counts"] is None
                else p["leaf_counts"] / p["leaf_counts"].sum(axis=1, dtype=np.float64)[:, None] for p in parts])
        self._pure_leaves()

    def _pure_leaves(self):
        """When every leaf holds one class only (fully grown trees), its class (``leaf_classes_``, one byte) in
        place of its counts and total: its distribution is that class's unit vector either way, bit for bit
        (``k / k`` is 1.0 and ``0 / k`` is 0.0)."""
        self.leaf_classes_ = None
        counts = self.leaf_counts_
        if counts is None or self.n_classes_ > 256 or not np.array_equal(np.count_nonzero(counts, axis=1),
                                                                          np.ones(counts.shape[0])):
            return
        self.leaf_classes_ = np.argmax(counts, axis=1).astype(np.uint8)
        self.leaf_counts_ = self.leaf_totals_ = None

    @property
    def n_estimators(self):
        """Number of trees."""
        return self.max_depths_.size

    @property
    def estimators_(self):
        """The trees (:class:`CompactTree`), read as scikit-learn trees are: ``tree.tree_.predict(X32)``."""
        return [CompactTree(self, i) for i in range(self.n_estimators)]

    @property
    def nbytes(self):
        """Bytes of the arrays that hold the trees."""
        arrays = (self.children_left_, self.children_right_, self.feature_, self.threshold_, self.max_depths_,
                  self.node_offsets_, self.leaf_offsets_, self.leaf_counts_, self.leaf_totals_, self.leaf_values_,
                  getattr(self, "leaf_classes_", None))
        return int(sum(a.nbytes for a in arrays if a is not None))

    def _tree_predict(self, i, X32):
        """Class distributions of tree ``i`` for the rows of ``X32`` (n, ``n_classes_``), by the compiled
        traversal (:func:`mvlab.siamese._traverse.accumulate_leaves`); equal bit for bit to the tree rebuilt for
        scikit-learn's ``apply`` (the reference in ``tests/test_compact_traverse.py``)."""
        acc = np.zeros((np.shape(X32)[0], self.n_classes_))
        self.accumulate_proba(X32, np.array([i]), np.ones(1), acc, byte_rows=False)
        return acc

    def _traversal_rows(self, X32, byte_rows):
        """``X32`` as the compiled traversal reads it: C-contiguous float32 of ``n_features_in_`` columns, or, with
        byte thresholds and ``byte_rows``, as uint8 when every value is a whole number from 0 to 255 (a quarter
        of the memory to read; the same comparisons)."""
        X32 = np.ascontiguousarray(X32, dtype=np.float32)
        if X32.ndim != 2 or X32.shape[1] != self.n_features_in_:
            raise ValueError(f"X has shape {X32.shape}; this forest was fitted on {self.n_features_in_} features, "
                             f"so it needs (n_samples, {self.n_features_in_}).")
        if byte_rows and self.threshold_.dtype == np.uint8 and _whole_bytes(X32):
            return X32.astype(np.uint8)
        return X32

    def arrays(self):
        """The trees' arrays as the traversal reads them (:class:`mvlab.siamese._traverse.ForestArrays`; the kinds
        of leaf this forest does not keep as empty arrays, ``left`` None for depth-first trees)."""
        none = np.zeros((0, self.n_classes_))
        classes = self.leaf_classes_ if getattr(self, "leaf_classes_", None) is not None else np.zeros(0, np.uint8)
        values = self.leaf_values_ if self.leaf_values_ is not None else none
        counts = self.leaf_counts_ if self.leaf_counts_ is not None else np.zeros((0, self.n_classes_), np.uint8)
        totals = self.leaf_totals_ if self.leaf_totals_ is not None else np.zeros(0, np.uint8)
        return ForestArrays(self.node_offsets_, self.leaf_offsets_, self.max_depths_, self.children_right_,
                            self.children_left_, self.feature_, self.threshold_, classes, counts, totals, values)

    def accumulate_proba(self, X32, trees, weights, acc, byte_rows=True):
        """Add ``weights[k]`` times tree ``trees[k]``'s class distributions of the rows of ``X32`` to ``acc``
        (n, ``n_classes_``), tree after tree in the order given: the sum ``sum_k w_k p^{(t_k)}`` of Eqs. 9 and 12,
        the same floating-point sum as ``acc += w * tree.predict(X32)`` tree by tree.

        Parameters
        ----------
        X32 : array-like of shape (n_samples, ``n_features_in_``)
        trees : ndarray of int of shape (K,)
            Indices of the trees, each in ``range(n_estimators)``.
        weights : ndarray of float of shape (K,)
        acc : ndarray of float64 of shape (n_samples, ``n_classes_``), C-contiguous; updated in place.
        byte_rows : bool, default=True
            Read whole-number rows as bytes where the thresholds are bytes (checks the rows once per call).
        """
        rows = self._traversal_rows(X32, byte_rows)
        trees = np.asarray(trees, dtype=np.int64).ravel()
        if trees.size and (trees.min() < 0 or trees.max() >= self.n_estimators):
            raise ValueError(f"tree indices must lie in 0..{self.n_estimators - 1}.")
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != trees.shape:
            raise ValueError(f"weights has shape {weights.shape}; it needs one weight per tree index {trees.shape}.")
        if acc.shape != (rows.shape[0], self.n_classes_) or acc.dtype != np.float64 or not acc.flags.c_contiguous:
            raise ValueError(f"acc must be C-contiguous float64 of shape ({rows.shape[0]}, {self.n_classes_}).")
        accumulate_leaves(rows, trees, weights, self.arrays(), acc)
        return acc

    def predict_proba(self, X):
        """Mean of the trees' class distributions, shape (n_samples, ``n_classes_``), as the original forest's
        ``predict_proba``."""
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        if self.integer_inputs and X32.size and not _whole_bytes(X32):
            raise ValueError("this CompactForest was built with integer_inputs=True: it predicts whole numbers "
                             "from 0 to 255 (bin codes) only.")
        total = np.zeros((X32.shape[0], self.n_classes_))
        self.accumulate_proba(X32, np.arange(self.n_estimators), np.ones(self.n_estimators), total)
        return total / self.n_estimators
