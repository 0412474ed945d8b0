"""The compiled traversal of compact forests (mvlab.siamese._traverse) against its reference: each tree rebuilt as a
scikit-learn Tree and its apply (``reference_tree_predict``), bit for bit, on every kind of leaf a compact
forest keeps, both layouts of the left children, byte and float32 thresholds, and hostile rows (NaN, infinities,
values beyond the bins, the wrong number of columns)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

from mvlab.siamese import _traverse
from mvlab.siamese._traverse import ForestArrays, accumulate_leaves, accumulate_leaves_rebuilt, rebuilt_tree
from mvlab.siamese.class_vectors import forest_proba
from mvlab.siamese.compact import CompactForest


def _rebuilt_tree(forest, i):
    """Tree ``i`` of a compact forest rebuilt as a scikit-learn ``Tree``, and its left children (n_nodes,)."""
    return rebuilt_tree(i, forest.n_features_in_, forest.n_classes_, forest.arrays())


def reference_tree_predict(forest, i, X32):
    """Class distributions of tree ``i`` of a compact forest for the rows of ``X32``, the slow way: the tree's nodes
    rebuilt as a scikit-learn ``Tree`` (children, features, thresholds: what its compiled ``apply`` reads), its
    ``apply``, then each leaf's distribution (its class's unit vector, its float64 values, or its counts over their
    sum, as scikit-learn divides them): :func:`mvlab.siamese._traverse.accumulate_leaves_rebuilt`."""
    acc = np.zeros((np.shape(X32)[0], forest.n_classes_))
    return accumulate_leaves_rebuilt(X32, [i], [1.0], forest.arrays(), acc)


def _binned(n=400, d=6, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 256, size=(n, d)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] + 80 * rng.rand(n) > 290).astype(int) + (X[:, 2] > 190)
    return X, y


def _forests():
    """(name, compact forest, rows to predict): one per kind of leaf (one class, counts, float64 values), per
    layout of the left children (implicit, stored) and per kind of threshold (bytes, float32)."""
    Xb, yb = _binned()
    Xi, yi = load_iris(return_X_y=True)
    weights = np.random.RandomState(1).rand(len(yi)) + 0.05
    made = {
        "one-class leaves, byte thresholds": (CompactForest(RandomForestClassifier(
            12, random_state=0).fit(Xb[:300], yb[:300]), integer_inputs=True), Xb[300:]),
        "counts, float32 thresholds": (CompactForest(RandomForestClassifier(
            12, max_depth=4, random_state=0).fit(Xi, yi)), Xi),
        "float64 values (fractional weights)": (CompactForest(ExtraTreesClassifier(
            12, min_samples_leaf=3, random_state=0).fit(Xi, yi, sample_weight=weights)), Xi),
        "stored left children (best first)": (CompactForest(RandomForestClassifier(
            12, max_leaf_nodes=9, random_state=0).fit(Xb[:300], yb[:300]), integer_inputs=True), Xb[300:]),
    }
    return made


FORESTS = _forests()


def test_the_forests_cover_every_kind_of_leaf_and_layout():
    f = {name: forest for name, (forest, _) in FORESTS.items()}
    assert f["one-class leaves, byte thresholds"].leaf_classes_ is not None
    assert f["one-class leaves, byte thresholds"].threshold_.dtype == np.uint8
    assert f["counts, float32 thresholds"].leaf_counts_ is not None
    assert f["counts, float32 thresholds"].threshold_.dtype == np.float32
    assert f["float64 values (fractional weights)"].leaf_values_ is not None
    assert f["stored left children (best first)"].children_left_ is not None
    assert all(forest.children_left_ is None for name, (forest, _) in FORESTS.items() if "stored" not in name)


@pytest.mark.parametrize("name", list(FORESTS))
def test_every_tree_finds_the_reference_leaves_bit_for_bit(name):
    """Each tree's distributions equal the rebuilt scikit-learn tree's, on the rows and on hostile ones: NaN and
    infinities (right, as scikit-learn sends a missing value of a tree fitted without any), values between and
    beyond the bins. Fails when the comparison is strict (tried: ``<`` for ``<=``: every forest), when a leaf is not
    its own child (tried: a leaf's left child 0: every forest) or when stored left children are read as implicit
    (tried: ``implicit`` always true: the best-first forest)."""
    forest, X = FORESTS[name]
    rng = np.random.RandomState(2)
    odd = X[:40].copy()
    odd[rng.rand(*odd.shape) < 0.2] = np.nan
    odd[:5, 0], odd[5:10, 1] = np.inf, -np.inf
    odd[10:20] += 0.5
    odd[20:25] = 1e6
    for rows in (X, odd, X[:0]):
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        for i in range(forest.n_estimators):
            got, ref = forest._tree_predict(i, rows), reference_tree_predict(forest, i, rows)
            assert got.dtype == ref.dtype and got.shape == ref.shape
            assert np.array_equal(got, ref), (name, i)


@pytest.mark.parametrize("name", list(FORESTS))
def test_weighted_sums_are_the_reference_sums(name):
    """``accumulate_proba`` over a subset of trees, weighted, equals ``acc += w * p`` tree by tree in that order, and
    ``predict_proba`` equals the scikit-learn forest's mean. Fails when the order or the product differs (tried:
    the weight applied after the sum: not equal bit for bit)."""
    forest, X = FORESTS[name]
    X = np.ascontiguousarray(X, dtype=np.float32)
    trees = np.array([5, 0, 7, 3, 11])
    w = np.array([0.3, 1 / 7, 2.5, 1e-3, 0.125])
    ref = np.zeros((len(X), forest.n_classes_))
    for t, wt in zip(trees, w):
        ref += wt * reference_tree_predict(forest, t, X)
    got = forest.accumulate_proba(X, trees, w, np.zeros_like(ref))
    assert np.array_equal(got, ref)
    mean = sum(reference_tree_predict(forest, t, X) for t in range(forest.n_estimators)) / forest.n_estimators
    assert np.array_equal(forest.predict_proba(X), mean)
    cols = np.asarray(forest.classes_)
    assert np.array_equal(forest_proba(forest, X, int(cols.max()) + 1)[:, cols],
                          sum((1 / forest.n_estimators) * reference_tree_predict(forest, t, X)
                              for t in range(forest.n_estimators)))


@pytest.mark.parametrize("name", list(FORESTS))
def test_the_staged_descent_finds_the_leaves_stepping_every_row_the_whole_depth_does(name):
    """The kernel steps every row ``max_depth // 2`` times, then only the rows not yet on a leaf; stepping every row
    the whole depth (``staged=False``, as before 0.7.8) gives the same sums bit for bit. The rows here
    reach leaves both before and after half a tree's depth, so both stages are exercised (the depths are read from
    the rebuilt scikit-learn tree's ``decision_path``). Fails when a row leaves the late stage before its leaf (tried:
    a step skipped between two compactions: three forests differ, here and against the reference); NaN sent left in
    the late stage only fails the reference test above (tried: four forests)."""
    forest, X = FORESTS[name]
    rows = np.ascontiguousarray(X, dtype=np.float32)
    early = late = 0
    for i in range(forest.n_estimators):
        reached = np.diff(_rebuilt_tree(forest, i)[0].decision_path(rows).indptr) - 1  # nodes on the path - 1
        early += np.sum(reached < forest.max_depths_[i] // 2)
        late += np.sum(reached > forest.max_depths_[i] // 2)
    assert early > 0 and late > 0
    trees, w = np.arange(forest.n_estimators), np.linspace(0.5, 1.5, forest.n_estimators)
    staged = forest.accumulate_proba(rows, trees, w, np.zeros((len(rows), forest.n_classes_)), byte_rows=False)
    whole = np.zeros_like(staged)
    accumulate_leaves(rows, trees, w, forest.arrays(), whole, staged=False)
    assert np.array_equal(staged, whole)


def test_byte_rows_only_when_every_value_is_a_byte():
    """Rows are read as bytes only when they are all whole numbers 0..255; other rows of a byte-threshold forest are
    compared as float32, as the reference does. Fails when rows are made bytes unchecked (tried: the check removed:
    2.5 read as 2 goes left where the reference goes right)."""
    forest, X = FORESTS["one-class leaves, byte thresholds"]
    internal = forest.children_right_ != -1
    rng = np.random.RandomState(3)
    at_cuts = np.column_stack([rng.choice(forest.threshold_[internal & (forest.feature_ == j)].astype(np.float32), 200)
                               for j in range(X.shape[1])])  # whole numbers on the cuts, where truncating tells
    for rows in (X, at_cuts, at_cuts + 0.5, X + 0.5, X - 256, X * 2):
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        ref = sum(reference_tree_predict(forest, t, rows) for t in range(forest.n_estimators))
        got = forest.accumulate_proba(rows, np.arange(forest.n_estimators), np.ones(forest.n_estimators),
                                      np.zeros_like(ref))
        assert np.array_equal(got, ref)


def test_hostile_shapes_and_indices_are_refused_with_a_message():
    """The compiled loop reads no memory it was not given: the wrong number of columns, tree indices out of range
    and a mis-shaped accumulator are refused before it runs, with messages in the forest's own terms."""
    forest, X = FORESTS["counts, float32 thresholds"]
    acc = np.zeros((len(X), forest.n_classes_))
    with pytest.raises(ValueError, match="fitted on 4 features"):
        forest.accumulate_proba(X[:, :3], [0], [1.0], acc)
    with pytest.raises(ValueError, match="fitted on 4 features"):
        forest._tree_predict(0, X[0])
    with pytest.raises(ValueError, match="tree indices must lie in 0..11"):
        forest.accumulate_proba(X, [12], [1.0], acc)
    with pytest.raises(ValueError, match="tree indices"):
        forest.accumulate_proba(X, [-1], [1.0], acc)
    with pytest.raises(ValueError, match="acc must be"):
        forest.accumulate_proba(X, [0], [1.0], acc[:-1])
    with pytest.raises(ValueError, match="weights"):
        forest.accumulate_proba(X, [0, 1], [1.0], acc)


