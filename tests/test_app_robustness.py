"""AppTest: bad uploads and two sessions at once (the robustness list of the dashboard issue)."""

import gzip

import numpy as np
import pytest

GOOD_ROWS = "cat,1,2,3\ndog,4,5,6\ncat,7,8,9\ndog,1,1,1\n"


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("cells.csv", b"label,a.x,a.y,b.z\ncat,1,2,3\ndog,4,five,6\ncat,7,8,9\ndog,1,1,1\n",
         "non-numeric value 'five' at line 3, column 'a.y'"),
        ("nan.csv", b"label,a.x,a.y,b.z\ncat,1,2,3\ndog,4,NaN,6\ncat,7,8,9\ndog,1,1,1\n", "not a finite number"),
        ("one-class.csv", b"label,a.x,a.y,b.z\ncat,1,2,3\ncat,4,5,6\n", "needs at least two classes"),
        ("lonely.csv", b"label,a.x,a.y,b.z\ncat,1,2,3\ndog,4,5,6\ncat,7,8,9\n", "class 'dog' has a single instance"),
        ("empty-view.csv", b"label,a.x,a.,b.z\n" + GOOD_ROWS.encode(), "no feature name (an empty view)"),
        # the browser's file picker only offers .csv/.gz/.txt; a binary file can still be named .csv
        ("image.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200), "not a text CSV"),
        ("empty.csv", b"", "the file is empty"),
        ("huge.csv", b"label,a.x\n" + b"1,0.5\n2,0.25\n" * 4_000_000, "larger than the 25 MiB limit"),  # 52 MB
        ("bomb.csv.gz", gzip.compress(b"label,a.x\n" + b"1,0.5\n2,0.25\n" * 4_000_000, 9), "once decompressed"),
    ],
)
def test_bad_uploads_give_a_readable_error_and_keep_the_previous_dataset(app, name, content, message):
    app.switch_page("pages/data.py").run()
    app.selectbox(key="bundled_name").set_value("nutrimouse").run()
    before = [m.value for m in app.metric]
    app.radio(key="dataset_source").set_value("Upload CSV").run()
    app.file_uploader[0].set_value((name, content, "text/csv")).run()
    assert not app.exception, app.exception
    assert len(app.error) == 1 and message in app.error[0].value, [e.value for e in app.error]
    assert [m.value for m in app.metric] == before  # still nutrimouse, still usable
    assert len(app.get("plotly_chart")) == 2


def test_two_sessions_training_at_once_keep_their_own_state(app):
    from streamlit.testing.v1 import AppTest

    from conftest import APP

    other = AppTest.from_file(APP, default_timeout=60)
    other.run()
    for at, dataset, trees in ((app, "breast-cancer", 10), (other, "nutrimouse", 15)):
        at.switch_page("pages/dissimilarity.py").run()
        at.selectbox(key="bundled_name").set_value(dataset).run()
        at.number_input(key="dis_trees").set_value(trees).run()
    app.button(key="dis_train").click()
    other.button(key="dis_train").click()
    app.run()
    other.run()
    for at, dataset, views in ((app, "breast-cancer", ["w[mean]", "w[se]", "w[worst]"]),
                               (other, "nutrimouse", ["w[gene]", "w[lipid]"])):
        assert not at.exception, at.exception
        assert dataset in at.success[0].value
        table = at.dataframe[0].value
        assert [c for c in table.columns if c.startswith("w[")] == views
        assert np.allclose(table[views].sum(axis=1), 1, atol=1e-3)  # the page rounds to 4 decimals
