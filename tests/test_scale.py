"""Large data without (n, n) matrices: sparse rows, exact neighbours from blocks, prototype spaces.

Every blocked or sparse path is compared with the dense one it replaces (docs/algorithms.md §A.10).
"""

import numpy as np
import pytest

from mvlab.core.neighbours import k_smallest_indices
from mvlab.core.sparse_rows import SparseRows, combine_sparse, k_smallest_sparse
from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.forest import kdn as kdn_module
from mvlab.forest.dissimilarity import ForestDissimilarity
from mvlab.forest.measures import RFD, RFGAP, PathLength
from mvlab.rfd.classifier import RFDClassifier, make_combiner
from mvlab.rfd.dvs_pool import view_subsets
from mvlab.rfd.prototypes import DEFAULT_N_PROTOTYPES, choose_prototypes, resolve_prototypes
from mvlab.rfd.view_forests import combine, fit_view_forests
from mvlab.rfd.view_rows import DenseViewRows, ViewRows, subset_combo


def _data(n=240, m=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m)).round(1)  # a decimal grid: tied distances and tied leaves
    y = (X[:, 0] + 0.7 * rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)
    return X, y, rng.normal(size=(60, m)).round(1)


INTEGER_MEASURES = ["breiman", "oob"]
WEIGHTED_MEASURES = ["rfgap", RFGAP(scaling="row_max"), "rfd"]


@pytest.mark.parametrize("measure", INTEGER_MEASURES + WEIGHTED_MEASURES)
def test_sparse_rows_equal_the_dense_matrices(measure):
    X, y, Xn = _data()
    fd = ForestDissimilarity(measure=measure, n_estimators=25, random_state=1).fit(X, y)
    D, T = fd.train_dissimilarity_, fd.transform(Xn)
    rows = np.arange(30, 170)
    cols = np.sort(np.random.default_rng(2).choice(X.shape[0], 70, replace=False))
    blocks = {
        "train": (fd.sparse_rows(rows=rows).to_dense(), D[rows]),
        "train cols": (fd.sparse_rows(rows=rows, columns=cols).to_dense(), D[rows][:, cols]),
        "new": (fd.sparse_rows(Xn).to_dense(), T),
        "new cols": (fd.sparse_rows(Xn, columns=cols).to_dense(), T[:, cols]),
        "take_columns": (fd.sparse_rows(Xn).take_columns(cols), T[:, cols]),
        "dense rows": (fd.dissimilarity_rows(rows=rows, columns=cols), D[rows][:, cols]),
    }
    for name, (got, want) in blocks.items():
        if measure in INTEGER_MEASURES:  # integer co-occurrences: the same numbers
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:  # float64 sums of weights added in another order, then rounded to float32
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6, err_msg=name)


def _random_sparse(rng, n, n_cols, density, grid):
    """Sparse rows with many exact ties: values on a coarse grid, some stored entries equal to the background."""
    mask = rng.random((n, n_cols)) < density
    vals = np.where(mask, rng.integers(0, grid + 1, size=(n, n_cols)) / grid, 1.0).astype(np.float32)
    r, c = np.nonzero(mask)
    indptr = np.r_[0, np.cumsum(mask.sum(axis=1))].astype(np.int64)
    return SparseRows(indptr, c.astype(np.int64), vals[r, c], 1.0, n_cols), vals


@pytest.mark.parametrize("density", [0.0, 0.02, 0.3, 1.0])
def test_sparse_k_smallest_is_the_dense_search_with_its_ties(density):
    rng = np.random.default_rng(3)
    for k in (1, 3, 7):
        sr, dense = _random_sparse(rng, 50, 23, density, grid=4)
        idx, val = k_smallest_sparse(sr, k)
        np.testing.assert_array_equal(idx, k_smallest_indices(dense, k))
        np.testing.assert_array_equal(val, np.take_along_axis(dense, idx, axis=1))
        exclude = rng.integers(0, 23, size=50)
        loo = dense.astype(np.float64)
        loo[np.arange(50), exclude] = np.inf
        idx, _ = k_smallest_sparse(sr, k, exclude=exclude)
        np.testing.assert_array_equal(idx, k_smallest_indices(loo, k))


