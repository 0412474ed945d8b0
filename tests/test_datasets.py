"""mvlab.datasets: the container, bundled data, the synthetic generator and the CSV reader."""

import gzip
import io
import pickle

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits

from mvlab.core.views import Xs_to_views, views_to_Xs
from mvlab.datasets.bundled import dataset_info, list_datasets, load_dataset
from mvlab.datasets.container import MultiViewDataset
from mvlab.datasets.reader import read_multiview_csv
from mvlab.datasets.synthetic import make_multiview_classification

MFEAT_VIEWS = {"fou": 76, "fac": 216, "kar": 64, "pix": 240, "zer": 47, "mor": 6}


# ------------------------------------------------------------------------- bundled data
@pytest.mark.parametrize("name", list_datasets())
def test_every_bundled_dataset_loads_valid_and_matches_its_info(name):
    ds = load_dataset(name)
    info = dataset_info(name)
    assert (ds.n_samples, ds.n_features, ds.n_views, ds.n_classes) == (
        info.n_samples, info.n_features, info.n_views, info.n_classes)
    assert np.isfinite(ds.X).all() and ds.X.dtype == np.float64
    assert set(np.unique(ds.y)) == set(range(ds.n_classes))
    cols = np.concatenate(ds.view_indices)
    assert len(cols) == len(np.unique(cols)) == ds.n_features  # disjoint and covering
    assert [x.shape for x in ds.Xs] == [(ds.n_samples, len(v)) for v in ds.view_indices]
    assert ds.summary()["features"].tolist() == [len(v) for v in ds.view_indices]


def test_mfeat_is_the_uci_multiple_features_data():
    ds = load_dataset("mfeat")
    assert {k: len(v) for k, v in ds.views.items()} == MFEAT_VIEWS
    assert list(ds.views) == list(MFEAT_VIEWS)  # the UCI order
    assert ds.classes == tuple(str(d) for d in range(10))
    assert (ds.class_counts() == 200).all()
    # first instance, first Fourier coefficient and first morphological feature as in the UCI files
    assert ds.X[0, ds.views["fou"][0]] == pytest.approx(0.065882)
    assert ds.X[0, ds.views["mor"]].tolist()[:4] == [1, 0, 0, pytest.approx(133.15)]


def test_htad_has_an_audio_and_an_accelerometer_view():
    ds = load_dataset("htad")
    assert (ds.n_samples, ds.n_features) == (1386, 52)
    assert {k: len(v) for k, v in ds.views.items()} == {"audio": 36, "accelerometer": 16}
    assert ds.feature_names[0] == "audio.mfcc1" and ds.feature_names[-1] == "accelerometer.meanDif"
    assert dict(zip(ds.classes, ds.class_counts().tolist())) == {
        "brush_teeth": 180, "eat_chips": 282, "mop_floor": 181, "sweep": 178,
        "type_on_keyboard": 179, "wash_hands": 180, "watch_tv": 206}
    # first row of multiviewstacking's htad.csv, copied digit for digit
    assert ds.labels[0] == "watch_tv"
    assert ds.X[0, 0] == 120.0788862 and ds.X[0, ds.views["accelerometer"][0]] == -0.340983072


def test_segment_has_the_uci_shape_and_colour_views():
    ds = load_dataset("segment")
    assert (ds.n_samples, ds.n_features) == (2310, 19)
    assert {k: len(v) for k, v in ds.views.items()} == {"shape": 9, "colour": 10}
    assert ds.feature_names[0] == "shape.region-centroid-col" and ds.feature_names[9] == "colour.intensity-mean"
    assert ds.classes == ("brickface", "cement", "foliage", "grass", "path", "sky", "window")
    assert (ds.class_counts() == 330).all()
    assert (ds.X[:, ds.views["shape"][2]] == 9).all()  # region-pixel-count: every region is 3x3
    # first data line of Weka's segment-challenge.arff
    assert ds.labels[0] == "path" and ds.X[0, :3].tolist() == [38, 189, 9] and ds.X[0, -1] == -2.04915


def test_cell_segmentation_has_one_view_per_fluorescence_channel():
    ds = load_dataset("cell-segmentation")
    assert (ds.n_samples, ds.n_features) == (2019, 58)
    assert {k: len(v) for k, v in ds.views.items()} == {"ch1": 28, "ch2": 2, "ch3": 13, "ch4": 13, "position": 2}
    assert ds.classes == ("PS", "WS") and ds.class_counts().tolist() == [1300, 719]
    assert [ds.feature_names[j] for j in ds.views["ch2"]] == ["ch2.AvgInten", "ch2.TotalInten"]
    # first cell of caret's segmentationData (cell 207827637)
    assert ds.labels[0] == "PS"
    assert ds.X[0, :3].tolist() == [pytest.approx(143.247704734634), 185, pytest.approx(15.7118644067797)]


