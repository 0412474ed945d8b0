"""Reference tests for mvlab.forest.dissimilarity: every measure against a plain pair loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

from mvlab.core.neighbours import distance_tie_tolerance, k_nearest_tolerant, k_smallest_indices, k_smallest_mask
from mvlab.forest._leaf_product import cooccurrence
from mvlab.forest.dissimilarity import ForestDissimilarity
from mvlab.forest.kdn import _kdn
from mvlab.forest.measures import MEASURES, RFD, RFGAP, PathLength, SameLeafMeasure, measure_spec

T = 12
ATOL = 2e-6  # float32 output


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=48, n_features=8, n_informative=4, n_redundant=1, n_classes=3,
        n_clusters_per_class=1, class_sep=0.8, random_state=3,
    )
    return X[:34], y[:34], X[34:]


@pytest.fixture(scope="module")
def fitted(data):
    Xtr, ytr, _ = data
    return {
        m: ForestDissimilarity(measure=RFD(kdn_k=5) if m == "rfd" else m, n_estimators=T, random_state=7).fit(Xtr, ytr)
        for m in MEASURES
    }


# ----------------------------------------------------------------------------- plain references
def ref_in_bag(forest, n):
    c = np.zeros((n, len(forest.estimators_)), dtype=int)
    for t, idx in enumerate(forest.estimators_samples_):
        for i in idx:
            c[i, t] += 1
    return c


def ref_breiman(na, nb):
    D = np.empty((len(na), len(nb)))
    for a in range(len(na)):
        for b in range(len(nb)):
            same = sum(1 for t in range(na.shape[1]) if na[a, t] == nb[b, t])
            D[a, b] = 1.0 - same / na.shape[1]
    return D


def ref_tree_parent_depth(tree):
    parent, depth, stack = {0: -1}, {0: 0}, [0]
    while stack:
        v = stack.pop()
        for c in (tree.children_left[v], tree.children_right[v]):
            if c != -1:
                parent[c] = v
                depth[c] = depth[v] + 1
                stack.append(c)
    return parent, depth


def ref_edges(parent, depth, u, v):
    anc = set()
    x = u
    while x != -1:
        anc.add(x)
        x = parent[x]
    x = v
    while x not in anc:
        x = parent[x]
    return depth[u] + depth[v] - 2 * depth[x]


def ref_path(forest, na, nb, w):
    info = [ref_tree_parent_depth(est.tree_) for est in forest.estimators_]
    D = np.empty((len(na), len(nb)))
    for a in range(len(na)):
        for b in range(len(nb)):
            tot = 0.0
            for t, (par, dep) in enumerate(info):
                g = ref_edges(par, dep, na[a, t], nb[b, t])
                tot += 1.0 - math.exp(-w * g)
            D[a, b] = tot / len(info)
    return D


def ref_kdn(forest, X, y, k):
    n = len(y)
    out = np.zeros((n, len(forest.estimators_)))
    for t, est in enumerate(forest.estimators_):
        feats = sorted(set(int(f) for f in est.tree_.feature if f >= 0))
        if not feats:
            continue
        for i in range(n):
            cand = []
            for j in range(n):
                if j != i:
                    d = math.sqrt(sum((X[i, f] - X[j, f]) ** 2 for f in feats))
                    cand.append((d, j))
            cand.sort()
            out[i, t] = sum(1 for _, j in cand[:k] if y[j] != y[i]) / k
    return out


def ref_rfd(na, nb, kdn, form):
    D = np.empty((len(na), len(nb)))
    T_ = na.shape[1]
    for a in range(len(na)):
        for b in range(len(nb)):
            tot = 0.0
            for t in range(T_):
                same = na[a, t] == nb[b, t]
                if form == "weighted_proximity":
                    tot += kdn[b, t] if same else 1.0
                else:
                    tot += (1.0 - kdn[b, t]) * (0.0 if same else 1.0)
            D[a, b] = tot / T_
    return D


def ref_oob(na, nb, oob_b, train):
    D = np.empty((len(na), len(nb)))
    for a in range(len(na)):
        for b in range(len(nb)):
            if train and a == b:
                D[a, b] = 0.0
                continue
            common = [t for t in range(na.shape[1]) if oob_b[b, t] and (not train or oob_b[a, t])]
            if not common:
                D[a, b] = 1.0
            else:
                D[a, b] = 1.0 - sum(1 for t in common if na[a, t] == nb[b, t]) / len(common)
    return D


def ref_rfgap(na, nb, counts, train, scaling):
    n_b, T_ = nb.shape
    P = np.zeros((len(na), n_b))
    for a in range(len(na)):
        trees = [t for t in range(T_) if (not train or counts[a, t] == 0)]
        if not trees:
            continue
        for b in range(n_b):
            tot = 0.0
            for t in trees:
                if na[a, t] == nb[b, t]:
                    mass = sum(counts[m, t] for m in range(n_b) if nb[m, t] == na[a, t])
                    tot += counts[b, t] / mass
            P[a, b] = tot / len(trees)
    if train:
        np.fill_diagonal(P, 0.0)
    if scaling == "row_max":
        for a in range(len(na)):
            mx = P[a].max()
            P[a] = P[a] / mx if mx > 0 else 0.0
    D = 1.0 - P
    if train:
        np.fill_diagonal(D, 0.0)
    return D


def reference(f, X_rows, train, Xtr=None, ytr=None):
    na = f.forest_.apply(X_rows)
    nb = f.forest_.apply(Xtr)
    m = f.measure_
    if m.name == "breiman":
        return ref_breiman(na, nb)
    if m.name == "path":
        return ref_path(f.forest_, na, nb, m.w)
    if m.name == "rfd":
        return ref_rfd(na, nb, ref_kdn(f.forest_, Xtr, ytr, m.kdn_k), m.form)
    counts = ref_in_bag(f.forest_, len(Xtr))
    if m.name == "oob":
        return ref_oob(na, nb, counts == 0, train)
    return ref_rfgap(na, nb, counts, train, m.scaling)


# ----------------------------------------------------------------------------- reference equality
@pytest.mark.parametrize("measure", MEASURES)
def test_train_matrix_matches_pair_loop(fitted, data, measure):
    Xtr, ytr, _ = data
    f = fitted[measure]
    ref = reference(f, Xtr, True, Xtr, ytr)
    assert f.train_dissimilarity_.shape == (len(Xtr), len(Xtr))
    assert f.train_dissimilarity_.dtype == np.float32
    np.testing.assert_allclose(f.train_dissimilarity_, ref, atol=ATOL, rtol=0)


@pytest.mark.parametrize("measure", MEASURES)
def test_test_matrix_matches_pair_loop(fitted, data, measure):
    Xtr, ytr, Xte = data
    f = fitted[measure]
    D = f.transform(Xte)
    assert D.shape == (len(Xte), len(Xtr))
    np.testing.assert_allclose(D, reference(f, Xte, False, Xtr, ytr), atol=ATOL, rtol=0)


@pytest.mark.parametrize(
    "params",
    [
        dict(measure=PathLength(w=0.3)),
        dict(measure=RFD(form="weighted_dissimilarity", kdn_k=3)),
        dict(measure=RFGAP(scaling="row_max")),
    ],
)
def test_variants_match_pair_loop(data, params):
    Xtr, ytr, Xte = data
    f = ForestDissimilarity(n_estimators=8, random_state=1, **params).fit(Xtr, ytr)
    np.testing.assert_allclose(f.train_dissimilarity_, reference(f, Xtr, True, Xtr, ytr), atol=ATOL, rtol=0)
    np.testing.assert_allclose(f.transform(Xte), reference(f, Xte, False, Xtr, ytr), atol=ATOL, rtol=0)


def test_oob_pairs_without_common_tree_and_never_oob_rows(data):
    """With 3 trees many pairs share no OOB tree: dissimilarity 1 (documented rule)."""
    Xtr, ytr, Xte = data
    for m in ("oob", "rfgap"):
        f = ForestDissimilarity(measure=m, n_estimators=3, random_state=0).fit(Xtr, ytr)
        oob = f.oob_mask_
        common = oob.astype(int) @ oob.T.astype(int)
        off = ~np.eye(len(Xtr), dtype=bool)
        assert np.any((common == 0) & off)
        if m == "oob":
            assert np.all(f.train_dissimilarity_[(common == 0) & off] == 1.0)
        never = ~oob.any(axis=1)
        assert never.any()
        row = f.train_dissimilarity_[never]
        assert np.all(row[off[never]] == 1.0)
        np.testing.assert_allclose(f.train_dissimilarity_, reference(f, Xtr, True, Xtr, ytr), atol=ATOL)
        np.testing.assert_allclose(f.transform(Xte), reference(f, Xte, False, Xtr, ytr), atol=ATOL)


# ----------------------------------------------------------------------------- properties
@pytest.mark.parametrize("measure", MEASURES)
def test_properties(fitted, data, measure):
    Xtr, ytr, Xte = data
    f = fitted[measure]
    D = f.train_dissimilarity_
    Dt = f.transform(Xte)
    for M in (D, Dt):
        assert np.all(M >= 0.0) and np.all(M <= 1.0) and np.isfinite(M).all()
    if measure in ("breiman", "path", "oob"):
        np.testing.assert_array_equal(D, D.T)
    if measure != "rfd":
        assert np.all(np.diag(D) == 0.0)
    else:
        np.testing.assert_allclose(np.diag(D), f.measure_.kdn_.mean(axis=1), atol=ATOL)
    if measure in ("breiman", "path", "rfd"):
        np.testing.assert_allclose(f.transform(Xtr), D, atol=ATOL)
    np.testing.assert_array_equal(clone(f).fit_transform(Xtr, ytr), D)


def test_rfd_forms_differ_by_column_constant(data):
    Xtr, ytr, Xte = data
    a = ForestDissimilarity(RFD(kdn_k=4), n_estimators=10, random_state=2).fit(Xtr, ytr)
    b = ForestDissimilarity(RFD(kdn_k=4, form="weighted_dissimilarity"), n_estimators=10, random_state=2).fit(Xtr, ytr)
    shift = a.measure_.kdn_.mean(axis=1)
    np.testing.assert_allclose(a.train_dissimilarity_ - b.train_dissimilarity_, np.broadcast_to(shift, (len(Xtr),) * 2),
                               atol=ATOL)
    np.testing.assert_allclose(a.transform(Xte) - b.transform(Xte), np.broadcast_to(shift, (len(Xte), len(Xtr))),
                               atol=ATOL)


def test_rfgap_rows_sum_to_one_without_scaling(data):
    Xtr, ytr, Xte = data
    f = ForestDissimilarity("rfgap", n_estimators=10, random_state=4).fit(Xtr, ytr)  # raw: the default
    P_test = 1.0 - f.transform(Xte).astype(np.float64)
    np.testing.assert_allclose(P_test.sum(axis=1), 1.0, atol=1e-5)
    P = 1.0 - f.train_dissimilarity_.astype(np.float64)
    np.fill_diagonal(P, 0.0)
    has_oob = f.oob_mask_.any(axis=1)
    np.testing.assert_allclose(P[has_oob].sum(axis=1), 1.0, atol=1e-5)


# ----------------------------------------------------------------------------- internals
def test_in_bag_counts_and_oob_scores_match_sklearn(fitted, data):
    Xtr, ytr, _ = data
    f = fitted["breiman"]
    np.testing.assert_array_equal(f.in_bag_counts_, ref_in_bag(f.forest_, len(Xtr)))
    np.testing.assert_array_equal(f.oob_mask_, f.in_bag_counts_ == 0)
    sk = RandomForestClassifier(n_estimators=T, random_state=7, oob_score=True)
    with pytest.warns(UserWarning) if not f.oob_mask_.any(axis=1).all() else _nullcontext():
        sk.fit(Xtr, ytr)
    has = f.oob_mask_.any(axis=1)
    np.testing.assert_allclose(f.oob_decision_function_[has], sk.oob_decision_function_[has], atol=1e-12)
    pred = f.classes_[f.oob_decision_function_.argmax(axis=1)]
    assert f.oob_accuracy_ == pytest.approx(np.mean(has & (pred == ytr)))


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_leaf_indicator_is_one_hot(fitted, data):
    Xtr, _, Xte = data
    f = fitted["breiman"]
    L = f.leaf_indicator()
    assert L.shape == (len(Xtr), f.n_leaves_) and L.format == "csr"
    np.testing.assert_array_equal(np.asarray(L.sum(axis=1)).ravel(), T)
    Lt = f.leaf_indicator(Xte)
    S = (Lt @ L.T).toarray()
    np.testing.assert_allclose(1.0 - S / T, f.transform(Xte), atol=ATOL)


@pytest.mark.parametrize("same", [True, False])
@pytest.mark.parametrize("weights", ["none", "a", "b", "ab", "shared"])
def test_cooccurrence_engines_agree(same, weights):
    rng = np.random.default_rng(0)
    n_a, n_b, T_, per_tree = 23, 31, 9, 5
    n_leaves = T_ * per_tree
    offs = np.arange(T_) * per_tree
    GB = rng.integers(0, per_tree, (n_b, T_)) + offs
    GA = GB if same else rng.integers(0, per_tree, (n_a, T_)) + offs
    nA = GA.shape[0]
    WA = rng.random((nA, T_)) * (rng.random((nA, T_)) > 0.3) if "a" in weights else None
    WB = rng.random((n_b, T_)) * (rng.random((n_b, T_)) > 0.3) if "b" in weights else None
    if weights == "shared":
        WA = WB = (rng.random((n_b, T_)) > 0.4).astype(float)
        if not same:
            WA = (rng.random((nA, T_)) > 0.4).astype(float)
    GBarg = None if same else GB
    slow = np.zeros((nA, n_b))
    for a in range(nA):
        for b in range(n_b):
            for t in range(T_):
                if GA[a, t] == GB[b, t]:
                    slow[a, b] += (1 if WA is None else WA[a, t]) * (1 if WB is None else WB[b, t])
    for engine in ("pairs", "scipy"):
        for chunk in (7, 1 << 20):
            S = cooccurrence(GA, GBarg, n_leaves, WA=WA, WB=WB, engine=engine, max_pairs=chunk)
            np.testing.assert_allclose(S, slow, atol=1e-12)
    for n_jobs in (2, 3, -1):  # scipy by blocks of rows on threads (odd block edges with 3)
        S = cooccurrence(GA, GBarg, n_leaves, WA=WA, WB=WB, engine="scipy", n_jobs=n_jobs)
        np.testing.assert_allclose(S, slow, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_scipy_blocks_with_fewer_rows_than_blocks(n):
    """More threads and blocks than rows: every cell still computed exactly once."""
    rng = np.random.default_rng(n)
    G = rng.integers(0, 2, (n, 4)) + 2 * np.arange(4)
    slow = (G[:, None, :] == G[None, :, :]).sum(axis=2).astype(float)
    for n_jobs in (1, 2, 8):
        np.testing.assert_array_equal(cooccurrence(G, None, 8, engine="scipy", n_jobs=n_jobs), slow)
        np.testing.assert_array_equal(cooccurrence(G[:1], G, 8, engine="scipy", n_jobs=n_jobs), slow[:1])


def test_k_smallest_with_ties():
    D = np.array([[0.0, 0.5, 0.5, 0.2, 0.5], [0.3, 0.0, 0.3, 0.3, 0.1], [1, 1, 1, 1, 1]], dtype=float)
    idx = k_smallest_indices(D, 3, exclude_diagonal=True)
    np.testing.assert_array_equal(idx, [[3, 1, 2], [4, 0, 2], [0, 1, 3]])
    for k in range(1, 5):
        mask = k_smallest_mask(D, k, exclude_diagonal=True)
        assert (mask.sum(axis=1) == k).all()
        for r in range(3):
            order = sorted((D[r, c], c) for c in range(5) if c != r)
            assert set(np.flatnonzero(mask[r])) == {c for _, c in order[:k]}
    with pytest.raises(ValueError, match=r"k=5 must lie in \[1, 4\]"):
        k_smallest_mask(D, 5, exclude_diagonal=True)


def _tolerant_reference(D, k, tol, exclude_diagonal=False):
    """Slow reference of the documented rule, row by row: repeatedly take the lowest-index
    remaining column whose value is within tol of the smallest remaining value."""
    out = []
    for r, row in enumerate(D):
        left = [c for c in range(len(row)) if not (exclude_diagonal and c == r)]
        picked = []
        for _ in range(k):
            m = min(row[c] for c in left)
            c = min(c for c in left if row[c] <= m + tol)
            picked.append(c)
            left.remove(c)
        out.append(picked)
    return np.array(out)


def test_k_nearest_tolerant_against_a_row_loop():
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(3, 12))
        D = rng.integers(0, 4, size=(n, n)) + rng.normal(scale=1e-13, size=(n, n))  # near-ties
        k = int(rng.integers(1, n))
        for tol, diag in ((1e-9, True), (1e-9, False), (0.0, True), (0.6, False)):
            if k > n - diag:
                continue
            got = k_nearest_tolerant(D, k, tol, exclude_diagonal=diag)
            np.testing.assert_array_equal(got, _tolerant_reference(D, k, tol, diag))
        # tol = 0 is the (value, index) ranking of k_smallest_indices
        np.testing.assert_array_equal(k_nearest_tolerant(D, k, 0.0, exclude_diagonal=True),
                                      k_smallest_indices(D, k, exclude_diagonal=True))
    with pytest.raises(ValueError, match="k=4 must lie in"):
        k_nearest_tolerant(np.zeros((4, 4)), 4, 0.0, exclude_diagonal=True)


def _kdn_reference(M, y, k):
    """kDN with exact integer distances (data M on an integer grid), neighbours ranked by
    (distance, index), self excluded."""
    out = np.zeros(len(y))
    for i in range(len(y)):
        order = sorted((int(np.sum((M[i] - M[j]) ** 2)), j) for j in range(len(y)) if j != i)
        out[i] = sum(y[j] != y[i] for _, j in order[:k]) / k
    return out


@pytest.mark.parametrize("step", [0.03, 0.1, 1.0])
def test_kdn_breaks_ties_by_index_on_rounded_data(step):
    # data on a decimal grid: ||a||^2 + ||b||^2 - 2ab used to break these ties by rounding
    # (hundreds of the 8,000 kDN values of a 0.03 grid differed from the lowest-index rule)
    rng = np.random.default_rng(int(step * 100))
    for _ in range(6):
        f = int(rng.integers(1, 5))
        M = rng.integers(0, 6, size=(80, f))
        y = rng.integers(0, 2, 80)
        np.testing.assert_array_equal(_kdn(np.ascontiguousarray(M * step), y, 5), _kdn_reference(M, y, 5))
        # with an offset (a shift changes nothing; the tolerance uses the spread, not the magnitude)
        np.testing.assert_array_equal(_kdn(np.ascontiguousarray(M * step + 1000.0), y, 5), _kdn_reference(M, y, 5))
    assert distance_tie_tolerance(M * step + 1000.0) == pytest.approx(distance_tie_tolerance(M * step))


# ----------------------------------------------------------------------------- API
def test_determinism_and_seed_dependence(data):
    Xtr, ytr, Xte = data
    a = ForestDissimilarity("rfgap", n_estimators=6, random_state=11).fit(Xtr, ytr)
    b = ForestDissimilarity("rfgap", n_estimators=6, random_state=11).fit(Xtr, ytr)
    c = ForestDissimilarity("rfgap", n_estimators=6, random_state=12).fit(Xtr, ytr)
    np.testing.assert_array_equal(a.train_dissimilarity_, b.train_dissimilarity_)
    np.testing.assert_array_equal(a.transform(Xte), b.transform(Xte))
    assert not np.array_equal(a.train_dissimilarity_, c.train_dissimilarity_)
    r1 = ForestDissimilarity(n_estimators=6, random_state=np.random.RandomState(5)).fit(Xtr, ytr)
    r2 = ForestDissimilarity(n_estimators=6, random_state=np.random.RandomState(5)).fit(Xtr, ytr)
    np.testing.assert_array_equal(r1.train_dissimilarity_, r2.train_dissimilarity_)


@pytest.mark.parametrize("measure", ["breiman", "oob", "rfgap"])
def test_threads_do_not_change_the_matrices(data, measure):
    """n_jobs=2 grows the same forest and runs the leaf product on threads: same numbers."""
    Xtr, ytr, Xte = data
    one = ForestDissimilarity(measure, n_estimators=6, random_state=4, n_jobs=1).fit(Xtr, ytr)
    two = ForestDissimilarity(measure, n_estimators=6, random_state=4, n_jobs=2).fit(Xtr, ytr)
    for engine in ("scipy", "auto"):
        np.testing.assert_array_equal(one._dissimilarity(one.leaves_, True, engine=engine),
                                      two._dissimilarity(two.leaves_, True, engine=engine))
    np.testing.assert_array_equal(one.transform(Xte), two.transform(Xte))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_progress_callback_and_same_forest(data, n_jobs):
    """With and without progress, the forest is scikit-learn's own ``RandomForestClassifier.fit`` of the settings,
    tree for tree (the fast fit, :func:`mvlab.core.forest_fit.fit_forest`, against the slow reference: the same
    matrices from a forest scikit-learn grew), and the progress grows to 1 in words. Broken once: the progress run
    growing its forest from ``random_state + 1``, its matrices differed from the reference's."""
    Xtr, ytr, Xte = data
    calls = []
    f = ForestDissimilarity("path", n_estimators=25, random_state=0, n_jobs=n_jobs).fit(
        Xtr, ytr, progress=lambda frac, msg: calls.append((frac, msg))
    )
    fracs = [c[0] for c in calls]
    assert fracs[0] == 0.0 and fracs[-1] == 1.0 and fracs == sorted(fracs)
    assert sum("trees" in m for _, m in calls) == 10
    assert all(isinstance(m, str) and m for _, m in calls)
    assert f.forest_.warm_start is False
    g = ForestDissimilarity("path", n_estimators=25, random_state=0, n_jobs=n_jobs).fit(Xtr, ytr)
    sklearns = RandomForestClassifier(n_estimators=25, max_features="sqrt", random_state=0).fit(Xtr, ytr)
    reference = ForestDissimilarity("path", n_estimators=25, random_state=0)._fit(Xtr, ytr, forest=sklearns)
    for ours in (f, g):
        np.testing.assert_array_equal(ours.forest_.apply(Xte), reference.forest_.apply(Xte))
        np.testing.assert_array_equal(ours.train_dissimilarity_, reference.train_dissimilarity_)
        np.testing.assert_array_equal(ours.transform(Xte), reference.transform(Xte))
    seen = []
    f.transform(Xte, progress=lambda frac, msg: seen.append(frac))
    assert seen[-1] == 1.0


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(measure="euclid"), "measure"),
        (dict(n_estimators=0), "n_estimators"),
        (dict(n_estimators=2.5), "n_estimators"),
        (dict(measure=PathLength(w=-1.0)), "'w' parameter of PathLength must be a float in the range"),
        (dict(measure=PathLength(w=float("inf"))), "'w' parameter of PathLength"),
        (dict(measure=RFD(kdn_k=0)), "'kdn_k' parameter of RFD must be an int in the range"),
        (dict(measure=RFD(kdn_k=2.5)), "'kdn_k' parameter of RFD"),
        (dict(measure=RFD(kdn_k=40)), "kdn_k=40 needs"),
        (dict(measure=RFD(form="other")), "'form' parameter of RFD must be a str among"),
        (dict(measure=RFGAP(scaling="global")), "'scaling' parameter of RFGAP must be a str among"),
        (dict(measure={"name": "rfd"}), "measure"),
    ],
)
def test_bad_params_raise(data, params, match):
    Xtr, ytr, _ = data
    with pytest.raises(ValueError, match=match):
        ForestDissimilarity(**params).fit(Xtr, ytr)


