"""AppTest: the shell (navigation, sidebar) and the Data page."""

import numpy as np
import pytest

from mvlab.datasets.bundled import dataset_info, list_datasets, load_dataset


def metrics(at):
    return [int(m.value) for m in at.metric]


def charts(at):
    return at.get("plotly_chart")


def test_home_page_explains_and_links_the_papers(app):
    text = " ".join(m.value for m in app.markdown)
    for needle in ("2007.08377", "10.1007/s10115-015-0875-y", "1704.08715", "**Data**", "**Dissimilarity**"):
        assert needle in text
    assert "Dataset in use" in app.info[0].value


@pytest.mark.parametrize("name", list_datasets())
def test_data_page_shows_every_bundled_dataset(app, name):
    app.switch_page("pages/data.py").run()
    app.selectbox(key="bundled_name").set_value(name).run()
    info = dataset_info(name)
    n = min(info.n_samples, 600)  # the sidebar's default stratified sample
    assert not app.exception, app.exception
    assert not app.error
    assert metrics(app) == [n, info.n_features, info.n_views, info.n_classes]
    table = app.dataframe[0].value
    assert table["view"].tolist() == list(load_dataset(name).views)
    assert len(charts(app)) == 2  # class balance + per-view PCA (no ground truth for real data)
    assert app.get("download_button")


def test_sample_size_and_seed_follow_the_user_across_pages(app):
    app.switch_page("pages/data.py").run()
    app.selectbox(key="bundled_name").set_value("breast-cancer").run()
    app.number_input(key="bundled_n_breast-cancer").set_value(300).run()
    app.number_input(key="seed").set_value(7).run()
    app.switch_page("pages/home.py").run()
    app.switch_page("pages/data.py").run()
    assert metrics(app)[0] == 300
    assert app.number_input(key="seed").value == 7
    assert app.selectbox(key="bundled_name").value == "breast-cancer"


def test_synthetic_data_shows_its_ground_truth(app):
    app.switch_page("pages/data.py").run()
    app.radio(key="dataset_source").set_value("Synthetic").run()
    app.number_input(key="syn_views").set_value(4).run()
    assert not app.exception, app.exception
    assert metrics(app) == [300, 40, 4, 3]
    assert len(charts(app)) == 3  # class balance, ground truth, projections


def test_broken_upload_shows_an_error_and_keeps_the_previous_dataset(app):
    app.switch_page("pages/data.py").run()
    app.selectbox(key="bundled_name").set_value("nutrimouse").run()
    before = metrics(app)
    app.radio(key="dataset_source").set_value("Upload CSV").run()
    app.file_uploader[0].set_value(("broken.csv", b"label,a.x,a.y\ncat,1,2\ndog,3,oops\ncat,1,1\ndog,2,2\n",
                                    "text/csv")).run()
    assert not app.exception, app.exception
    assert len(app.error) == 1
    assert "non-numeric value 'oops' at line 3, column 'a.y'" in app.error[0].value
    assert metrics(app) == before  # still nutrimouse, still usable
    assert len(charts(app)) == 2


def test_good_upload_becomes_the_dataset_in_use(app):
    ds = load_dataset("breast-cancer").subset(np.arange(0, 569, 5))
    app.switch_page("pages/data.py").run()
    app.radio(key="dataset_source").set_value("Upload CSV").run()
    app.file_uploader[0].set_value(("tumours.csv", ds.to_csv().encode(), "text/csv")).run()
    assert not app.exception, app.exception
    assert not app.error
    assert metrics(app) == [ds.n_samples, 30, 3, 2]
