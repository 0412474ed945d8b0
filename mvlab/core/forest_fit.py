"""Fitting a scikit-learn forest without its per-tree Python overhead: tree for tree the same forest.

``RandomForestClassifier.fit`` and ``ExtraTreesClassifier.fit`` spend, around every call of the compiled
tree builder, about half a millisecond of Python: the tree is cloned (``get_params`` through
``inspect.signature``), its targets are checked and encoded again, its sample weights validated, a
random state made. On the Siamese deep forest's fold-models (a few hundred pairs; a tree is built in well
under a millisecond) that is half of a fit. :func:`fit_forest` draws the same seeds in the same order,
makes the same bootstrap counts and calls the same compiled builder (``DepthFirstTreeBuilder`` with the
same criterion and splitter), so the fitted forest holds the same trees, node for node, and the same
attributes as one fitted by ``forest.fit(X, y)``; ``tests/test_forest_fit.py`` compares every tree's arrays
and every attribute with scikit-learn's own fit.

The fast path covers what mvlab's forests use: ``RandomForestClassifier`` or ``ExtraTreesClassifier`` on a
dense finite ``X`` and 1-D ``y``, without sample weights, class weights, ``max_samples``, ``max_leaf_nodes``,
pruning, monotonic constraints, warm start or ``oob_score``, with integer ``min_samples_*``. Anything else
goes to ``forest.fit``. The builder's interface is private to scikit-learn, so the first call in a process
fits a small forest both ways and compares them; if they ever differ (another scikit-learn), every later
call uses ``forest.fit`` and a warning says so once.

One option goes beyond ``forest.fit``: ``bootstrap_weights="distinct"`` grows each bootstrapped tree on the
distinct rows its bootstrap drew, each once (weight 1; a row drawn three times counts once), as DF21's forests
do, instead of scikit-learn's weighting of every row by how often it was drawn (``"counts"``, the default).
The draws, and so the out-of-bag rows (``estimators_samples_``), are the same; a tree grown on weights 0/1 is
the tree grown on the drawn rows alone (scikit-learn's splitter skips rows of weight 0).

Where a meta-estimator of scikit-learn clones and fits a forest itself (a ``StackingClassifier``'s members, a
``Pipeline``'s last step, ``cross_val_predict``), :func:`fit_forest` cannot be called: a
:class:`FastFitRandomForestClassifier` in its place is scikit-learn's ``RandomForestClassifier`` whose ``fit`` is
:func:`fit_forest` (and scikit-learn's own with sample weights).

Another, ``on_tree``, lets a caller see every tree as soon as it is grown and keep something smaller in its
place: ``on_tree(tree, drawn)`` is called for tree 0, 1, ... in order, in the calling thread, with the tree's
bootstrap draw, and ``forest.estimators_`` holds what it returned. The cascade adds a tree's out-of-bag
probabilities and keeps it compact (:mod:`mvlab.siamese.compact`), so that a forest's full scikit-learn trees
(64 bytes and a class distribution a node) are never all alive at once. With threads, at most twice as many
trees as threads are waiting for it.
"""

from __future__ import annotations

import copy
import numbers
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets

from mvlab.core.threads import chunk_count, worker_count

__all__ = ["FastFitRandomForestClassifier", "fit_forest", "fast_path_available"]

_MAX_INT = np.iinfo(np.int32).max
_FOREST_TYPES = (RandomForestClassifier, ExtraTreesClassifier)
_verified: list[bool] = []  # [] until the first check, then [whether the fast path builds sklearn's trees]


def _builder_parts():
    """scikit-learn's compiled tree-building pieces (private; imported late so a layout change only
    disables the fast path)."""
    from sklearn.tree._classes import CRITERIA_CLF, DENSE_SPLITTERS
    from sklearn.tree._tree import DepthFirstTreeBuilder, Tree

    return CRITERIA_CLF, DENSE_SPLITTERS, DepthFirstTreeBuilder, Tree