def test_bad_input_raises(fitted, data):
    Xtr, ytr, Xte = data
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        ForestDissimilarity().fit(Xtr, ytr[:-1])
    X_nan = Xtr.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        ForestDissimilarity(n_estimators=3).fit(X_nan, ytr)
    with pytest.raises(ValueError, match="X has 3 features, but ForestDissimilarity is expecting"):
        fitted["breiman"].transform(Xte[:, :3])
    with pytest.raises(ValueError, match="a minimum of 2 is required by ForestDissimilarity"):
        ForestDissimilarity().fit(Xtr[:1], ytr[:1])


def test_auto_engine_picks_by_pairs_per_cell_and_agrees():
    from mvlab.forest._leaf_product import AUTO_PAIRS_PER_CELL, _pairs_per_cell, cooccurrence

    rng = np.random.default_rng(3)
    big = rng.integers(0, 2, size=(60, 16)) + 2 * np.arange(16)  # 2 leaves per tree: ~8 pairs per cell
    small = rng.integers(0, 50, size=(60, 16)) + 50 * np.arange(16)  # 50 leaves per tree: ~0.3
    assert _pairs_per_cell(big, big, 32, None, None) > AUTO_PAIRS_PER_CELL
    assert _pairs_per_cell(small, small, 800, None, None) < AUTO_PAIRS_PER_CELL
    W = rng.random((60, 16)) * (rng.random((60, 16)) < 0.4)
    W_before = W.copy()
    for G, nl in ((big, 32), (small, 800)):
        for WA, WB in ((None, None), (W, W), (None, W)):
            ref = cooccurrence(G, None if WA is WB else G, nl, WA, WB, engine="pairs")
            np.testing.assert_allclose(cooccurrence(G, None if WA is WB else G, nl, WA, WB, engine="auto"), ref,
                                       rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(cooccurrence(G, None if WA is WB else G, nl, WA, WB, engine="scipy"), ref,
                                       rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(W, W_before)  # the scipy path must not touch the caller's weights


def test_scipy_engine_falls_back_to_the_public_product(monkeypatch):
    """Without scipy's private kernel the public product gives the same matrices."""
    import mvlab.forest._leaf_product as prox

    rng = np.random.default_rng(8)
    G = rng.integers(0, 3, (40, 6)) + 3 * np.arange(6)
    W = rng.random((40, 6)) * (rng.random((40, 6)) > 0.3)
    fast = [cooccurrence(G, None, 18, engine="scipy", n_jobs=2),
            cooccurrence(G[:7], G, 18, WA=None, WB=W, engine="scipy")]
    monkeypatch.setattr(prox, "_csr_matmat", None)
    slow = [cooccurrence(G, None, 18, engine="scipy", n_jobs=2),
            cooccurrence(G[:7], G, 18, WA=None, WB=W, engine="scipy")]
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- a new measure is one class
class InBagProximity(SameLeafMeasure):
    """A measure defined outside mvlab: the share of trees in which both rows are in-bag and
    share a leaf, among the trees in which both are in-bag (the mirror image of OOB)."""

    name = "inbag"
    title = "In-bag proximity"

    def prepare(self, fd, X, y, progress=None):
        self.in_bag_ = (~fd.oob_mask_).astype(np.float64)

    def query_weights(self, fd, train):
        return self.in_bag_ if train else None

    def reference_weights(self, fd, train):
        return self.in_bag_

    def normalise(self, fd, S, train):
        both = self.in_bag_ @ self.in_bag_.T if train else np.broadcast_to(self.in_bag_.sum(axis=1)[None, :], S.shape)
        D = 1.0 - np.divide(S, both, out=np.zeros_like(S), where=both > 0)
        if train:
            np.fill_diagonal(D, 0.0)
        return D


def test_a_measure_defined_outside_is_one_class(data):
    Xtr, ytr, Xte = data
    f = ForestDissimilarity(InBagProximity(), n_estimators=6, random_state=3).fit(Xtr, ytr)
    nodes_tr, nodes_te = f.forest_.apply(Xtr), f.forest_.apply(Xte)
    inb = ~f.oob_mask_
    ref_train = np.zeros((len(Xtr), len(Xtr)))
    for a in range(len(Xtr)):
        for b in range(len(Xtr)):
            both = inb[a] & inb[b]
            same = both & (nodes_tr[a] == nodes_tr[b])
            ref_train[a, b] = 0.0 if a == b else 1.0 - (same.sum() / both.sum() if both.sum() else 0.0)
    np.testing.assert_allclose(f.train_dissimilarity_, ref_train, atol=ATOL)
    ref_test = np.array([[1.0 - (inb[b] & (nodes_te[a] == nodes_tr[b])).sum() / inb[b].sum()
                          for b in range(len(Xtr))] for a in range(len(Xte))])
    np.testing.assert_allclose(f.transform(Xte), ref_test, atol=ATOL)


def test_measure_specs_round_trip_and_name_the_parameters():
    for name, cls in MEASURES.items():
        spec = measure_spec(name)
        assert spec["name"] == name and measure_spec(spec) == spec
        assert set(spec) - {"name"} == set(cls().get_params())
    assert measure_spec(RFD(kdn_k=3)) == {"name": "rfd", "kdn_k": 3, "form": "weighted_proximity"}
    with pytest.raises(ValueError, match="takes the parameters"):
        measure_spec({"name": "rfd", "k": 3})
    assert RFD(kdn_k=3).describe() == "RFD (kDN-weighted, Cao); form=weighted_proximity, kdn_k=3"


def test_the_private_scipy_kernel_is_checked_at_import(monkeypatch):
    """A scipy release whose private kernel keeps its signature but changes its meaning must not
    go unnoticed: the import-time check compares a tiny product with the public one."""
    import scipy.sparse._sparsetools as tools

    import mvlab.forest._leaf_product as lp

    assert lp._checked_kernel() is tools.csr_matmat  # the installed scipy passes

    right = tools.csr_matmat

    def wrong(n_row, n_col, Ap, Aj, Ax, Bp, Bj, Bx, Cp, Cj, Cx):  # same signature, other result
        right(n_row, n_col, Ap, Aj, Ax, Bp, Bj, Bx, Cp, Cj, Cx)
        Cx *= 2.0

    monkeypatch.setattr(tools, "csr_matmat", wrong)
    with pytest.warns(lp.PrivateKernelWarning, match="another result than the public product"):
        assert lp._checked_kernel() is None
    monkeypatch.delattr(tools, "csr_matmat")
    with pytest.warns(lp.PrivateKernelWarning, match="not there"):
        assert lp._checked_kernel() is None