def test_the_compiled_route_is_built_and_taken():
    """The C extension (mvlab/_compiled/traverse.c) was built by ``pip install`` and is what compact forests use;
    without a C compiler and the Python headers mvlab still installs and takes the rebuilt route, 4-6 times slower.
    Fails when the extension is missing (tried: the .so moved away)."""
    assert _traverse.COMPILED, ("mvlab's C extension mvlab._compiled.traverse was not built: install gcc and the "
                                "Python headers (python3-dev), then pip install --no-deps -e . again")
    assert _traverse._compiled.__module__ == "mvlab._compiled.traverse"


@pytest.mark.parametrize("name", list(FORESTS))
def test_without_the_extension_the_rebuilt_route_gives_the_same_sums(monkeypatch, name):
    """An install without a compiler predicts the same numbers: accumulate_proba through the rebuilt route equals the
    compiled one bit for bit."""
    forest, X = FORESTS[name]
    rows = np.ascontiguousarray(X, dtype=np.float32)
    trees, w = np.array([3, 1, 4, 1, 5]), np.array([0.5, 0.25, 1 / 3, 2.0, 1e-3])
    compiled = forest.accumulate_proba(rows, trees, w, np.zeros((len(rows), forest.n_classes_)))
    monkeypatch.setattr(_traverse, "_compiled", None)
    rebuilt = forest.accumulate_proba(rows, trees, w, np.zeros_like(compiled))
    assert np.array_equal(compiled, rebuilt)