def test_breast_cancer_views_are_mean_se_worst_of_sklearn_data():
    ds, b = load_dataset("breast-cancer"), load_breast_cancer()
    assert list(ds.views) == ["mean", "se", "worst"]
    np.testing.assert_array_equal(ds.X, b.data)
    assert ds.labels.tolist() == b.target_names[b.target].tolist()


def test_digits_keep_image_shape_and_quadrant_views():
    ds, d = load_dataset("digits"), load_digits()
    assert ds.image_shape == (8, 8)
    np.testing.assert_array_equal(ds.X.reshape(-1, 8, 8), d.images)
    np.testing.assert_array_equal(ds.y, d.target)
    img = np.arange(64).reshape(8, 8)
    assert ds.views["top-left"].tolist() == sorted(img[:4, :4].ravel().tolist())
    assert ds.views["bottom-right"].tolist() == sorted(img[4:, 4:].ravel().tolist())


def test_nutrimouse_two_targets():
    g, d = load_dataset("nutrimouse"), load_dataset("nutrimouse-diet")
    np.testing.assert_array_equal(g.X, d.X)
    assert {k: len(v) for k, v in g.views.items()} == {"gene": 120, "lipid": 21}
    assert g.classes == ("ppar", "wt") and (g.class_counts() == 20).all()
    assert sorted(d.classes) == ["coc", "fish", "lin", "ref", "sun"] and (d.class_counts() == 8).all()


def test_unknown_dataset_name_is_a_clear_error():
    with pytest.raises(ValueError, match="Unknown dataset 'nope'.*mfeat"):
        load_dataset("nope")


# ----------------------------------------------------------------------- the container
def small(**kw):
    X = np.arange(24, dtype=float).reshape(6, 4)
    args = dict(X=X, y=["b", "a", "b", "a", "c", "c"], views={"v1": [0, 1], "v2": [2, 3]}, name="toy")
    args.update(kw)
    return MultiViewDataset(args.pop("X"), args.pop("y"), args.pop("views"), **args)


def test_labels_are_encoded_and_names_kept():
    ds = small()
    assert ds.classes == ("a", "b", "c")
    assert ds.y.tolist() == [1, 0, 1, 0, 2, 2]
    assert ds.labels.tolist() == ["b", "a", "b", "a", "c", "c"]


def test_dataset_is_immutable():
    ds = small()
    with pytest.raises(AttributeError, match="immutable"):
        ds.X = np.zeros((6, 4))
    with pytest.raises(ValueError, match="read-only"):
        ds.X[0, 0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        ds.views["v1"][0] = 3
    with pytest.raises(TypeError):
        ds.views["v3"] = np.array([0])


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"X": np.array([[0.0, np.nan, 1, 2]] * 6)}, "missing or infinite.*row 0, column 1"),
        ({"X": np.array([[0.0, np.inf, 1, 2]] * 6)}, "missing or infinite"),
        ({"X": np.zeros(6)}, "2-D"),
        ({"X": np.array([["a"] * 4] * 6)}, "numbers only"),
        ({"y": ["a"] * 5}, "one label per row"),
        ({"views": {"v1": [0, 1], "v2": []}}, "view 'v2' is empty"),
        ({"views": {"v1": [0, 1], "v2": [1, 2]}}, "disjoint.*column 1.*'v1' and 'v2'"),
        ({"views": {"v1": [0, 4]}}, "view 'v1'.*index 4 outside 0..3"),
        ({"views": {"v1": [0, 0]}}, "twice"),
        ({"views": {"v1": [0.5]}}, "integer"),
        ({"classes": ["a", "b"]}, "label 'c' is not one of the classes"),
        ({"feature_names": ["x"]}, "1 feature names for 4 columns"),
        ({"informative": np.ones((6, 3), bool)}, "informative must have shape"),
        ({"image_shape": (3, 3)}, "image_shape"),
    ],
)
def test_invalid_datasets_are_refused_with_a_message(kw, message):
    with pytest.raises(ValueError, match=message):
        small(**kw)


def test_conversions_roundtrip():
    ds = load_dataset("nutrimouse")
    X, views = Xs_to_views(ds.Xs)
    assert [len(v) for v in views] == [120, 21]
    np.testing.assert_array_equal(X, ds.X)  # nutrimouse views are contiguous
    for a, b in zip(views_to_Xs(X, views), ds.Xs):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"Xs\[1\] has 3 rows but Xs\[0\] has 2"):
        Xs_to_views([np.zeros((2, 2)), np.zeros((3, 2))])
    with pytest.raises(ValueError, match="empty"):
        Xs_to_views([])