def _eligible(forest, X, y) -> bool:
    """Whether ``forest.fit(X, y)`` is one the fast path reproduces exactly."""
    p = forest.get_params(deep=False)
    return (
        type(forest) in (*_FOREST_TYPES, FastFitRandomForestClassifier)
        and isinstance(X, np.ndarray) and X.dtype.kind in "biuf" and X.ndim == 2 and X.shape[0] >= 1 and X.shape[1] >= 1
        and isinstance(y, np.ndarray) and y.ndim == 1 and y.shape[0] == X.shape[0]
        and p["class_weight"] is None and p["max_samples"] is None and p["max_leaf_nodes"] is None
        and not p["warm_start"] and p["oob_score"] is False and p["monotonic_cst"] is None
        and p["ccp_alpha"] == 0.0 and p["min_weight_fraction_leaf"] == 0.0
        and p["criterion"] in ("gini", "entropy", "log_loss")
        and isinstance(p["min_samples_split"], numbers.Integral) and not isinstance(p["min_samples_split"], bool)
        and isinstance(p["min_samples_leaf"], numbers.Integral) and not isinstance(p["min_samples_leaf"], bool)
    )


def _max_features(setting, n_features: int) -> int:
    """The features tried per split, as a scikit-learn tree computes it from ``max_features``."""
    if setting == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if setting == "log2":
        return max(1, int(np.log2(n_features)))
    if setting is None:
        return n_features
    if isinstance(setting, numbers.Integral):
        return int(setting)
    return max(1, int(setting * n_features)) if setting > 0.0 else 0


def _bootstrap_weights(counts, bootstrap_weights):
    """A tree's sample weights (n,) from its bootstrap draw counts (n,): the counts, or 1 for every row drawn."""
    if bootstrap_weights == "distinct":
        return (counts > 0).astype(np.float64)
    return np.ascontiguousarray(counts, dtype=np.float64)


def _grow_all(grow, seeds) -> list:
    """``grow(seed, rs)`` for each seed in turn, with one RandomState for them all (re-seeded per tree)."""
    rs = np.random.RandomState(0)
    return [grow(int(seed), rs) for seed in seeds]


def _grow_in_order(build, seeds, n_threads, on_tree) -> list:
    """``on_tree(*build(seed, rs))`` for each seed, called in seed order in this thread, the trees built on
    ``n_threads`` threads (one RandomState each) at most ``2 * n_threads`` ahead of ``on_tree``."""
    if n_threads <= 1 or len(seeds) < 2:
        rs = np.random.RandomState(0)
        return [on_tree(*build(int(seed), rs)) for seed in seeds]
    local = threading.local()

    def task(seed):
        if not hasattr(local, "rs"):
            local.rs = np.random.RandomState(0)
        return build(seed, local.rs)

    kept = []
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        ahead = 2 * n_threads
        futures = [pool.submit(task, int(seed)) for seed in seeds[:ahead]]
        for i in range(len(seeds)):
            grown = futures[i].result()
            futures[i] = None
            if i + ahead < len(seeds):
                futures.append(pool.submit(task, int(seeds[i + ahead])))
            kept.append(on_tree(*grown))
            del grown
    return kept


