"""mvlab.viz.describe: a figure's text alternative, a sentence computed from its data and the data as a table."""

import numpy as np
import plotly.graph_objects as go

from mvlab.viz import class_figures, shared_figures
from mvlab.viz.describe import describe, plain


def test_bars_say_their_highest_and_lowest_and_give_every_bar_as_a_row():
    d = describe(shared_figures.method_accuracy({"average": 0.91, "dvs": 0.95, "knn": 0.93}))
    assert d.sentence == "Test accuracy on the same split. 3 bars, highest dvs (0.95), lowest average (0.91)."
    assert d.table.to_dict("list") == {"category": ["average", "dvs", "knn"], "value": [0.91, 0.95, 0.93]}
    votes = describe(class_figures.answer_distribution(["yes", "no"], {0: 4, 1: 9}, correct=1))
    assert "13 answered" in votes.sentence and "highest (b) no (9)" in votes.sentence


def test_a_heatmap_says_its_size_and_range_and_gives_its_matrix():
    z = np.array([[0.0, 0.5], [0.25, 1.0], [0.1, 0.2]])
    d = describe(go.Figure(go.Heatmap(z=z, x=["a", "b"], y=["r1", "r2", "r3"]), layout=dict(title="D<br><sup>x</sup>")))
    assert d.sentence.startswith("D x. a 3 × 2 matrix, values from 0 to 1 (mean 0.342)")
    assert d.table.shape == (3, 3) and list(d.table["row"]) == ["r1", "r2", "r3"]


def test_points_and_boxes_per_series_and_a_figures_own_summary_first():
    fig = go.Figure([go.Scatter(x=[1, 2, 3], y=[3, 1, 2], mode="markers", name="class a"),
                     go.Box(y=[1, 2, 3, 4, 5], name="OFSP")],
                    layout=dict(meta={"summary": "DVS chose {1, 2} for 40 % of the test instances"}))
    d = describe(fig)
    assert d.sentence == ("DVS chose {1, 2} for 40 % of the test instances. class a: 3 points; OFSP: median 3 "
                          "(quartiles 2 to 4, 5 values).")
    assert list(d.table["series"].unique()) == ["class a", "OFSP"]


def test_plain_text_drops_plotlys_html():
    assert plain("<b>Round</b> 4<br><sup>2 answered</sup>") == "Round 4 2 answered"


def test_the_dvs_choices_say_which_subsets_were_chosen_for_what_share():
    from mvlab.viz import dvs_figures

    fig = dvs_figures.subset_frequencies(["{1}", "{2}", "{1, 2}", "{3}"], [0.5, 0.3, 0.15, 0.05])
    assert describe(fig).sentence.startswith("DVS chose 4 different view subsets: {1} for 50 %, {2} for 30 %, "
                                             "{1, 2} for 15 % of the test instances, and others for the rest.")


def test_the_data_disclosure_is_one_line_of_escaped_html_and_says_what_it_leaves_out():
    """Fails when a figure's labels reach the page as HTML or Markdown (tried: ``to_html(escape=False)``), when the
    disclosure spans several lines (a blank line would end Markdown's HTML block and read the rest as Markdown; tried:
    the newlines kept), or when a cut table does not say how much is left out (tried: the note dropped)."""
    import pandas as pd

    from mvlab.ui.figure_text import text_alternative
    from mvlab.viz.describe import DATA_SUMMARY, data_disclosure

    hostile = pd.DataFrame({"<b>x</b>": ["<img src=x onerror=alert(1)>", "a\n\n**b**", "c"], "v": [1 / 3, 2.0, 3.0]})
    written = data_disclosure(hostile, rows=2)
    assert "\n" not in written and written.startswith(f"<details><summary>{DATA_SUMMARY}</summary><table")
    assert "<img" not in written and "&lt;img src=x" in written and "&lt;b&gt;x&lt;/b&gt;" in written
    assert "0.3333" in written and "1 more row not written here." in written and ">c<" not in written
    assert data_disclosure(pd.DataFrame()) == ""
    fig = go.Figure(go.Bar(x=["x<y & z", "b"], y=[1, 2]), layout=dict(title="T\n\n# not a heading"))
    body = text_alternative(fig, caption="**A step's caption.**")
    assert body.startswith("**A step's caption.**\n\n<p>Figure: ") and body.count("\n") == 2
    assert "x<y" not in body and body.count("x&lt;y &amp; z") == 2  # the sentence's and the table's


def test_the_class_bars_say_in_text_what_the_figure_shows_and_give_nothing_away_before_the_reveal():
    """The students' HTML bars (one element instead of a chart and its text): every count and share written, the
    right choice marked only once revealed, labels escaped. Fails when the bars give the answer away before the
    reveal (tried: the green colour for ``correct=None`` taken as choice 0), when a label is not escaped (tried:
    ``html.escape`` dropped) or a bar's length is not its share of the largest count (tried: of the total)."""
    from mvlab.viz.class_figures import answer_bars_html
    from mvlab.viz.palette import GREEN

    before = answer_bars_html(["a<b>", "no", "maybe"], {0: 4, 1: 8})
    assert "The class's answers: 12 answered" in before and "4 (33 %)" in before and "8 (67 %)" in before
    assert "right" not in before and GREEN not in before and "<b>" not in before and "(a) a&lt;b&gt;" in before
    assert "width:50.0%" in before and "width:100.0%" in before and "width:0.0%" in before
    after = answer_bars_html(["a<b>", "no", "maybe"], {0: 4, 1: 8}, correct=1)
    assert "8 (67 %)  ✓ right" in after and after.count(GREEN) == 1 and "\n" not in after