def test_combine_sparse_is_combine_bit_for_bit():
    rng = np.random.default_rng(4)
    parts = [_random_sparse(rng, 40, 31, d, grid=97) for d in (0.1, 0.3, 0.05)]
    for weights in ([1 / 3] * 3, [0.2, 0.5, 0.3], [0.7, 0.0, 0.3]):
        got = combine_sparse([p[0] for p in parts], weights).to_dense()
        np.testing.assert_array_equal(got, combine([p[1] for p in parts], weights))


def test_sparse_search_refuses_values_above_the_background():
    sr = SparseRows(np.array([0, 1]), np.array([0]), np.array([2.0], np.float32), 1.0, 3)
    with pytest.raises(ValueError, match="background"):
        k_smallest_sparse(sr, 1)


@pytest.fixture(scope="module")
def view_forests():
    ds = make_multiview_classification(n_samples=360, n_views=3, n_features=5, random_state=0)
    vf = fit_view_forests(ds.X[:280], ds.y[:280], ds.views, n_estimators=15, random_state=0)
    return vf, ds.X[280:]


@pytest.mark.parametrize("block_entries", [500, 1 << 22])
def test_view_rows_scan_equals_the_dense_scan(view_forests, block_entries):
    vf, Xn = view_forests
    combos = [subset_combo(m) for m in view_subsets(3)] + [(np.array([0, 2]), np.array([0.25, 0.75]))]
    protos = np.sort(np.random.default_rng(5).choice(vf.n_train, 40, replace=False))
    cases = [
        (ViewRows(vf.forests, vf.views, None, n_jobs=2, block_entries=block_entries),
         DenseViewRows(vf.dissimilarities, train=True), True),
        (ViewRows(vf.forests, vf.views, Xn, block_entries=block_entries), DenseViewRows(vf.transform(Xn)), False),
    ]
    for sparse, dense, loo in cases:
        if block_entries == 500:
            assert len(sparse.blocks()) > 3  # really in several blocks
        got, want = sparse.scan(protos, combos, 7, exclude_self=loo), dense.scan(protos, combos, 7, exclude_self=loo)
        for g, w in zip(got[0], want[0]):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_array_equal(got[2], want[2])


RULES = [
    ("average", {}), ("knn", {}), ("alignment", {}), ("oob", {}), ("dvs", {}),
    ("dvs", {"competence": "soft", "region": "shared"}),
    ("dvs", {"competence": "lca", "selection": "knora-u", "neighbour_weights": "similarity"}),
]


@pytest.mark.parametrize("combination, rules", RULES)
def test_every_row_a_prototype_is_the_exact_space(combination, rules):
    """prototypes=1.0 takes the blocked path (no (n, n) matrix) and must give the exact path's numbers."""
    ds = make_multiview_classification(n_samples=300, n_views=3, n_features=6, random_state=1)
    X, y, Xn = ds.X[:220], ds.y[:220], ds.X[220:]
    kw = dict(views=ds.views, combination=make_combiner(combination).set_params(**rules), n_estimators=15,
              random_state=0)
    exact = RFDClassifier(**kw).fit(X, y)
    blocked = RFDClassifier(prototypes=1.0, **kw).fit(X, y)
    assert exact.prototypes_ is None and exact.n_prototypes_ == 220 and "Exact" in exact.prototype_note_
    np.testing.assert_array_equal(blocked.prototypes_, np.arange(220))
    assert not any(f.dense_ for f in blocked.view_forests_)  # really no (n, n) matrix
    np.testing.assert_allclose(blocked.view_weights_, exact.view_weights_, rtol=1e-12)
    np.testing.assert_array_equal(blocked.predict_proba(Xn), exact.predict_proba(Xn))
    np.testing.assert_array_equal(blocked.predict_proba_from_dissimilarities(exact.transform_views(Xn)),
                                  exact.predict_proba(Xn))
    if combination == "dvs":
        a, b = exact.explain(Xn), blocked.explain(Xn)
        np.testing.assert_array_equal(a.region, b.region)
        np.testing.assert_array_equal(a.competence, b.competence)
        np.testing.assert_array_equal(a.region_dissimilarity, b.region_dissimilarity)
        other = blocked.combiner_.with_rules(region="shared" if rules.get("region") != "shared" else "candidate")
        ref = exact.combiner_.with_rules(region=other.region)
        np.testing.assert_array_equal(other.train_selection_, ref.train_selection_)