def _damaged(name, change):
    """The kernel's arguments for a forest of FORESTS with one array changed by ``change(arrays)`` (copies)."""
    forest, X = FORESTS[name]
    arrays = {k: (None if a is None else np.array(a)) for k, a in forest.arrays()._asdict().items()}
    change(arrays)
    rows = np.ascontiguousarray(X, dtype=np.float32)
    return rows, arrays, np.zeros((len(rows), forest.n_classes_))


def _misaligned(a):
    """A copy of ``a`` whose buffer starts one byte past an aligned address (numpy makes such arrays)."""
    wide = a.astype(np.int32)
    raw = np.zeros(wide.nbytes + 1, dtype=np.uint8)
    out = np.frombuffer(raw.data, dtype=np.int32, count=wide.size, offset=1)
    out[:] = wide
    assert not out.flags.aligned
    return out


def _first_internal(a):
    return int(np.flatnonzero(a["right"] != -1)[0])


DAMAGE = {  # what is broken -> (forest, the change, the message)
    "a feature beyond the columns": ("counts, float32 thresholds",
                                     lambda a: a["feature"].__setitem__(_first_internal(a), 4), "feature index"),
    "a child pointing back to the root": ("counts, float32 thresholds",
                                          lambda a: a["right"].__setitem__(_first_internal(a), 0), "child index"),
    "a child beyond its tree": ("stored left children (best first)",
                                lambda a: a["left"].__setitem__(0, a["node_offsets"][1]), "child index"),
    "a depth too small": ("counts, float32 thresholds", lambda a: a["max_depths"].__setitem__(0, 1),
                          "real depth"),
    "a depth larger than the tree's (a long loop)": ("stored left children (best first)",
                                                     lambda a: a["max_depths"].__setitem__(0, a["node_offsets"][1] - 1),
                                                     "real depth"),
    "float node offsets": ("counts, float32 thresholds",
                           lambda a: a.__setitem__("node_offsets", a["node_offsets"].astype(np.float64)), "integer"),
    "boolean features": ("counts, float32 thresholds",
                         lambda a: a.__setitem__("feature", a["feature"].astype(bool)), "integer"),
    "misaligned right children": ("counts, float32 thresholds",
                                  lambda a: a.__setitem__("right", _misaligned(a["right"])), "aligned"),
    "a leaf too few": ("counts, float32 thresholds", lambda a: a["leaf_offsets"].__setitem__(1, a["leaf_offsets"][1]
                                                                                              - 1), "leaves than"),
    "a leaf's class beyond the classes": ("one-class leaves, byte thresholds",
                                          lambda a: a["leaf_classes"].__setitem__(0, 200), "class lies outside"),
    "nodes beyond the arrays": ("counts, float32 thresholds",
                                lambda a: a["node_offsets"].__setitem__(-1, a["node_offsets"][-1] + 5), "outside"),
    "a depth beyond the tree's nodes": ("counts, float32 thresholds",
                                        lambda a: a["max_depths"].__setitem__(0, a["node_offsets"][1]), "outside"),
    "float64 thresholds (rounded, not floored, to float32)": (
        "counts, float32 thresholds", lambda a: a.__setitem__("threshold", a["threshold"].astype(np.float64)),
        "threshold must be float32 or uint8"),
    "counts without one per class": ("counts, float32 thresholds",
                                     lambda a: a.__setitem__("leaf_counts", a["leaf_counts"][:, :2].copy()),
                                     "one value per class"),
}