def test_pickle_subset_sample_and_fingerprint():
    ds = load_dataset("digits")
    again = pickle.loads(pickle.dumps(ds))
    assert again.fingerprint() == ds.fingerprint() and again.image_shape == (8, 8)
    sample = ds.stratified_sample(500, random_state=0)
    assert sample.n_samples == 500 and sample.fingerprint() != ds.fingerprint()
    expected = 500 * ds.class_counts().to_numpy() / ds.n_samples  # proportional to the full data
    assert np.abs(sample.class_counts().to_numpy() - expected).max() < 1
    assert sample.fingerprint() == ds.stratified_sample(500, random_state=0).fingerprint()
    sub = small().subset([0, 2, 4, 5])  # class "a" disappears: classes re-encoded
    assert sub.classes == ("b", "c") and sub.y.tolist() == [0, 0, 1, 1]


def test_to_csv_roundtrips_through_the_reader():
    for name in ["nutrimouse", "breast-cancer"]:
        ds = load_dataset(name)
        back = read_multiview_csv(ds.to_csv().encode(), name=name)
        np.testing.assert_array_equal(back.X, ds.X)
        assert back.labels.tolist() == ds.labels.tolist()
        assert {k: v.tolist() for k, v in back.views.items()} == {k: v.tolist() for k, v in ds.views.items()}


# -------------------------------------------------------------------- synthetic data
def test_synthetic_generator_ground_truth_shapes_and_determinism():
    a = make_multiview_classification(200, 4, [5, 6, 7, 8], 3, p_informative=0.4, random_state=3)
    b = make_multiview_classification(200, 4, [5, 6, 7, 8], 3, p_informative=0.4, random_state=3)
    assert a.fingerprint() == b.fingerprint()
    np.testing.assert_array_equal(a.informative, b.informative)
    assert a.informative.shape == (200, 4) and a.informative.any(axis=1).all()
    assert [len(v) for v in a.view_indices] == [5, 6, 7, 8]
    assert np.abs(a.class_counts().to_numpy() - 200 / 3).max() <= 1
    assert make_multiview_classification(random_state=4).fingerprint() != a.fingerprint()


@pytest.mark.parametrize("noise", ["random-class", "gaussian"])
def test_synthetic_informative_views_carry_the_class_and_the_others_do_not(noise):
    ds = make_multiview_classification(3000, 3, 8, 4, p_informative=0.5, class_sep=3.0, noise=noise, random_state=0)
    train, test = np.arange(1500), np.arange(1500, 3000)
    for q, (view, idx) in enumerate(ds.views.items()):
        Xv = ds.X[:, idx]
        # class centroids estimated from the informative training instances of this view
        inf_train = train[ds.informative[train, q]]
        centroids = np.stack([Xv[inf_train][ds.y[inf_train] == c].mean(0) for c in range(4)])
        pred = ((Xv[test, None, :] - centroids[None]) ** 2).sum(-1).argmin(1)
        correct = pred == ds.y[test]
        informative = ds.informative[test, q]
        assert correct[informative].mean() > 0.8, view
        assert correct[~informative].mean() < 0.4, view  # chance is 0.25


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"n_samples": 5, "n_classes": 3}, "at least twice"),
        ({"n_classes": 1}, "at least 2"),
        ({"n_views": 2, "n_features": [3]}, "1 sizes for 2 views"),
        ({"p_informative": 1.5}, r"\[0, 1\]"),
        ({"noise": "pink"}, "noise must be"),
    ],
)
def test_synthetic_bad_parameters(kw, message):
    with pytest.raises(ValueError, match=message):
        make_multiview_classification(**kw)


# ------------------------------------------------------------------------ CSV reader
GOOD = "label,a.x,a.y,b.z\ncat,1,2,3\ndog,4,5,6\ncat,7,8.5,-9e2\ndog,0,0,0\n"


def test_reader_parses_the_convention():
    ds = read_multiview_csv(GOOD.encode(), name="pets")
    assert ds.name == "pets" and ds.classes == ("cat", "dog")
    assert {k: v.tolist() for k, v in ds.views.items()} == {"a": [0, 1], "b": [2]}
    assert ds.X[2].tolist() == [7, 8.5, -900]


