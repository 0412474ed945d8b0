"""Tests of mvlab.construction.partition and of what it builds on: the named estimators, the inner folds and the
incremental evaluators (mvlab.construction.estimators, inner_folds, evaluators)."""

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from mvlab.construction.estimators import LowestIndexKNN, resolve_estimator
from mvlab.construction.evaluators import GaussianNBIncremental, KNNIncremental, naive_subset_score
from mvlab.construction.inner_folds import make_folds
from mvlab.construction.partition import (
    OFSP,
    AttributeBagging,
    AttributeClustering,
    Bagging,
    GeneticViews,
    RandomPartition,
)


@pytest.fixture(autouse=True)
def _one_thread():
    """The naive reference refits thousands of tiny models; OpenMP/BLAS threads only add
    start-up overhead there (scikit-learn's brute kNN: ~25 ms instead of ~1 ms on a busy
    2-core machine)."""
    with threadpool_limits(limits=1):
        yield


def continuous(seed, n=48, d=22, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = rng.normal(size=(n, d))
    X[:, : d // 5] += 0.9 * y[:, None]
    return X, y


def ties(seed, n=48, d=22, n_classes=3):
    """Small integer features: many exact distance ties and equal class statistics."""
    rng = np.random.default_rng(100 + seed)
    y = rng.integers(0, n_classes, n)
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    X[:, :3] += y[:, None]
    return X, y


def growing_variance(seed, n=48, d=18):
    """Columns whose variance grows along the order: GaussianNB's epsilon changes often."""
    X, y = continuous(seed, n, d)
    return X * (1.0 + np.arange(d))[None, :] ** 2, y


def assert_same_fit(a, b):
    np.testing.assert_array_equal(a.assignment_, b.assignment_)
    np.testing.assert_array_equal(a.view_scores_, b.view_scores_)
    for va, vb in zip(a.views_, b.views_):
        np.testing.assert_array_equal(va, vb)
    np.testing.assert_array_equal(a.discarded_, b.discarded_)


# --------------------------------------------------------------------- incremental == refit

@pytest.mark.parametrize("estimator", ["knn", "nb", "svm"])
@pytest.mark.parametrize("data", [continuous, ties])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_incremental_ofsp_equals_naive_refit(estimator, data, seed):
    X, y = data(seed)
    kw = dict(n_views=3, estimator=estimator, random_state=seed)
    inc = OFSP(evaluator="incremental", **kw).fit(X, y)
    ref = OFSP(evaluator="naive", **kw).fit(X, y)
    assert inc.evaluator_ == estimator and ref.evaluator_ == "naive"
    assert_same_fit(inc, ref)
    assert len(inc.discarded_) > 0 and all(len(v) > 0 for v in inc.views_)


@pytest.mark.parametrize(
    "estimator, inner_cv, order, k",
    [
        ("nb", 5, "shuffled", 2),
        ("knn", 0.3, "shuffled", 4),                       # hold-out
        ("nb", 0.3, "natural", 1),                         # k = 1: greedy forward selection
        (GaussianNB(var_smoothing=0.05), 4, "natural", 3),  # epsilon matters
        (GaussianNB(var_smoothing=0.05), 4, "shuffled", 2),
    ],
)
def test_incremental_equals_naive_variants(estimator, inner_cv, order, k):
    X, y = growing_variance(3)
    kw = dict(n_views=k, estimator=estimator, inner_cv=inner_cv, feature_order=order,
              random_state=7)
    assert_same_fit(OFSP(evaluator="incremental", **kw).fit(X, y),
                    OFSP(evaluator="naive", **kw).fit(X, y))


def test_knn_more_neighbours_equals_naive_without_ties():
    X, y = continuous(5)
    est = KNeighborsClassifier(n_neighbors=3, algorithm="brute")
    kw = dict(n_views=3, estimator=est, random_state=5)
    assert_same_fit(OFSP(evaluator="incremental", **kw).fit(X, y),
                    OFSP(evaluator="naive", **kw).fit(X, y))


def grid(seed, step, n=48, d=22, n_classes=3):
    """``continuous`` data rounded to a decimal grid: distance ties that floating point hides."""
    X, y = continuous(seed, n, d, n_classes)
    return np.round(X / step) * step, y


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("step", [0.1, 0.03])
def test_incremental_ofsp_equals_refit_on_rounded_data(seed, step):
    # features rounded to 0.1 used to give another partition than the refit in most seeds
    X, y = grid(seed, step)
    kw = dict(n_views=3, estimator="knn", random_state=seed)
    assert_same_fit(OFSP(evaluator="incremental", **kw).fit(X, y), OFSP(evaluator="naive", **kw).fit(X, y))


def _knn_reference(A, B, yB, k):
    """Slow reference on integer data: exact squared distances per row, neighbours ranked by
    (distance, training index), vote ties to the smallest label."""
    out = []
    for a in A:
        order = sorted((int(np.sum((a - b) ** 2)), j) for j, b in enumerate(B))
        votes = np.bincount(yB[[j for _, j in order[:k]]], minlength=yB.max() + 1)
        out.append(int(np.argmax(votes)))
    return np.array(out)


@pytest.mark.parametrize("k", [1, 3])
def test_lowest_index_knn_keeps_its_rule_on_a_decimal_grid(k):
    # integer coordinates M: exact arithmetic gives the true ties; the classifier sees M * step
    rng = np.random.default_rng(k)
    M = rng.integers(0, 4, size=(120, 3))
    y = rng.integers(0, 3, 120)
    ref = _knn_reference(M[80:], M[:80], y[:80], k)
    for step in (1.0, 0.1, 0.03, 0.7):
        X = M * step
        assert np.array_equal(LowestIndexKNN(k).fit(X[:80], y[:80]).predict(X[80:]), ref), step
    # exact ties (integers): scikit-learn's brute kNN takes the lowest index too
    sk = KNeighborsClassifier(k, algorithm="brute").fit(M[:80].astype(float), y[:80]).predict(M[80:].astype(float))
    assert np.array_equal(sk, ref)


def test_lowest_index_knn_equals_sklearn_without_near_ties():
    X, y = continuous(3, n=90)
    for k in (1, 4):
        ours = LowestIndexKNN(k).fit(X[:60], y[:60]).predict(X[60:])
        sk = KNeighborsClassifier(k, algorithm="brute").fit(X[:60], y[:60]).predict(X[60:])
        assert np.array_equal(ours, sk)
    with pytest.raises(ValueError, match="n_neighbors=61 must be an integer between 1 and the 60"):
        LowestIndexKNN(61).fit(X[:60], y[:60])
    for bad in (0, True, 1.0):
        with pytest.raises(ValueError, match="'n_neighbors' parameter of LowestIndexKNN must be an int"):
            LowestIndexKNN(bad).fit(X[:60], y[:60])
    with pytest.raises(ValueError, match="'rtol' parameter of LowestIndexKNN must be a float in the range"):
        LowestIndexKNN(rtol=-1e-9).fit(X[:60], y[:60])


@pytest.mark.parametrize("seed", [0, 1])
def test_score_subset_matches_refit_on_rounded_data(seed):
    X, y = grid(seed, 0.1)
    folds = make_folds(5, X, y, seed)
    knn = KNNIncremental(X, y, folds, 1)
    rng = np.random.default_rng(seed)
    for _ in range(8):
        cols = rng.choice(X.shape[1], size=rng.integers(1, 6), replace=False)
        assert knn.score_subset(cols) == naive_subset_score(resolve_estimator("knn"), X, y, cols, folds)


@pytest.mark.parametrize("estimator", ["knn", "nb"])
def test_ofsp_lowers_inner_folds_to_the_smallest_class_without_a_warning(estimator):
    import warnings

    X, y = continuous(2, n=40)
    y = np.where(np.arange(40) < 3, 3, y)  # a fourth class with 3 members
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scikit-learn's "least populated class" warning would fail here
        five = OFSP(n_views=2, estimator=estimator, inner_cv=5, random_state=0).fit(X, y)
        three = OFSP(n_views=2, estimator=estimator, inner_cv=3, random_state=0).fit(X, y)
        y1 = y.copy()
        y1[0] = 7  # a class with a single member: 2 folds
        single = OFSP(n_views=2, estimator=estimator, inner_cv=5, random_state=0).fit(X, y1)
    assert five.inner_cv_used_ == 3 and len(five.folds_) == 3
    assert_same_fit(five, three)  # the same folds as asking for 3
    assert single.inner_cv_used_ == 2
    assert OFSP(n_views=2, inner_cv=4, random_state=0).fit(*continuous(2, n=40)).inner_cv_used_ == 4


def test_named_knn_breaks_ties_like_sklearn():
    # Duplicated training rows at equal distance with different labels: the
    # lowest training index must win, as in KNeighborsClassifier(1, brute).
    X = np.array([[0.0], [2.0], [2.0], [0.0], [2.0], [2.0]])
    y = np.array([0, 1, 0, 0, 1, 1])
    folds = [(np.array([0, 1, 2]), np.array([3, 4, 5]))]
    ev = KNNIncremental(X, y, folds, n_neighbors=1)
    ref = naive_subset_score(resolve_estimator("knn"), X, y, [0], folds)
    assert naive_subset_score(KNeighborsClassifier(1, algorithm="brute"), X, y, [0], folds) == ref
    # rows 4, 5 are at distance 0 from rows 1 (label 1) and 2 (label 0): row 1 wins,
    # so all three held-out rows are right (row 2 winning would give 1/3)
    assert ev.score_subset([0]) == ref == 1.0
    ev.start(1)
    assert ev.candidate_scores(0)[0] == ref


@pytest.mark.parametrize("seed", [0, 1])
def test_score_subset_matches_naive(seed):
    X, y = continuous(seed)
    folds = make_folds(5, X, y, seed)
    rng = np.random.default_rng(seed)
    knn = KNNIncremental(X, y, folds, 1)
    nb = GaussianNBIncremental(X, y, folds, 1e-9)
    for _ in range(8):
        cols = np.sort(rng.choice(X.shape[1], size=rng.integers(1, 10), replace=False))
        assert knn.score_subset(cols) == naive_subset_score(resolve_estimator("knn"), X, y,
                                                            cols, folds)
        assert nb.score_subset(cols) == naive_subset_score(GaussianNB(), X, y, cols, folds)


def test_ofsp_score_is_recomputable_by_plain_refit():
    X, y = continuous(4)
    m = OFSP(n_views=2, estimator="nb", random_state=4).fit(X, y)
    for v, a in zip(m.views_, m.view_scores_):
        correct = sum(int(np.sum(GaussianNB().fit(X[tr][:, v], y[tr]).predict(X[te][:, v])
                                 == y[te])) for tr, te in m.folds_)
        assert a == correct / len(y)


# --------------------------------------------------------------------- OFSP semantics

@pytest.mark.parametrize("k", [1, 2, 5])
@pytest.mark.parametrize("method", ["ofsp", "random"])
def test_views_are_disjoint_and_cover_with_discarded(k, method):
    X, y = continuous(1)
    if method == "ofsp":
        m = OFSP(n_views=k, random_state=0).fit(X, y)
    else:
        m = RandomPartition(n_views=k, random_state=0).fit(X, y)
        assert all(len(v) in (X.shape[1] // k, X.shape[1] // k + 1) for v in m.views_)
    assert len(m.views_) == k
    allf = np.concatenate(m.views_ + [m.discarded_])
    assert np.array_equal(np.sort(allf), np.arange(X.shape[1]))
    if method == "ofsp":
        assert np.array_equal(np.sort(m.discarded_), np.flatnonzero(m.assignment_ < 0))
        assert m.percent_features_used_ == 100.0 * (X.shape[1] - len(m.discarded_)) / X.shape[1]


def test_ofsp_perfect_feature_and_constants():
    y = np.array([0, 1] * 15)
    X = np.zeros((30, 5))
    X[:, 2] = y
    X[:, 4] = np.arange(30) % 3          # irrelevant
    m = OFSP(n_views=1, estimator="knn", random_state=0).fit(X, y)
    # feature 0 (constant) starts the empty view with chance accuracy > 0;
    # feature 2 raises it to 1; nothing can improve on 1.
    assert [list(v) for v in m.views_] == [[0, 2]]
    assert list(m.discarded_) == [1, 3, 4]
    assert m.view_scores_[0] == 1.0


def test_first_features_fill_empty_views():
    X, y = continuous(2)
    m = OFSP(n_views=3, estimator="knn", random_state=0).fit(X, y)
    assert list(m.assignment_[:3]) == [0, 1, 2]


def test_ofsp_determinism_and_order():
    X, y = continuous(3)
    a = OFSP(n_views=3, feature_order="shuffled", random_state=11).fit(X, y)
    b = OFSP(n_views=3, feature_order="shuffled", random_state=11).fit(X, y)
    c = OFSP(n_views=3, feature_order="shuffled", random_state=12).fit(X, y)
    assert_same_fit(a, b)
    assert np.array_equal(a.feature_order_, b.feature_order_)
    assert not np.array_equal(a.feature_order_, c.feature_order_)
    assert sorted(a.feature_order_) == list(range(X.shape[1]))
    n = OFSP(n_views=3, random_state=11).fit(X, y)
    assert np.array_equal(n.feature_order_, np.arange(X.shape[1]))


def test_ofsp_svm_is_incremental_and_a_custom_estimator_uses_the_naive_path():
    X, y = continuous(0, n=30, d=8)
    seen = []
    m = OFSP(n_views=2, estimator="svm", random_state=0).fit(X, y, progress=lambda f, msg: seen.append((f, msg)))
    assert m.evaluator_ == "svm"
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0 and fractions == sorted(fractions)
    assert seen[0][1] == "OFSP: starting" and seen[-1][1] == "OFSP: 8/8 features placed"
    w = OFSP(n_views=2, estimator=KNeighborsClassifier(3, weights="distance"),
             random_state=0).fit(X, y)
    assert w.evaluator_ == "naive"
    p = OFSP(n_views=2, estimator="svm", random_state=0, n_jobs=2, evaluator="naive").fit(X, y)
    assert p.evaluator_ == "naive"
    assert_same_fit(m, p)


def test_linear_svm_evaluator_scores_subsets_as_a_refit_and_knows_its_limits(monkeypatch):
    from mvlab.construction import svm_evaluator
    from mvlab.construction.estimators import make_evaluator
    from mvlab.construction.svm_evaluator import LinearSVMIncremental, linear_svm_params

    X, y = ties(4)
    folds = make_folds(5, X, y, 4)
    ev = LinearSVMIncremental(X, y, folds)
    rng = np.random.default_rng(4)
    for _ in range(6):
        cols = rng.choice(X.shape[1], size=rng.integers(1, 12), replace=False)
        assert ev.score_subset(cols) == naive_subset_score(SVC(kernel="linear"), X, y, cols, folds)
    assert ev.score_subset([]) == 0.0
    ev.start(2)
    ev.candidate_scores(3)
    with pytest.raises(RuntimeError, match="must follow candidate_scores"):
        ev.add(0, 4)
    # what the direct path does not reproduce is refitted
    for est in (SVC(kernel="rbf"), SVC(kernel="linear", class_weight="balanced"), SVC(kernel="linear", C=2.0)):
        expected = None if est.kernel == "rbf" or est.class_weight else {"C": 2.0}
        got = linear_svm_params(est)
        assert (got is None) if expected is None else got["C"] == 2.0
    assert make_evaluator(SVC(kernel="rbf"), X, y, folds).kind == "naive"
    # a scikit-learn whose libsvm entry points behave otherwise: refit, and "incremental" says why not
    monkeypatch.setattr(svm_evaluator, "_checked", [False])
    assert make_evaluator(SVC(kernel="linear"), X, y, folds).kind == "naive"
    with pytest.raises(ValueError, match="no incremental evaluator"):
        make_evaluator(SVC(kernel="linear"), X, y, folds, evaluator="incremental")
    one_class = [(np.flatnonzero(y == 0), np.flatnonzero(y != 0))]
    with pytest.raises(ValueError, match="single class"):
        LinearSVMIncremental(X, y, one_class)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_views=0), r"'n_views' parameter of OFSP must be an int in the range \[1, inf\)\. Got 0"),
        (dict(n_views=50), r"n_views=50 exceeds the number of features: X has 10 feature\(s\)"),
        (dict(estimator="tree"), "'estimator' parameter of OFSP must be a str among .* Got 'tree'"),
        (dict(estimator=object()), "estimator"),
        (dict(feature_order="random"), "'feature_order' parameter of OFSP must be a str among .* Got 'random'"),
        (dict(inner_cv=1), "inner_cv"),
        (dict(inner_cv=1.5), "inner_cv"),
        (dict(inner_cv="loo"), "inner_cv"),
        (dict(estimator=SVC(kernel="rbf"), evaluator="incremental"), "no incremental evaluator"),
        (dict(evaluator="fast"), "evaluator"),
        (dict(estimator=KNeighborsClassifier(n_neighbors=40)), "n_neighbors"),
    ],
)
def test_ofsp_bad_input(kwargs, match):
    X, y = continuous(0, n=40, d=10)
    with pytest.raises(ValueError, match=match):
        OFSP(**{"n_views": 2, **kwargs}).fit(X, y)


