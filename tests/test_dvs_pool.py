"""The DVS pool's out-of-bag evidence (mvlab.rfd.dvs_pool) against scikit-learn's own, bit for bit.

The reference is the slow, obviously correct one: ``RandomForestClassifier(oob_score=True)``, which copies
every tree's out-of-bag rows and predicts them.  The pool reads the same numbers from one leaf lookup of
all rows per tree, with the bootstraps found once per pool (docs/algorithms.md §A.8).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

from mvlab.rfd.dvs_pool import SharedBootstraps, fit_candidate, out_of_bag_proba, out_of_bag_rows


def _views(n: int, Q: int, n_classes: int, seed: int):
    """Q float32 (n, n) matrices with ties (values on a grid of 1/20, as a 20-tree dissimilarity) and labels."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    Ds = []
    for _ in range(Q):
        noise = rng.integers(0, 21, (n, n)) / 20
        D = np.where(y[:, None] == y[None, :], noise * 0.6, noise).astype(np.float32)
        np.fill_diagonal(D, 0.0)
        Ds.append(D)
    return Ds, y


def _sklearn_oob_forest(X, y, n_trees: int, seed: int) -> RandomForestClassifier:
    """The reference: scikit-learn's own out-of-bag forest (its warning about rows never out-of-bag muted)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Some inputs do not have OOB scores")
        return RandomForestClassifier(n_estimators=n_trees, max_features="sqrt", oob_score=True,
                                      random_state=seed).fit(X, y)


@pytest.mark.parametrize("n_trees", [2, 25])
@pytest.mark.parametrize("n_classes", [2, 5])
def test_out_of_bag_proba_is_scikit_learns_bit_for_bit(n_trees, n_classes):
    """Equal to ``oob_decision_function_`` with rows never out-of-bag (2 trees) and without, with the rows
    found here or given.  Fails when the in-bag rows are added too (tried: ``total +=`` every row's
    probabilities), when the mean divides by the number of trees (tried: ``/ len(forest.estimators_)``),
    and when a tree's probabilities are those of another tree's bootstrap (tried: the rows of tree 0 for
    every tree)."""
    Ds, y = _views(60, 1, n_classes, seed=n_classes)
    ref = _sklearn_oob_forest(Ds[0], y, n_trees, seed=3)
    plain = RandomForestClassifier(n_estimators=n_trees, random_state=3).fit(Ds[0], y)
    if n_trees == 2:
        assert (ref.oob_decision_function_.sum(axis=1) == 0).any()  # the case of rows never out-of-bag
    ours = out_of_bag_proba(plain, Ds[0])
    assert ours.dtype == np.float64 and ours.shape == (60, n_classes)
    np.testing.assert_array_equal(ours, ref.oob_decision_function_)
    np.testing.assert_array_equal(out_of_bag_proba(plain, Ds[0], out_of_bag_rows(plain, 60)), ours)


def test_out_of_bag_rows_are_the_rows_no_bootstrap_drew():
    """Fails when a row drawn once counts as out-of-bag (tried: ``<= 1`` for ``== 0``)."""
    Ds, y = _views(40, 1, 3, seed=0)
    forest = RandomForestClassifier(n_estimators=6, random_state=1).fit(Ds[0], y)
    rows = out_of_bag_rows(forest, 40)
    assert rows.shape == (6, 40) and rows.dtype == bool
    for t, drawn in enumerate(forest.estimators_samples_):
        np.testing.assert_array_equal(np.flatnonzero(rows[t]), np.setdiff1d(np.arange(40), drawn))


def test_shared_bootstraps_are_found_once_per_seed():
    """Candidates grown with one seed share one array; a forest with other seeds gets its own.  Fails when
    the rows are kept without the trees' seeds (tried: one key for every forest, the second forest then
    read the first one's bootstraps)."""
    Ds, y = _views(40, 2, 3, seed=1)
    shared = SharedBootstraps(40)
    a = RandomForestClassifier(n_estimators=5, random_state=7).fit(Ds[0], y)
    b = RandomForestClassifier(n_estimators=5, random_state=7).fit(Ds[1], y)
    other = RandomForestClassifier(n_estimators=5, random_state=8).fit(Ds[0], y)
    assert shared.of(a) is shared.of(b)
    np.testing.assert_array_equal(shared.of(other), out_of_bag_rows(other, 40))
    assert not np.array_equal(shared.of(other), shared.of(a))