def _fit_fast(forest, X, y, bootstrap_weights="counts", on_tree=None):
    """The fast path: ``forest`` fitted on dense finite float ``X`` (n, d) and 1-D labels ``y`` (n,)
    (``on_tree``: see :func:`fit_forest`)."""
    criteria, splitters, builder_type, tree_type = _builder_parts()
    forest._validate_params()
    X = np.ascontiguousarray(X, dtype=np.float32)
    n, d = X.shape
    check_classification_targets(y)  # the forest's own error for continuous or multi-output labels
    classes, y_enc = np.unique(y, return_inverse=True)
    n_classes = np.array([classes.size], dtype=np.intp)
    y2 = np.ascontiguousarray(y_enc.reshape(-1, 1), dtype=np.float64)

    forest._validate_estimator()
    template = forest._make_estimator(append=False)  # the tree with the forest's parameters, unseeded
    rs = check_random_state(forest.random_state)
    seeds = [rs.randint(_MAX_INT) for _ in range(forest.n_estimators)]  # _set_random_states: one draw per tree
    max_features = _max_features(template.max_features, d)
    min_leaf = int(template.min_samples_leaf)
    min_split = max(int(template.min_samples_split), 2 * min_leaf)
    max_depth = _MAX_INT if template.max_depth is None else int(template.max_depth)
    tree_classes = np.unique(y2[:, 0])  # what a tree's own fit finds in the encoded labels
    splitter_type = splitters[template.splitter]

    def build(seed, rs):
        # The tree of ``seed`` and its bootstrap draw (n,) (None without bootstrap).
        # rs: this thread's RandomState, seeded again for every tree. The same stream as scikit-learn's fresh
        # RandomState(seed) for the bootstrap draw and for the splitter (which draws once, when the build
        # starts), at 1.5 microseconds instead of 90 for making one (hundreds of trees per small fit).
        if forest.bootstrap:
            rs.seed(seed)  # sklearn's _generate_sample_indices(seed, n, n, None)
            drawn = rs.randint(0, n, n).astype(np.int32)
            weights = _bootstrap_weights(np.bincount(drawn, minlength=n), bootstrap_weights)
        else:
            drawn = weights = None
        rs.seed(seed)
        criterion = criteria[template.criterion](1, n_classes)
        splitter = splitter_type(criterion, max_features, min_leaf, 0.0, rs, None)
        structure = tree_type(d, n_classes, 1)
        builder_type(splitter, min_split, min_leaf, 0.0, max_depth, template.min_impurity_decrease).build(
            structure, X, y2, weights, None)
        tree = copy.copy(template)
        tree.random_state = seed
        tree.n_features_in_ = d
        tree.n_outputs_ = 1
        tree.classes_ = tree_classes
        tree.n_classes_ = n_classes[0]
        tree.max_features_ = max_features
        tree.tree_ = structure
        return tree, drawn

    def grow(seed, rs):
        return build(seed, rs)[0]

    n_threads = worker_count(forest.n_jobs)
    if on_tree is not None:
        trees = _grow_in_order(build, seeds, n_threads, on_tree)
    elif n_threads <= 1 or len(seeds) < 2:
        trees = _grow_all(grow, seeds)
    else:  # the compiled builder releases the GIL; seeds were drawn above, so threads change nothing
        chunks = np.array_split(np.asarray(seeds, dtype=np.int64), chunk_count(n_threads, len(seeds)))
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            parts = list(pool.map(lambda chunk: _grow_all(grow, chunk), chunks))
        trees = [t for part in parts for t in part]

    forest.n_features_in_ = d
    forest._n_samples, forest.n_outputs_ = n, 1
    forest._sample_weight = None
    forest._n_samples_bootstrap = n if forest.bootstrap else None
    forest.estimators_ = trees
    forest.classes_ = classes
    forest.n_classes_ = int(classes.size)
    return forest


def _check_fast_path() -> bool:
    """Fit two small forests both ways and compare every tree (once per process)."""
    rng = np.random.RandomState(7)
    X = rng.rand(40, 5)
    y = (X[:, 0] + 0.3 * rng.rand(40) > 0.6).astype(int) + (X[:, 1] > 0.8)
    try:
        for kind in (RandomForestClassifier, ExtraTreesClassifier):
            ours = _fit_fast(kind(n_estimators=4, random_state=3), X, y)
            theirs = kind(n_estimators=4, random_state=3).fit(X, y)
            for a, b in zip(ours.estimators_, theirs.estimators_):
                if not (np.array_equal(a.tree_.feature, b.tree_.feature)
                        and np.array_equal(a.tree_.threshold, b.tree_.threshold)
                        and np.array_equal(a.tree_.value, b.tree_.value)
                        and a.random_state == b.random_state):
                    return False
            if not np.array_equal(ours.predict_proba(X), theirs.predict_proba(X)):
                return False
    except Exception:  # noqa: BLE001 - any change of the private interface disables the fast path
        return False
    return True


def fast_path_available() -> bool:
    """Whether :func:`fit_forest` builds trees itself here (checked once per process against
    ``forest.fit``)."""
    if not _verified:
        _verified.append(_check_fast_path())
        if not _verified[0]:
            warnings.warn("mvlab.core.forest_fit: this scikit-learn's tree builder differs from the one the fast "
                          "path was written for; forests are fitted by forest.fit (slower, same results).",
                          RuntimeWarning, stacklevel=3)
    return _verified[0]


def _sklearn_fit(forest, X, y):
    """``forest.fit(X, y)`` by scikit-learn's own code (a :class:`FastFitRandomForestClassifier`'s ``fit`` is
    :func:`fit_forest`, which comes here for what its fast path does not cover)."""
    if isinstance(forest, FastFitRandomForestClassifier):
        return RandomForestClassifier.fit(forest, X, y)
    return forest.fit(X, y)


