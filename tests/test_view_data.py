"""mvlab.ui.views.data_page: the Data page's view draws what is in one dataset (AppTest of the view alone, no page, no
sidebar)."""

from streamlit.testing.v1 import AppTest

from mvlab.datasets.bundled import load_dataset
from mvlab.datasets.synthetic import make_multiview_classification


def shown_for(ds):
    from mvlab.ui.page import Shown

    return Shown(None, ds, ds.fingerprint())


def draw_view(shown):
    from mvlab.ui.views import data_page

    data_page.view(shown)


def test_the_view_draws_the_sizes_views_truth_and_projections_of_synthetic_data():
    """Fails when the view leaves out the ground truth of data that have one, draws a figure without its text
    alternative, or shows another dataset's sizes (tried: the informative matrix left out of classes_and_truth, and
    sizes() showing the features as the views)."""
    ds = make_multiview_classification(90, n_views=3, n_features=4, n_classes=3, random_state=2)
    at = AppTest.from_function(draw_view, args=(shown_for(ds),), default_timeout=60).run()
    assert not at.exception, at.exception
    assert [int(m.value) for m in at.metric] == [90, 12, 3, 3]
    assert [m.label for m in at.metric] == ["Instances", "Features", "Views", "Classes"]
    assert [c.key for c in at.get("plotly_chart")] == ["class_balance", "ground_truth", "projections"]
    assert sum(c.value.startswith("<p>Figure: ") for c in at.caption) == 3  # one text per figure
    assert at.dataframe[0].value["view"].tolist() == list(ds.views)
    assert at.caption[0].value == (ds.description or "Uploaded dataset.")
    assert [d.proto.label for d in at.get("download_button")] == ["Download this dataset (CSV, view.feature columns)"]


def test_data_without_ground_truth_show_their_class_counts_in_words():
    """Fails when data without ground truth get a truth chart or lose the class counts (tried: the else branch of
    classes_and_truth left out)."""
    ds = load_dataset("nutrimouse")
    at = AppTest.from_function(draw_view, args=(shown_for(ds),), default_timeout=60).run()
    assert not at.exception, at.exception
    assert [c.key for c in at.get("plotly_chart")] == ["class_balance", "projections"]
    balance = next(m.value for m in at.markdown if m.value.startswith("**Class balance.**"))
    assert all(f"{c}: {n}" in balance for c, n in ds.class_counts().items())