def test_bad_data():
    X, y = continuous(0, n=20, d=5)
    with pytest.raises(ValueError, match="single class"):
        OFSP().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="Found array with dim 3"):
        OFSP().fit(X[:, :, None], y)
    X2 = X.copy()
    X2[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        OFSP().fit(X2, y)
    with pytest.raises(ValueError, match="n_views"):
        RandomPartition(n_views=9).fit(X)


def test_resolve_estimator_names():
    knn = resolve_estimator("knn")
    assert isinstance(knn, LowestIndexKNN) and knn.n_neighbors == 1
    assert isinstance(resolve_estimator("nb"), GaussianNB)
    svm = resolve_estimator("svm")
    assert isinstance(svm, SVC) and svm.kernel == "linear" and svm.C == 1.0


# --------------------------------------------------------------------- baselines

def test_random_partition_determinism():
    X, y = continuous(0)
    a = RandomPartition(n_views=4, random_state=3).fit(X, y)
    b = RandomPartition(n_views=4, random_state=3).fit(X)
    c = RandomPartition(n_views=4, random_state=4).fit(X)
    assert all(np.array_equal(u, v) for u, v in zip(a.views_, b.views_))
    assert not all(np.array_equal(u, v) for u, v in zip(a.views_, c.views_))
    assert a.discarded_.size == 0


def test_attribute_bagging():
    X, y = continuous(1, d=40)
    m = AttributeBagging(n_views=4, subset_sizes=(0.05, 0.25, 10, 0.25), n_trials=3,
                         random_state=0).fit(X, y)
    assert list(m.sizes_) == [2, 10]                   # dedupe, sorted
    assert m.subset_size_ in (2, 10)
    assert m.subset_size_ == m.sizes_[int(np.argmax(m.size_scores_))]
    assert len(m.views_) == 4
    assert all(len(np.unique(v)) == m.subset_size_ for v in m.views_)
    used = np.unique(np.concatenate(m.views_))
    assert np.array_equal(np.sort(np.concatenate([used, m.discarded_])), np.arange(40))
    m2 = AttributeBagging(n_views=4, subset_sizes=(0.05, 0.25, 10), n_trials=3,
                          random_state=0).fit(X, y)
    assert all(np.array_equal(u, v) for u, v in zip(m.views_, m2.views_))
    naive = AttributeBagging(n_views=4, subset_sizes=(0.05, 0.25, 10), n_trials=3,
                             estimator="nb", evaluator="naive", random_state=0).fit(X, y)
    fast = AttributeBagging(n_views=4, subset_sizes=(0.05, 0.25, 10), n_trials=3,
                            estimator="nb", random_state=0).fit(X, y)
    np.testing.assert_array_equal(naive.size_scores_, fast.size_scores_)
    with pytest.raises(ValueError, match="subset size"):
        AttributeBagging(subset_sizes=(0,)).fit(X, y)


def test_attribute_clustering_recovers_feature_groups():
    rng = np.random.default_rng(0)
    n = 60
    latent = rng.normal(size=(n, 3))
    groups = np.repeat(np.arange(3), [4, 5, 6])
    X = latent[:, groups] + 0.05 * rng.normal(size=(n, 15))
    X *= rng.uniform(0.5, 20, size=15)                 # standardisation removes scale
    y = (latent[:, 0] > 0).astype(int)
    m = AttributeClustering(n_views=3, random_state=0).fit(X, y)
    got = sorted(tuple(v) for v in m.views_)
    want = sorted(tuple(np.flatnonzero(groups == g)) for g in range(3))
    assert got == want
    assert m.views_[0][0] == 0 and m.discarded_.size == 0
    assert np.array_equal(m.labels_[m.views_[1]], np.ones(len(m.views_[1])))


def test_genetic_views_parameters_honoured():
    X, y = continuous(2, d=16)
    kw = dict(n_views=3, population_size=8, n_offspring=6, n_generations=4, random_state=0)
    m = GeneticViews(**kw).fit(X, y)
    assert m.population_.shape == (8, 16) and m.initial_population_.shape == (8, 16)
    assert m.history_.shape == (5, 2)
    assert np.all(np.diff(m.history_[:, 0]) >= 0)     # elitist (mu + lambda)
    assert m.n_evaluations_ <= 8 + 4 * 6
    assert len(m.views_) == 3
    assert list(m.view_scores_) == sorted(m.view_scores_, reverse=True)
    assert m.view_scores_[0] == m.history_[-1, 0]
    assert len({tuple(v) for v in m.views_}) == 3
    m2 = GeneticViews(**kw).fit(X, y)
    assert all(np.array_equal(u, v) for u, v in zip(m.views_, m2.views_))
    # no variation operators: every survivor is an initial chromosome
    frozen = GeneticViews(**{**kw, "mutation_rate": 0.0, "crossover_rate": 0.0}).fit(X, y)
    init = {c.tobytes() for c in frozen.initial_population_}
    assert all(c.tobytes() in init for c in frozen.population_)
    assert frozen.n_evaluations_ <= 8
    # always mutate every bit: children are complements of parents
    flip = GeneticViews(**{**kw, "mutation_rate": 1.0, "crossover_rate": 0.0,
                           "n_generations": 1}).fit(X, y)
    init = {c.tobytes() for c in flip.initial_population_}
    comp = {(~c).tobytes() for c in flip.initial_population_}
    assert all(c.tobytes() in init | comp for c in flip.population_)
    # init_density = 1: every initial chromosome selects every feature
    full = GeneticViews(**{**kw, "init_density": 1.0, "n_generations": 0}).fit(X, y)
    assert full.initial_population_.all()
    with pytest.raises(ValueError, match="mutation_rate"):
        GeneticViews(mutation_rate=1.5).fit(X, y)
    with pytest.raises(ValueError, match="crossover"):
        GeneticViews(crossover="two_point").fit(X, y)
    with pytest.raises(ValueError, match="population_size"):
        GeneticViews(n_views=9, population_size=5).fit(X, y)


def test_genetic_one_point_crossover_and_nb():
    X, y = continuous(3, d=12)
    m = GeneticViews(n_views=2, estimator="nb", population_size=6, n_offspring=4,
                     n_generations=2, crossover="one_point", crossover_rate=1.0,
                     random_state=1).fit(X, y)
    assert len(m.views_) == 2
    naive = GeneticViews(n_views=2, estimator="nb", population_size=6, n_offspring=4,
                         n_generations=2, crossover="one_point", crossover_rate=1.0,
                         evaluator="naive", random_state=1).fit(X, y)
    np.testing.assert_array_equal(m.history_, naive.history_)


def test_bagging_rows():
    X, y = continuous(0, n=30, d=6)
    m = Bagging(n_views=3, random_state=0).fit(X, y)
    assert len(m.row_samples_) == 3 and all(r.shape == (30,) for r in m.row_samples_)
    assert all(np.array_equal(v, np.arange(6)) for v in m.views_)
    assert m.discarded_.size == 0
    assert any(len(np.unique(r)) < 30 for r in m.row_samples_)   # with replacement
    m2 = Bagging(n_views=3, random_state=0).fit(X)
    assert all(np.array_equal(a, b) for a, b in zip(m.row_samples_, m2.row_samples_))