def test_reader_accepts_paths_files_gzip_and_other_label_columns(tmp_path):
    path = tmp_path / "pets.csv"
    path.write_text(GOOD.replace("label", "species"))
    assert read_multiview_csv(path, label_column="species").n_samples == 4
    assert read_multiview_csv(io.BytesIO(GOOD.encode())).n_views == 2
    assert read_multiview_csv(io.StringIO(GOOD)).n_views == 2
    assert read_multiview_csv(gzip.compress(GOOD.encode())).n_features == 3
    # views need not be contiguous; a feature name may contain the separator
    ds = read_multiview_csv(b"label,a.x,b.y.1,a.z\n1,1,2,3\n2,4,5,6\n1,0,0,0\n2,1,1,1\n")
    assert {k: v.tolist() for k, v in ds.views.items()} == {"a": [0, 2], "b": [1]}
    assert ds.classes == ("1", "2")


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"label,a.x\n", "no data rows"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "not a text CSV"),
        (b"just some words", "header has 1 column"),
        (b"y,a.x\n1,2\n2,3\n", "no label column 'label'"),
        (b"label,a.x,a.x\n1,2,3\n2,3,4\n", "'a.x' appears twice"),
        (b"label,x\n1,2\n2,3\n", "column 'x' has no view prefix"),
        (b"label,a.\n1,2\n2,3\n", "no feature name \\(an empty view\\)"),
        (b"label,.x\n1,2\n2,3\n", "empty view name"),
        (b"label,a.x,a.y\n1,2,3\n2,3,oops\n1,1,1\n", "non-numeric value 'oops' at line 3, column 'a.y'"),
        (b"label,a.x,a.y\n1,2,3\n2,3,\n1,1,1\n", "missing value at line 3, column 'a.y'"),
        (b"label,a.x\n1,2\n2,nan\n1,1\n", "'nan' \\(not a finite number\\) at line 3"),
        (b"label,a.x\n1,2\n2,inf\n1,1\n", "'inf' \\(not a finite number\\) at line 3"),
        (b"label,a.x\n1,2\n1,3\n", "every instance has the label '1'"),
        (b"label,a.x\n1,2\n1,3\n2,4\n", "class '2' has a single instance"),
        (b"label,a.x\n1,2\n,3\n2,4\n", "label is missing at line 3"),
        (b'label,a.x\n1,"2\n2,3\n', "cannot be read as CSV"),
    ],
)
def test_reader_bad_input_says_what_and_where(content, message):
    with pytest.raises(ValueError, match=message):
        read_multiview_csv(content, name="upload.csv")


def test_reader_refuses_oversized_files(tmp_path):
    big = GOOD.encode() * 50
    with pytest.raises(ValueError, match="larger than the"):
        read_multiview_csv(big, max_bytes=1000)
    path = tmp_path / "big.csv"
    path.write_bytes(big)
    with pytest.raises(ValueError, match="limit"):
        read_multiview_csv(path, max_bytes=1000)


def test_reader_refuses_gzip_that_decompresses_beyond_the_limit():
    bomb = gzip.compress(b"label,a.x\n" + b"1,0.5\n2,0.25\n" * 1000)
    assert len(bomb) < 1000
    with pytest.raises(ValueError, match="once decompressed"):
        read_multiview_csv(bomb, max_bytes=1000)


def test_old_mac_line_ends_are_read_and_unreadable_headers_are_value_errors():
    from mvlab.datasets.reader import read_multiview_csv

    ds = read_multiview_csv(b"label,v.a,v.b\r0,1,2\r1,3,4\r0,5,6\r1,7,8\r")
    assert ds.X.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]
    with pytest.raises(ValueError, match="no label column"):
        read_multiview_csv('a\u2028b,c\n1,2\n'.encode())  # a line separator inside a header cell


def test_weaknesses_are_said_in_words():
    from mvlab.datasets.container import MultiViewDataset

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=40), np.ones(40), np.zeros(40), rng.normal(size=40)])
    y = np.repeat(np.arange(10), 4)  # 10 classes of 4
    ds = MultiViewDataset(X, y, {"a": [0, 1], "b": [2], "c": [3]})
    notes = ds.weaknesses()
    notes.append("a caller's own note")  # the list is the caller's: the dataset keeps its own
    assert ds.weaknesses() == ds._find_weaknesses() == notes[:-1]  # asked again: the same, computed once
    assert any("View 'a' has 1 constant feature(s) of 2" in n for n in notes)
    assert any("View 'b' is constant" in n for n in notes) and any("View 'b' has a single feature" in n for n in notes)
    assert any("10 of 10 classes have fewer than 5 instances" in n for n in notes)
    one = MultiViewDataset(X[:, [0, 3]], y, {"all": [0, 1]}).weaknesses()
    assert any("single view" in n and "reduces to one forest" in n for n in one)
    assert load_dataset("mfeat").weaknesses() == []