@pytest.mark.parametrize("what", list(DAMAGE))
def test_a_damaged_forest_is_refused_before_the_loop_reads_out_of_bounds(what):
    """Every index a compact forest's arrays hold is checked as the C loop unpacks a tree (a forest from a damaged
    pickle or a hostile file must not read memory it was not given): each damage here raises ValueError with what
    is wrong. Fails when a check is removed (tried: the feature check: the row read past its columns and the sums
    differed; the child check: the process crashed)."""
    name, change, message = DAMAGE[what]
    rows, arrays, acc = _damaged(name, change)
    n_trees = len(arrays["max_depths"])
    with pytest.raises(ValueError, match=message):
        accumulate_leaves(rows, np.arange(n_trees), np.ones(n_trees), ForestArrays(**arrays), acc)


def test_hostile_arguments_to_the_compiled_loop_are_refused():
    """The wrong element types and layouts reach the C loop only as ValueError: float64 or strided rows, a float32
    or read-only accumulator, an accumulator of the wrong number of rows, a tree index out of range."""
    forest, X = FORESTS["counts, float32 thresholds"]
    arrays = forest.arrays()
    rows = np.ascontiguousarray(X, dtype=np.float32)
    acc = np.zeros((len(rows), forest.n_classes_))
    read_only = acc.copy()
    read_only.flags.writeable = False
    cases = [(rows.astype(np.float64), acc, [0], "X must be"), (np.asfortranarray(rows), acc, [0], "C-contiguous"),
             (rows, acc.astype(np.float32), [0], "acc must be"), (rows, read_only, [0], "writable"),
             (rows, acc[:-1], [0], "acc must be"), (rows, acc, [12], "tree index")]
    for X_, acc_, trees, message in cases:
        with pytest.raises(ValueError, match=message):
            accumulate_leaves(X_, np.array(trees), np.ones(len(trees)), arrays, acc_)