def _refit_distinct(forest, X, y):
    """``forest`` fitted by ``forest.fit``, then every bootstrapped tree grown again on its drawn rows, each with
    weight 1 (the slow route of ``bootstrap_weights="distinct"``, for settings outside the fast path)."""
    _sklearn_fit(forest, X, y)
    if not forest.bootstrap:
        return forest
    X = np.asarray(X)
    y_enc = np.searchsorted(forest.classes_, np.asarray(y))  # what the forest's trees were fitted on
    for tree, rows in zip(forest.estimators_, forest.estimators_samples_):  # the rows each tree's bootstrap drew
        drawn = np.zeros(X.shape[0])
        drawn[rows] = 1.0
        tree.fit(X, y_enc, sample_weight=drawn)
    return forest


def _each_tree(forest, on_tree):
    """``forest.estimators_`` replaced by ``on_tree(tree, drawn)`` for each tree in order (the slow route of
    ``on_tree``: the forest was fitted whole)."""
    samples = forest.estimators_samples_ if forest.bootstrap else [None] * len(forest.estimators_)
    forest.estimators_ = [on_tree(tree, drawn) for tree, drawn in zip(forest.estimators_, samples)]
    return forest


def fit_forest(forest, X, y, bootstrap_weights="counts", on_tree=None):
    """``forest.fit(X, y)``, the same trees and attributes, without scikit-learn's per-tree overhead.

    Parameters
    ----------
    forest : RandomForestClassifier or ExtraTreesClassifier (or any estimator)
        Fitted in place. Settings outside the fast path (see the module's docstring) and other
        estimators are fitted by ``forest.fit``.
    X : ndarray of shape (n_samples, n_features)
        Dense, finite (a forest's own fit accepts missing values; this path does not, and passes
        such data to ``forest.fit``).
    y : ndarray of shape (n_samples,)
        Class labels.
    bootstrap_weights : {"counts", "distinct"}, default="counts"
        With ``forest.bootstrap``: ``"counts"`` weights every row by how often its tree's bootstrap drew it
        (scikit-learn); ``"distinct"`` grows each tree on the distinct drawn rows, weight 1 each (DF21). The
        draws, hence the out-of-bag rows, are the same. Without bootstrap it changes nothing.
    on_tree : callable ``(tree, drawn) -> object``, optional
        Called for every tree as soon as it is grown, tree 0 first, in the calling thread (whatever
        ``forest.n_jobs``): ``tree`` the fitted ``DecisionTreeClassifier`` (trained on the encoded labels, as
        the forest's trees are), ``drawn`` its bootstrap draw, int ndarray of shape (n_samples,) with repeats
        (that tree's ``estimators_samples_``), or None without bootstrap. ``forest.estimators_`` then holds
        what it returned instead of the trees (and ``estimators_samples_`` is no longer available). The fast
        path keeps no more than ``2 * n_jobs`` grown trees waiting; the slow route fits the whole forest first.

    Returns
    -------
    forest
        Fitted: ``estimators_``, ``classes_``, ``n_classes_``, ``n_outputs_``, ``n_features_in_``, and the
        bootstrap state behind ``estimators_samples_``, as ``forest.fit`` sets them.
    """
    if bootstrap_weights not in ("counts", "distinct"):
        raise ValueError(f"bootstrap_weights must be 'counts' or 'distinct'; got {bootstrap_weights!r}.")
    if _eligible(forest, X, y) and np.isfinite(X).all() and fast_path_available():
        return _fit_fast(forest, X, y, bootstrap_weights, on_tree)
    if bootstrap_weights == "distinct":
        _refit_distinct(forest, X, y)
    else:
        _sklearn_fit(forest, X, y)
    return forest if on_tree is None else _each_tree(forest, on_tree)


class FastFitRandomForestClassifier(RandomForestClassifier):
    """scikit-learn's ``RandomForestClassifier`` fitted by :func:`fit_forest`: the same trees and attributes, without
    its Python around every tree (its parameters, methods and fitted attributes are the forest's own).

    For the forests a meta-estimator of scikit-learn clones and fits itself, where :func:`fit_forest` cannot be
    called: the stacking baseline's per-view forests (:func:`mvlab.rfd.baselines.make_view_stacking`), fitted again
    on every fold of ``cross_val_predict`` (17 forests of 100 trees in the Dynamic view selection page's default
    comparison). With ``sample_weight``, or settings outside the fast path, scikit-learn's ``fit``.
    """

    def fit(self, X, y, sample_weight=None):
        """Fit the forest on ``X`` (n_samples, n_features) and ``y`` (n_samples,); returns self."""
        if sample_weight is not None:
            return RandomForestClassifier.fit(self, X, y, sample_weight)
        return fit_forest(self, X, y)