def test_prototype_attributes_say_what_was_used():
    ds = make_multiview_classification(n_samples=200, n_views=2, n_features=4, random_state=2)
    clf = RFDClassifier(views=ds.views, n_estimators=10, prototypes=30, prototype_selection="kcentres",
                        random_state=0).fit(ds.X, ds.y)
    assert clf.n_prototypes_ == 30 and clf.prototypes_.shape == (30,)
    assert np.all(np.diff(clf.prototypes_) > 0)
    assert clf.joint_dissimilarity_.shape == (200, 30) and clf.dissimilarities_[0].shape == (200, 30)
    assert "30 of the 200" in clf.prototype_note_ and "kcentres" in clf.prototype_note_
    assert set(np.unique(ds.y[clf.prototypes_])) == set(np.unique(ds.y))  # every class has prototypes
    assert clf.predict(ds.X[:5]).shape == (5,)


def test_resolve_and_choose_prototypes(view_forests):
    vf, _ = view_forests
    assert resolve_prototypes("auto", 5000) is None and resolve_prototypes("all", 10**6) is None
    assert resolve_prototypes("auto", 50_000) == DEFAULT_N_PROTOTYPES
    assert resolve_prototypes(0.1, 280) == 28 and resolve_prototypes(10**6, 280) == 280
    for bad in ("some", 0, 1.5, -0.1):
        with pytest.raises(ValueError):
            resolve_prototypes(bad, 100)
    for selection in ("stratified", "random", "kcentres"):
        a = choose_prototypes(vf, 30, selection, random_state=3)
        b = choose_prototypes(vf, 30, selection, random_state=3)
        np.testing.assert_array_equal(a, b)
        assert a.size == 30 and np.unique(a).size == 30
    counts = np.bincount(vf.y[choose_prototypes(vf, 28, "stratified", random_state=0)], minlength=3)
    np.testing.assert_allclose(counts, 28 * np.bincount(vf.y) / vf.n_train, atol=1)


def test_large_forest_builds_no_matrix_and_says_why():
    X, y, Xn = _data()
    fd = ForestDissimilarity(n_estimators=10, random_state=0, dense_max_rows=100).fit(X, y)
    assert not fd.dense_
    with pytest.raises(ValueError, match="dense_max_rows=100"):
        fd.train_dissimilarity_  # noqa: B018
    ref = ForestDissimilarity(n_estimators=10, random_state=0).fit(X, y)
    np.testing.assert_array_equal(fd.dissimilarity_rows(rows=slice(0, 50)), ref.train_dissimilarity_[:50])
    np.testing.assert_array_equal(fd.transform(Xn), ref.transform(Xn))
    for measure in (PathLength(), RFD(form="weighted_dissimilarity")):
        with pytest.raises(ValueError, match="dense_max_rows"):
            ForestDissimilarity(measure=measure, n_estimators=5, dense_max_rows=100).fit(X, y)


def test_kdn_by_row_blocks_equals_the_whole_matrix(monkeypatch):
    X, y, _ = _data(n=300)
    whole = kdn_module._kdn(X, y, 5)
    monkeypatch.setattr(kdn_module, "KDN_BLOCK_ROWS", 64)
    np.testing.assert_array_equal(kdn_module._kdn(X, y, 5), whole)


def test_prototypes_with_a_measure_without_sparse_rows_use_the_dense_matrices():
    ds = make_multiview_classification(n_samples=200, n_views=2, n_features=4, random_state=3)
    X, y, Xn = ds.X[:150], ds.y[:150], ds.X[150:]
    kw = dict(views=ds.views, combination="dvs", measure="path", n_estimators=8, random_state=0)
    exact = RFDClassifier(**kw).fit(X, y)
    blocked = RFDClassifier(prototypes=1.0, **kw).fit(X, y)
    np.testing.assert_array_equal(blocked.predict_proba(Xn), exact.predict_proba(Xn))
    few = RFDClassifier(prototypes=20, **kw).fit(X, y)
    assert few.n_prototypes_ == 20 and few.dissimilarities_[0].shape == (150, 20)
    assert few.predict(Xn).shape == (50,)