@pytest.mark.skipif(not _traverse.COMPILED, reason="the C extension was not built")
def test_the_compiled_entry_point_takes_its_arrays_by_keyword_only():
    """The C loop's arguments are named (fifteen arrays of one kind cannot be swapped unseen): a positional call and
    a missing array are TypeErrors that name the call and the array, and ``left=None`` means depth-first trees.
    Fails when the entry point takes positions again (tried: the format without its ``$``: the positional call went
    through)."""
    forest, X = FORESTS["counts, float32 thresholds"]
    rows = np.ascontiguousarray(X, dtype=np.float32)
    arrays = forest.arrays()._asdict()
    acc = np.zeros((len(rows), forest.n_classes_))
    with pytest.raises(TypeError):
        _traverse._compiled(rows, np.array([0]), np.ones(1), *arrays.values(), acc)
    with pytest.raises(TypeError, match="leaf_totals"):
        _traverse._compiled(X=rows, trees=np.array([0]), weights=np.ones(1), acc=acc,
                            **{k: a for k, a in arrays.items() if k != "leaf_totals"})
    assert arrays["left"] is None  # the forest's trees are depth-first: no left children stored
    _traverse._compiled(X=rows, trees=np.array([0]), weights=np.ones(1), acc=acc, **arrays)
    assert np.array_equal(acc, reference_tree_predict(forest, 0, rows))


GUARD = 1 << 17
"""Doubles on each side of a fuzzed call's accumulator: a class index of any 16-bit value written through lands
there, where it is seen."""


def _guarded_acc(n_rows, n_classes, arrays=None, alias=None):
    """``(acc, backing)``: acc (n_rows, n_classes) of float64 in the middle of ``backing``, whose other values are a
    canary that no call may change. With ``alias``, ``arrays[alias]`` becomes int64 over acc's own memory (and
    beyond, into the guard after it): every sum the loop adds to acc rewrites the integers the next tree reads (an
    output that aliases an input)."""
    size = n_rows * n_classes
    backing = np.full(2 * GUARD + max(size, 1), -7.25)
    acc = backing[GUARD:GUARD + size].reshape(n_rows, n_classes)
    acc[:] = 0.0
    if alias is not None:
        values = np.asarray(arrays[alias], dtype=np.int64)
        index = backing.view(np.int64)[GUARD:GUARD + values.size]
        index[:] = values
        arrays[alias] = index
    return acc, backing


