"""Property-based tests: random shapes and values given to the public entry points either work
or raise a ValueError with a message (never another exception)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mvlab.construction.partition import OFSP
from mvlab.datasets.container import MultiViewDataset
from mvlab.datasets.reader import read_multiview_csv
from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.forest.dissimilarity import ForestDissimilarity
from mvlab.rfd.classifier import RFDClassifier, StaticCombiner
from mvlab.rfd.dvs import DVSCombiner
from mvlab.siamese.pairs import make_pairs
from mvlab.siamese.tree_weights import solve_tree_weights

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=32), st.integers(-5, 5))


def works_or_says_why(fn):
    """Run fn; a ValueError must carry a message.  Returns the result or None."""
    try:
        return fn()
    except ValueError as exc:
        assert str(exc).strip(), "a ValueError without a message"
        return None


@st.composite
def matrices(draw, max_rows=12, max_cols=6):
    n = draw(st.integers(0, max_rows))
    d = draw(st.integers(0, max_cols))
    return np.array(draw(st.lists(st.lists(numbers, min_size=d, max_size=d), min_size=n, max_size=n)),
                    dtype=float).reshape(n, d)


@FAST
@given(X=matrices(), labels=st.lists(st.sampled_from(["a", "b", "c", 1, 2]), max_size=12),
       views=st.lists(st.lists(st.integers(-2, 8), max_size=4), max_size=3))
def test_dataset_constructor(X, labels, views):
    ds = works_or_says_why(lambda: MultiViewDataset(X, labels, {f"v{i}": v for i, v in enumerate(views)} or None))
    if ds is not None:
        assert np.isfinite(ds.X).all() and len(ds.y) == ds.n_samples
        cols = np.concatenate(ds.view_indices)
        assert len(np.unique(cols)) == len(cols) and cols.max() < ds.n_features


@FAST
@given(text=st.text(alphabet=st.sampled_from(list("label,.abxy0123456789-e\n nan")), max_size=200))
def test_csv_reader_on_arbitrary_text(text):
    ds = works_or_says_why(lambda: read_multiview_csv(text.encode()))
    if ds is not None:
        assert ds.n_classes >= 2 and np.isfinite(ds.X).all()


@FAST
@given(data=st.binary(max_size=300))
def test_csv_reader_on_arbitrary_bytes(data):
    ds = works_or_says_why(lambda: read_multiview_csv(data))
    if ds is not None:  # what the reader accepts is a valid dataset
        assert ds.n_classes >= 2 and np.isfinite(ds.X).all()
        assert ds.X.shape == (len(ds.y), sum(len(v) for v in ds.views.values()))


@FAST
@given(n=st.integers(-3, 60), q=st.integers(-1, 4), m=st.integers(-1, 5), c=st.integers(-1, 5),
       p=st.floats(-0.5, 1.5), noise=st.sampled_from(["random-class", "gaussian", "other"]))
def test_synthetic_generator(n, q, m, c, p, noise):
    ds = works_or_says_why(lambda: make_multiview_classification(n, q, m, c, p_informative=p, noise=noise,
                                                                 random_state=0))
    if ds is not None:
        assert ds.informative.any(axis=1).all()


@st.composite
def labelled(draw):
    n = draw(st.integers(1, 30))
    d = draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.floats(-1e3, 1e3, width=32), min_size=n * d, max_size=n * d))).reshape(n, d)
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    return X, y


@FAST
@given(data=labelled(), measure=st.sampled_from(["breiman", "path", "rfd", "oob", "rfgap", "cosine"]),
       trees=st.integers(0, 4))
def test_forest_dissimilarity(data, measure, trees):
    X, y = data
    fd = works_or_says_why(lambda: ForestDissimilarity(measure=measure, n_estimators=trees, random_state=0).fit(X, y))
    if fd is not None:
        D = fd.train_dissimilarity_
        assert D.shape == (len(y), len(y)) and np.all((D >= 0) & (D <= 1))


@FAST
@given(data=labelled(), combination=st.sampled_from(["average", "knn", "alignment", "oob", "dvs", "best"]),
       views=st.lists(st.lists(st.integers(-1, 5), min_size=0, max_size=3), min_size=1, max_size=3),
       k=st.integers(-1, 8))
def test_rfd_classifier(data, combination, views, k):
    X, y = data
    combiner = DVSCombiner(k=k) if combination == "dvs" else StaticCombiner(combination, k=k)
    clf = RFDClassifier(views=views, combination=combiner, n_estimators=3, random_state=0)
    fitted = works_or_says_why(lambda: clf.fit(X, y))
    if fitted is not None:
        assert fitted.predict(X).shape == y.shape


@FAST
@given(data=labelled(), k=st.integers(-1, 6), estimator=st.sampled_from(["knn", "nb", "tree?"]),
       inner=st.integers(0, 6))
def test_ofsp(data, k, estimator, inner):
    X, y = data
    ofsp = works_or_says_why(lambda: OFSP(n_views=k, estimator=estimator, inner_cv=inner, random_state=0).fit(X, y))
    if ofsp is not None:
        used = np.concatenate([*ofsp.views_, ofsp.discarded_])
        assert sorted(used.tolist()) == list(range(X.shape[1]))


@FAST
@given(P=matrices(max_rows=8, max_cols=6), lam=st.one_of(st.floats(-1, 10), st.just(float("nan"))))
def test_tree_weight_solver(P, lam):
    w = works_or_says_why(lambda: solve_tree_weights(P, lam))
    if w is not None:
        assert w.shape == (P.shape[1],) and np.all(w >= -1e-12) and abs(w.sum() - 1) < 1e-9


@FAST
@given(y=st.lists(st.integers(0, 3), max_size=20), n=st.integers(-2, 40), balanced=st.booleans())
def test_pairs(y, n, balanced):
    out = works_or_says_why(lambda: make_pairs(np.array(y), n, balanced=balanced, random_state=0))
    if out is not None:
        pairs, labels = out
        assert pairs.shape == (n, 2) and np.array_equal(labels, (np.array(y)[pairs[:, 0]] != np.array(y)[pairs[:, 1]]))


def test_hypothesis_would_catch_a_non_value_error():
    with pytest.raises(AssertionError):
        works_or_says_why(lambda: (_ for _ in ()).throw(ValueError("")))
