"""gcForest cascade and multi-grained scanning (docs/algorithms.md §C.2, §C.7)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_digits

from mvlab.siamese.cascade import CascadeForest, forest_proba, tree_probas


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    return X[idx[:250]], y[idx[:250]], X[idx[250:400]], y[idx[250:400]]


def _small(**kw):
    params = dict(n_estimators=10, max_levels=3, random_state=0)
    params.update(kw)
    return CascadeForest(**params)


def test_deterministic_under_seed_and_threads(cancer):
    Xtr, ytr, Xte, _ = cancer
    a = _small().fit(Xtr, ytr)
    b = _small().fit(Xtr, ytr)
    c = _small(n_jobs=2).fit(Xtr, ytr)
    pa = a.predict_proba(Xte)
    np.testing.assert_array_equal(pa, b.predict_proba(Xte))
    np.testing.assert_array_equal(pa, c.predict_proba(Xte))
    assert a.level_scores_ == b.level_scores_ == c.level_scores_
    d = _small(random_state=1).fit(Xtr, ytr)
    assert not np.array_equal(pa, d.predict_proba(Xte))


def test_accuracy_and_level_attributes(cancer):
    Xtr, ytr, Xte, yte = cancer
    cf = _small(max_levels=4, patience=2).fit(Xtr, ytr)
    assert cf.score(Xte, yte) > 0.9
    assert len(cf.levels_) == cf.n_levels_ >= 1
    assert all(len(units) == 4 for units in cf.levels_)
    kinds = [u.kind for u in cf.levels_[0]]
    assert kinds == ["completely_random"] * 2 + ["random"] * 2
    et = cf.levels_[0][0].estimators[0]
    rf = cf.levels_[0][2].estimators[0]
    assert et.max_features == 1 and rf.max_features == "sqrt"
    assert len(cf.levels_[0][0].estimators) == 3  # one fold-model per fold
    # stopping rule: the kept depth is the first best level; building went on for `patience`
    s = cf.level_scores_
    best = int(np.argmax(s))
    assert cf.n_levels_ == best + 1
    assert len(s) == min(4, best + 1 + 2)
    assert all(0.0 <= v <= 1.0 for v in s)


@pytest.mark.parametrize("patience,max_levels", [(1, 5), (3, 4)])
def test_patience_rule_property(cancer, patience, max_levels):
    Xtr, ytr, _, _ = cancer
    cf = _small(patience=patience, max_levels=max_levels, n_estimators=5).fit(Xtr, ytr)
    s = cf.level_scores_
    best = int(np.argmax(s))  # first maximum: later ties are no gain
    assert cf.n_levels_ == best + 1
    if len(s) < max_levels:
        assert len(s) - 1 - best == patience


def test_level_choice_last_keeps_every_level_grown(cancer):
    """``level_choice="last"`` grows the same levels as ``"best"`` (same scores, same first levels) and keeps
    the ones after the best too, predicting with the deepest. Fails when "last" still cuts at the best level
    (tried: n_levels_ is the best's) or when it changes which levels are grown."""
    Xtr, ytr, Xte, _ = cancer
    best = _small(n_estimators=5, max_levels=6, patience=2, min_gain=0.05).fit(Xtr, ytr)
    last = _small(n_estimators=5, max_levels=6, patience=2, min_gain=0.05, level_choice="last").fit(Xtr, ytr)
    assert last.level_scores_ == best.level_scores_
    assert len(best.level_scores_) - best.n_levels_ == 2  # a gain of 0.05 is rare: growth went on 2 levels
    assert last.n_levels_ == len(last.level_scores_) == len(last.levels_) == len(last.train_class_vectors_)
    got, want = last.level_class_vectors(Xte), best.level_class_vectors(Xte)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(last.predict_proba(Xte), got[-1].mean(axis=1))
    assert not np.array_equal(last.predict_proba(Xte), best.predict_proba(Xte))


def test_min_gain_stops_early(cancer):
    Xtr, ytr, _, _ = cancer
    cf = _small(min_gain=1.0, max_levels=5).fit(Xtr, ytr)  # no gain can exceed 1.0
    assert cf.n_levels_ == 1 and len(cf.level_scores_) == 2


def test_feature_propagation(cancer):
    Xtr, ytr, _, _ = cancer
    d = Xtr.shape[1]
    for prop in ("cumulative", "previous"):
        cf = _small(propagation=prop, max_levels=3, patience=3).fit(Xtr, ytr)
        dims = [units[0].estimators[0].n_features_in_ for units in cf.levels_]
        for q, dim in enumerate(dims):
            extra = q * 4 * 2 if prop == "cumulative" else min(q, 1) * 4 * 2
            assert dim == d + extra  # Eq. 11: input plus class vectors (4 forests x 2 classes)


def test_class_vectors_are_out_of_fold(cancer):
    Xtr, ytr, Xte, _ = cancer
    cf = _small(max_levels=1).fit(Xtr, ytr)
    V = cf.train_class_vectors_[0]  # (n, 4, 2)
    assert V.shape == (len(ytr), 4, 2)
    np.testing.assert_allclose(V.sum(axis=2), 1.0)
    # completely random trees grown to purity are one-hot and right in-sample; out-of-fold not
    insample = cf.levels_[0][0].estimators[0].predict_proba(Xtr)
    assert np.mean(V[:, 0, :].max(axis=1) == 1.0) < np.mean(insample.max(axis=1) == 1.0) + 1e-12
    assert np.mean(np.argmax(V[:, 0], axis=1) == ytr) < 1.0
    # test rows: average of the fold-models' probabilities (Eq. 9 per fold-model)
    unit = cf.levels_[0][3]
    expected = np.mean([est.predict_proba(Xte) for est in unit.estimators], axis=0)
    np.testing.assert_allclose(unit.predict_proba(Xte, 2), expected, atol=1e-12)
    np.testing.assert_allclose(cf.predict_proba(Xte), cf.level_class_vectors(Xte)[-1].mean(axis=1))


def test_oob_class_vectors(cancer):
    Xtr, ytr, Xte, yte = cancer
    cf = _small(class_vectors="oob", n_estimators=20).fit(Xtr, ytr)
    assert all(len(u.estimators) == 1 for u in cf.levels_[0])
    assert cf.levels_[0][0].estimators[0].bootstrap
    assert cf.score(Xte, yte) > 0.9
    # out-of-bag vectors are not the in-sample ones
    insample = cf.levels_[0][2].estimators[0].predict_proba(Xtr)
    assert not np.allclose(cf.train_class_vectors_[0][:, 2], insample)


def _plain_codes(train_column, column, n_bins, keep_ties=False):
    """Bin codes written out plainly (§C.2, DF21 setting): the edges lie halfway between the distinct training
    values when there are at most ``n_bins`` of them, else at the midpoint percentiles ``100 k / n_bins``
    (repeated ones counted once, or every one with ``keep_ties``, as DF21's binner counts them);
    a value's code is the number of edges strictly below it."""
    distinct = sorted(set(train_column.tolist()))
    if len(distinct) <= n_bins:
        edges = [(a + b) / 2 for a, b in zip(distinct[:-1], distinct[1:])]
    else:
        edges = np.percentile(train_column, [100 * k / n_bins for k in range(1, n_bins)],
                              method="midpoint").tolist()
        edges = edges if keep_ties else sorted(set(edges))
    return np.array([sum(e < x for e in edges) for x in column.tolist()], dtype=np.float64)


def _reference_cascade(params, X, y, X_new):
    """The cascade of §C.2 written out plainly: one forest at a time, float64 level inputs
    (scikit-learn converts them), scikit-learn's own ``predict_proba``, OOB vectors averaged
    tree by tree, with ``n_bins`` every input column replaced by its plain bin codes (:func:`_plain_codes`,
    the class vectors' bins fitted on each level's training vectors). Seeds are drawn as documented: one
    per forest per level from ``random_state``, then the k-fold's seed and one per fold-model (or one for
    the OOB forest). ``compact_trees`` changes nothing here: the reference keeps scikit-learn's forests. With
    ``bootstrap_weights="distinct"`` every tree of a bootstrapped forest is grown again, by scikit-learn, with
    its own seed, on the distinct rows its bootstrap drew (``F[drawn]``, no weights), as DF21 grows its trees.

    Returns (training class vectors of the kept levels, level scores, probabilities of X_new).
    """
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.model_selection import StratifiedKFold

    big = np.iinfo(np.int32).max
    p = CascadeForest(**params).get_params()
    classes, y = np.unique(y, return_inverse=True)
    n, C = len(y), classes.size
    kinds = ["crf"] * p["n_completely_random"] + ["rf"] * p["n_random"] + ["et"] * p["n_extra_trees"]
    oob_mode = p["class_vectors"] == "oob"
    bins = p["n_bins"]

    def distinct(f, F, y):
        for i, (tree, drawn) in enumerate(zip(f.estimators_, f.estimators_samples_)):
            rows = np.unique(drawn)
            f.estimators_[i] = clone(tree).set_params(random_state=tree.random_state).fit(F[rows], y[rows])
        return f

    def fit(f, F, y):
        f.fit(F, y)
        return distinct(f, F, y) if p["bootstrap_weights"] == "distinct" and f.bootstrap else f

    def forest(kind, seed):
        if kind == "crf":
            return ExtraTreesClassifier(p["n_estimators"], max_features=1, bootstrap=oob_mode, random_state=seed)
        if kind == "et":
            return ExtraTreesClassifier(p["n_estimators"], max_features="sqrt", bootstrap=oob_mode, random_state=seed)
        return RandomForestClassifier(p["n_estimators"], max_features="sqrt", bootstrap=True, random_state=seed)

    def coded(train_block, block):
        if bins is None:
            return block
        return np.column_stack([_plain_codes(train_block[:, j], block[:, j], bins, p["bin_ties"] == "keep")
                                for j in range(block.shape[1])])

    train_vectors = []  # the training class vectors of every level: the bins of each level's vectors

    def level_input(X0, vectors):
        first = 0 if p["propagation"] == "cumulative" else max(len(vectors) - 1, 0)
        parts = [coded(X, X0)]
        for j in range(first, len(vectors)):
            parts.append(coded(train_vectors[j].reshape(len(X), -1), vectors[j].reshape(len(X0), -1)))
        return np.hstack(parts)

    rng = np.random.RandomState(p["random_state"])
    levels, vectors, scores, best, best_score = [], [], [], -1, -np.inf
    for q in range(p["max_levels"]):
        F = level_input(X, vectors)
        seeds = [rng.randint(big) for _ in kinds]
        models, vecs = [], []
        for kind, seed in zip(kinds, seeds):
            rs = np.random.RandomState(seed)
            vec = np.zeros((n, C))
            if oob_mode:
                f = fit(forest(kind, rs.randint(big)), F, y)
                total, count = np.zeros((n, C)), np.zeros(n)
                for tree, inbag in zip(f.estimators_, f.estimators_samples_):
                    out = np.ones(n, dtype=bool)
                    out[inbag] = False
                    total[out] += tree.predict_proba(F[out])
                    count[out] += 1
                vec[:] = f.predict_proba(F)  # rows never out of bag: the in-sample vector
                vec[count > 0] = total[count > 0] / count[count > 0, None]
                models.append([f])
            else:
                skf = StratifiedKFold(p["n_folds"], shuffle=True, random_state=rs.randint(big))
                fold_models = []
                for tr, te in skf.split(F, y):
                    f = fit(forest(kind, rs.randint(big)), F[tr], y[tr])
                    vec[te] = f.predict_proba(F[te])
                    fold_models.append(f)
                models.append(fold_models)
            vecs.append(vec)
        V = np.stack(vecs, axis=1)
        scores.append(float(np.mean(np.argmax(V.mean(axis=1), axis=1) == y)))
        levels.append(models)
        vectors.append(V)
        train_vectors.append(V)
        if scores[-1] > best_score + p["min_gain"] or best < 0:
            best, best_score = q, scores[-1]
        elif q - best >= p["patience"]:
            break
    kept = len(levels) if p.get("level_choice") == "last" else best + 1
    new_vectors = []
    for models in levels[:kept]:
        F = level_input(X_new, new_vectors)
        new_vectors.append(np.stack([np.mean([f.predict_proba(F) for f in fm], axis=0) for fm in models], axis=1))
    return vectors[:kept], scores, new_vectors[-1].mean(axis=1)


@pytest.mark.parametrize(
    "class_vectors,propagation,n_jobs,more",
    [("kfold", "cumulative", None, {}), ("kfold", "cumulative", 2, {}), ("kfold", "previous", 2, {}),
     ("oob", "cumulative", 2, {}),
     ("oob", "previous", None, dict(n_completely_random=0, n_extra_trees=2, n_bins=255, compact_trees=True)),
     ("oob", "cumulative", 2, dict(n_extra_trees=1, n_bins=7, compact_trees=True)),
     ("kfold", "previous", 2, dict(n_extra_trees=1, n_bins=16, compact_trees=True)),
     ("oob", "previous", None, dict(n_completely_random=0, n_extra_trees=2, n_bins=255, compact_trees=True,
                                    bootstrap_weights="distinct")),
     ("oob", "previous", None, dict(n_completely_random=0, n_extra_trees=2, n_bins=12, compact_trees=True,
                                    bootstrap_weights="distinct", bin_ties="keep")),
     ("kfold", "cumulative", 2, dict(n_extra_trees=1, bootstrap_weights="distinct")),
     ("oob", "previous", 2, dict(n_completely_random=0, n_extra_trees=2, n_bins=255, compact_trees=True,
                                 bootstrap_weights="distinct", bin_ties="keep", level_choice="last",
                                 min_gain=0.05))],
)
def test_threaded_float32_cascade_equals_the_plain_one(cancer, class_vectors, propagation, n_jobs, more):
    """The fast path (level inputs converted to float32 once, the models of a level fitted and
    evaluated on threads, out-of-bag sums kept instead of every tree's probabilities, the features and
    class vectors binned, the forests compact, new rows' older levels let go) gives the plain cascade's
    class vectors, stopping and predictions. Fails when a row's bin code counts the edges up to and
    including its value, when the class vectors are binned with the features' bins, or when compact
    thresholds are rounded to the nearest float32 on data where that matters (tried: see
    test_cascade_df21.py for the last), or when the cascade does not hand ``bootstrap_weights`` to
    ``fit_forest`` (tried: the two ``"distinct"`` cases' level scores differ), or when ``bin_ties="keep"`` does
    not reach the binners (tried: its case's scores differ), or when ``level_choice="last"`` still cuts at the best
    level (tried: its case keeps one level of three)."""
    Xtr, ytr, Xte, _ = cancer
    params = dict(n_estimators=8, max_levels=3, patience=2, class_vectors=class_vectors,
                  propagation=propagation, random_state=3, **more)
    cf = CascadeForest(n_jobs=n_jobs, **params).fit(Xtr, ytr)
    ref_vectors, ref_scores, ref_proba = _reference_cascade(params, Xtr, ytr, Xte)
    assert cf.level_scores_ == ref_scores
    assert len(cf.train_class_vectors_) == len(ref_vectors)
    for got, want in zip(cf.train_class_vectors_, ref_vectors):
        np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(cf.predict_proba(Xte), ref_proba, atol=1e-12)
    np.testing.assert_array_equal(cf.predict(Xte), np.argmax(ref_proba, axis=1))


def test_prediction_threads_do_not_change_results(cancer):
    """Above the row threshold the fold-models of a level are evaluated on threads."""
    from mvlab.siamese import cascade

    Xtr, ytr, Xte, _ = cancer
    rows = np.resize(Xte, (cascade._MIN_ROWS_FOR_THREADS + 10, Xte.shape[1]))
    cf = _small(max_levels=2, patience=2).fit(Xtr, ytr)
    one = cf.predict_proba(rows)
    cf.set_params(n_jobs=2)
    np.testing.assert_array_equal(cf.predict_proba(rows), one)
    expected = np.mean([est.predict_proba(rows) for est in cf.levels_[0][2].estimators], axis=0)
    np.testing.assert_allclose(cf.level_class_vectors(rows)[0][:, 2], expected, atol=1e-12)


def test_in_order_keeps_order_bounds_pending_work_and_raises():
    import threading

    from mvlab.core.threads import in_order

    pending, peak, lock = [0], [0], threading.Lock()

    def work(i):
        with lock:
            pending[0] += 1
            peak[0] = max(peak[0], pending[0])
        return i * i

    out = []
    for v in in_order(work, range(40), 2):
        with lock:
            pending[0] -= 1
        out.append(v)
    assert out == [i * i for i in range(40)]
    assert peak[0] <= 2 * 2 + 1  # submitted ahead of the consumer: at most 2 * n_threads (+ the one in hand)
    assert list(in_order(work, [3], 4)) == [9]

    def boom(i):
        if i == 5:
            raise RuntimeError("task 5")
        return i

    with pytest.raises(RuntimeError, match="task 5"):
        list(in_order(boom, range(10), 2))


class _FirstTreeOnly(CascadeForest):
    """Hook test: all weight on the first tree of every forest (Eq. 12 with w = e_1)."""

    def _tree_weights(self, level, forest_index, estimator, tp_out, y_out, X_in, y_in):
        w = np.zeros(len(estimator.estimators_))
        w[0] = 1.0
        return w, None


def test_weight_hook_replaces_the_average(cancer):
    Xtr, ytr, Xte, _ = cancer
    cf = _FirstTreeOnly(n_estimators=6, max_levels=1, random_state=0).fit(Xtr, ytr)
    unit = cf.levels_[0][1]
    expected = np.mean([est.estimators_[0].predict_proba(Xte.astype(np.float32)) for est in unit.estimators], axis=0)
    np.testing.assert_allclose(unit.predict_proba(Xte, 2), expected, atol=1e-12)
    plain = _small(n_estimators=6, max_levels=1).fit(Xtr, ytr)
    # same trees (same seeds), different combination
    np.testing.assert_array_equal(
        plain.levels_[0][1].estimators[0].estimators_[0].tree_.threshold,
        unit.estimators[0].estimators_[0].tree_.threshold,
    )
    assert not np.allclose(plain.predict_proba(Xte), cf.predict_proba(Xte))


def test_string_labels_multiclass_and_progress():
    X, y = load_digits(return_X_y=True)
    X, y = X[:240], y[:240]
    labels = np.array(list("abcdefghij"))[y]
    calls = []
    cf = CascadeForest(n_estimators=8, max_levels=2, random_state=0).fit(
        X, labels, progress=lambda f, m: calls.append((f, m))
    )
    assert set(cf.predict(X[:20])) <= set(labels)
    assert cf.predict_proba(X[:5]).shape == (5, 10)
    fractions = [f for f, _ in calls]
    assert fractions[-1] == 1.0 and fractions == sorted(fractions) and fractions[0] >= 0.0
    assert calls[0] == (0.0, "level 1: forest 1/4 (completely_random)")
    assert calls[-1][1] == f"kept {cf.n_levels_} level(s)"


def test_tree_probas_maps_missing_classes():
    from sklearn.ensemble import RandomForestClassifier

    X = np.random.default_rng(0).random((30, 3))
    y = np.array([0, 2] * 15)  # class 1 absent
    rf = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    tp = tree_probas(rf, X, 3)
    assert tp.shape == (4, 30, 3)
    assert np.all(tp[:, :, 1] == 0)
    np.testing.assert_allclose(tp.mean(axis=0)[:, [0, 2]], rf.predict_proba(X), atol=1e-12)


def test_forest_proba_weighted_and_thread_invariant():
    from sklearn.ensemble import ExtraTreesClassifier

    rng = np.random.default_rng(1)
    X = rng.random((2500, 4))
    y = (X[:, 0] + 0.3 * rng.random(2500) > 0.6).astype(int)
    et = ExtraTreesClassifier(n_estimators=6, max_features=1, random_state=0).fit(X[:300], y[:300])
    tp = tree_probas(et, X, 2)
    w = np.array([0.5, 0.0, 0.2, 0.0, 0.3, 0.0])
    np.testing.assert_allclose(forest_proba(et, X, 2, w), np.tensordot(w, tp, axes=(0, 0)), atol=1e-12)
    np.testing.assert_allclose(forest_proba(et, X, 2), et.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(forest_proba(et, X, 2, w, n_jobs=2), forest_proba(et, X, 2, w))


def test_validation_errors(cancer):
    Xtr, ytr, _, _ = cancer
    with pytest.raises(ValueError, match="n_folds"):
        _small().fit(Xtr[:5], np.array([0, 0, 0, 1, 1]))
    with pytest.raises(ValueError,
                       match=r"'n_folds' parameter of CascadeForest must be an int in the range \[2, inf\)\. Got 1"):
        _small(n_folds=1).fit(Xtr, ytr)
    with pytest.raises(ValueError, match="class_vectors"):
        _small(class_vectors="cv").fit(Xtr, ytr)
    with pytest.raises(ValueError, match="propagation"):
        _small(propagation="all").fit(Xtr, ytr)
    with pytest.raises(ValueError, match="at least one forest"):
        _small(n_completely_random=0, n_random=0).fit(Xtr, ytr)
    with pytest.raises(ValueError, match="single class"):
        _small().fit(Xtr[:10], np.zeros(10))
    assert clone(_small(patience=3)).get_params()["patience"] == 3