@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data())
def test_fuzz_the_compiled_loop_never_leaves_its_arrays(data):
    """Damaged arrays (any element set to any value its type holds), an accumulator that aliases an index array, or
    a second thread writing an index array while the loop runs without the GIL: every call either sums or raises
    ValueError, and writes nothing outside its accumulator (a guard of a canary value on each side is checked after
    the call; a read far outside would end the process). Fails without the copies made before the GIL goes (tried:
    the loop reading ``leaf_classes`` from the caller's array again, as before 0.8.0: the writer thread's classes
    landed in the guard)."""
    import threading

    name = data.draw(st.sampled_from(list(FORESTS)), label="forest")
    forest, X = FORESTS[name]
    rows = np.ascontiguousarray(X[:60], dtype=np.float32)
    arrays = {k: (None if a is None else np.array(a)) for k, a in forest.arrays()._asdict().items()}
    indices = [k for k in ("node_offsets", "leaf_offsets", "max_depths", "right", "left", "feature", "leaf_classes")
               if arrays[k] is not None and arrays[k].size]
    for _ in range(data.draw(st.integers(0, 3), label="damages")):
        key = data.draw(st.sampled_from(indices), label="array")
        info = np.iinfo(arrays[key].dtype)
        where = data.draw(st.integers(0, arrays[key].size - 1), label="where")
        arrays[key].flat[where] = data.draw(st.integers(int(info.min), int(info.max)), label="value")
    n_trees = len(arrays["max_depths"])
    trees = np.array(data.draw(st.lists(st.integers(-2, n_trees + 1), min_size=1, max_size=6), label="trees"))
    mode = data.draw(st.sampled_from(["damage", "acc aliases", "a thread writes"]), label="mode")
    key = data.draw(st.sampled_from(indices), label="aliased or written")
    acc, backing = _guarded_acc(len(rows), forest.n_classes_, arrays, key if mode == "acc aliases" else None)
    guard = np.concatenate([backing[:GUARD], backing[GUARD + acc.size:]]).copy()
    stop = threading.Event()

    def write():
        target, extremes, i = arrays[key], np.iinfo(arrays[key].dtype), 0
        while not stop.is_set():
            target.flat[i % target.size] = (extremes.min, extremes.max)[i % 2]
            i += 1

    writer = threading.Thread(target=write) if mode == "a thread writes" else None
    if writer is not None:
        writer.start()
    try:
        for _ in range(3 if writer is not None else 1):  # the writer gets its turns while the loop runs
            accumulate_leaves(rows, trees, np.ones(len(trees)), ForestArrays(**arrays), acc)
    except ValueError:
        pass
    finally:
        stop.set()
        if writer is not None:
            writer.join()
    after = np.concatenate([backing[:GUARD], backing[GUARD + acc.size:]])
    if mode == "acc aliases":  # the aliased integers past acc's end are the caller's own, as they were set
        assert np.array_equal(after.view(np.int64), guard.view(np.int64))
    else:
        assert np.array_equal(after, guard)


@pytest.mark.parametrize("name", list(FORESTS))
def test_a_second_thread_writing_every_index_array_during_the_loop_moves_nothing_outside_acc(name):
    """While the C loop runs without the GIL (over the forest's trees again and again, on four rows), another thread
    fills each index array in turn with its type's largest and smallest values, and back, again and again: each
    call sums or raises ValueError, and nothing outside its accumulator is written (the guards of
    :func:`_guarded_acc`). Fails without the copies made before the GIL goes (tried: the loop reading
    ``leaf_classes`` from the caller's array again, as before 0.8.0: a class of 255 landed in the guard, in 2 of 3
    runs with 4 calls an array; in 4 of 4 with 12)."""
    import threading

    forest, X = FORESTS[name]
    rows = np.ascontiguousarray(X[:4], dtype=np.float32)  # few rows: a class index past acc's columns is past acc
    arrays = {k: (None if a is None else np.array(a)) for k, a in forest.arrays()._asdict().items()}
    trees = np.resize(np.arange(len(arrays["max_depths"])), 20_000)  # many trees: a loop long enough to race
    for key in ("node_offsets", "leaf_offsets", "max_depths", "right", "left", "feature", "leaf_classes"):
        target = arrays[key]
        if target is None or not target.size:
            continue
        acc, backing = _guarded_acc(len(rows), forest.n_classes_)
        guard = np.concatenate([backing[:GUARD], backing[GUARD + acc.size:]]).copy()
        kept, extremes, stop = target.copy(), np.iinfo(target.dtype), threading.Event()

        def write(target=target, kept=kept, extremes=extremes, stop=stop):
            while not stop.is_set():
                for value in (extremes.max, extremes.min):
                    target.fill(value)
                    target[:] = kept

        writer = threading.Thread(target=write)
        writer.start()
        try:
            for _ in range(12):
                try:
                    accumulate_leaves(rows, trees, np.ones(len(trees)), ForestArrays(**arrays), acc)
                except ValueError:
                    pass
        finally:
            stop.set()
            writer.join()
        assert np.array_equal(np.concatenate([backing[:GUARD], backing[GUARD + acc.size:]]), guard), key