@pytest.mark.parametrize("shared", [False, True], ids=["own-bootstraps", "shared-bootstraps"])
def test_a_candidate_is_scikit_learns_oob_forest(shared):
    """The candidate of views {0, 1} is ``RandomForestClassifier(oob_score=True)`` on their average: the same
    trees, ``oob_decision_function_``, ``oob_score_`` and parameters, and the evidence the rules read follows
    from them.  Fails when the candidate's out-of-bag score counts the wrong rows (tried: the mean of the
    hits of the rows ever out-of-bag only) and when the pool's bootstraps come in another order than the
    trees (tried: SharedBootstraps keeping the rows reversed)."""
    Ds, y = _views(50, 2, 4, seed=2)
    bootstraps = SharedBootstraps(50) if shared else None
    if shared:  # another candidate of the same pool came first
        fit_candidate(Ds, np.array([True, False]), y, 3, "sqrt", 5, 1, bootstraps)
    cand = fit_candidate(Ds, np.array([True, True]), y, 3, "sqrt", 5, 1, bootstraps)
    Dw = ((Ds[0].astype(np.float64) * 0.5 + Ds[1].astype(np.float64) * 0.5)).astype(np.float32)
    ref = _sklearn_oob_forest(Dw, y, 3, seed=5)  # 3 trees: some rows are never out-of-bag
    forest = cand.forest
    for mine, theirs in zip(forest.estimators_, ref.estimators_):
        np.testing.assert_array_equal(mine.tree_.feature, theirs.tree_.feature)
        np.testing.assert_array_equal(mine.tree_.threshold, theirs.tree_.threshold)
        np.testing.assert_array_equal(mine.tree_.value, theirs.tree_.value)
    np.testing.assert_array_equal(forest.oob_decision_function_, ref.oob_decision_function_)
    assert forest.oob_score_ == ref.oob_score_
    assert forest.get_params()["oob_score"] is True and forest.get_params()["n_jobs"] == 1
    dec = ref.oob_decision_function_
    seen = dec.sum(axis=1) > 0
    assert not seen.all()
    np.testing.assert_array_equal(cand.oob_hits, seen & (dec.argmax(axis=1) == y))
    np.testing.assert_array_equal(cand.oob_predictions, np.where(seen, dec.argmax(axis=1), -1))
    np.testing.assert_array_equal(cand.oob_true_proba, dec[np.arange(50), y])


def test_replay_regions_are_found_when_a_rule_needs_them_and_survive_a_pickle():
    """The exact space's leave-one-out regions are searched when the replay first needs a rule's (the shared
    region only after ``with_rules(region="shared")``), give what a pool fitted under that rule gives, and
    still do after a pickle round trip.  The shared region is kept once, not once per candidate (a pickle
    would copy the broadcast).  Fails when the shared region is kept broadcast (tried: the ``strides`` line
    removed, the kept array then has P rows)."""
    import pickle

    from mvlab.rfd.dvs import DVSCombiner
    from mvlab.rfd.view_forests import fit_view_forests

    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 6))
    y = (X[:, 0] + X[:, 3] > 0).astype(int)
    vf = fit_view_forests(X, y, [np.arange(2), np.arange(2, 4), np.arange(4, 6)], n_estimators=8, random_state=0)
    comb = DVSCombiner(n_estimators=8, k=5, random_state=1, competence="soft").fit(vf)
    assert set(comb._train_regions.found) == {"candidate"}
    again = pickle.loads(pickle.dumps(comb)).with_rules(region="shared")
    fresh = DVSCombiner(n_estimators=8, k=5, random_state=1, competence="soft", region="shared").fit(vf)
    np.testing.assert_array_equal(again.train_selection_, fresh.train_selection_)
    np.testing.assert_array_equal(again.view_weights_, fresh.view_weights_)
    idx, dist = again._train_regions.found["shared"]
    assert idx.shape == dist.shape == (1, 40, 5)
