"""mvlab.viz.frozen: a figure whose wire form is computed once is drawn exactly as the figure itself."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io
import plotly.tools

from mvlab.viz import dissimilarity_figures
from mvlab.viz.frozen import FrozenFigure, derived, freeze, without_drag


def figure():
    rng = np.random.default_rng(0)
    return dissimilarity_figures.dissimilarity_heatmap(rng.random((240, 240)), rng.choice(["a", "b"], size=240))


def test_frozen_figure_has_the_json_of_the_figure_itself():
    fig, frozen = figure(), freeze(figure())
    assert isinstance(frozen, FrozenFigure)
    assert json.loads(plotly.io.to_json(frozen)) == json.loads(plotly.io.to_json(fig))  # the same values (a copy
    assert frozen.to_dict() == fig.to_dict()                                            # may order keys otherwise)
    # what st.plotly_chart sends (its own dict of the figure, then JSON without validation)
    sent = [plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(f, validate_figure=True), validate=False)
            for f in (fig, frozen)]
    assert json.loads(sent[0]) == json.loads(sent[1]) and '"bdata"' in sent[0]  # the heatmap as an encoded array


def test_frozen_figure_encodes_once_and_leaves_the_figure_as_it_was():
    """Fails when a frozen figure encodes its arrays again for each session (tried: ``to_dict`` without its kept
    dict) or when freezing changes the figure given (tried: the old swap of its class)."""
    fig = figure()
    frozen = freeze(fig)
    assert freeze(frozen) is frozen and frozen.to_dict() is frozen.to_dict()
    assert type(fig) is go.Figure and fig.to_dict() is not fig.to_dict()
    plotly.io.to_json(frozen)  # plotly's own pass over the dict (it drops trace uids) changes nothing
    assert frozen.to_dict() == figure().to_dict()


def test_what_is_derived_from_a_frozen_figure_is_computed_once_and_kept_with_it():
    """One explicit cache (:func:`derived`) for what pages derive from a shared figure: computed once per frozen
    figure, each time for a figure built for one session; the drag-free variant is kept there and the figure keeps
    its drag mode. Fails when the cache is skipped (tried: ``derived`` returning ``compute()`` always) or when the
    variant changes the shared figure (tried: ``update_layout`` on ``figure`` itself)."""
    fig, calls = figure(), []
    frozen = freeze(fig)
    for _ in range(3):
        assert derived(frozen, "words", lambda: calls.append(1) or "a sentence") == "a sentence"
        derived(fig, "words", lambda: calls.append(2) or "a sentence")
    assert calls == [1, 2, 2, 2]
    plain = without_drag(frozen)
    assert without_drag(frozen) is plain and plain.layout.dragmode is False and frozen.layout.dragmode is None
    assert plain.to_dict()["layout"]["dragmode"] is False and "dragmode" not in frozen.to_dict()["layout"]


def test_sessions_asking_at_once_for_a_derived_value_compute_it_once():
    """A class woken to a revealed answer asks for each figure's text at the same moment: one session computes it,
    the others wait and share it (17 of 150 computed the same text before, issue #53 item 10). Fails when the
    value is computed by every thread that asks (tried: ``derived`` calling ``compute()`` without the memo: 8
    computations)."""
    import threading
    import time

    frozen, calls, start = freeze(figure()), [], threading.Barrier(8)

    def slow():
        calls.append(1)
        time.sleep(0.05)
        return "a sentence"

    def ask(out):
        start.wait()
        out.append(derived(frozen, "slow words", slow))

    out: list = []
    threads = [threading.Thread(target=ask, args=(out,)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1] and out == ["a sentence"] * 8


def strict(constant):
    raise AssertionError(f"{constant} in a figure's JSON")


def same_values(a, b) -> bool:
    """Equal JSON values, dates compared as instants (orjson writes 2026-01-01T00:00:00, json adds .000000)."""
    import pandas as pd

    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_values(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_values(x, y) for x, y in zip(a, b))
    if isinstance(a, str) and isinstance(b, str) and a != b and a[:4].isdigit() and "T" in a:
        return pd.Timestamp(a) == pd.Timestamp(b)
    return a == b


def test_plotly_sends_figures_with_orjson_and_the_same_json_as_the_standard_engine():
    """orjson (a dependency of the app) encodes every figure a page sends, once per session: the slow, plain
    ``json`` engine is the reference, on figures with NaN gaps, encoded arrays, strings and dates."""
    import json

    import pandas as pd
    import plotly.graph_objects as go

    assert plotly.io.json.config.default_engine == "auto" and plotly.io._json.get_module("orjson") is not None
    rng = np.random.default_rng(1)
    z = rng.random((50, 50))
    z[3, :] = np.nan
    figures = [
        figure(),
        go.Figure(go.Heatmap(z=z, x=[f"c{i}" for i in range(50)])),
        go.Figure(go.Scatter(x=pd.date_range("2026-01-01", periods=5), y=[1.0, np.nan, 3.0, np.inf, 5.0],
                             text=["<b>a</b>", "é", "b", "c", "d"])),
        go.Figure(go.Box(y=rng.normal(size=200), name="k = 3")),
    ]
    for fig in figures:
        for f in (fig, freeze(go.Figure(fig))):
            sent = plotly.tools.return_figure_from_figure_or_data(f, validate_figure=True)
            fast = plotly.io.to_json(sent, validate=False)  # what st.plotly_chart sends: the default engine
            plain = plotly.io.to_json(sent, validate=False, engine="json")
            assert same_values(json.loads(fast), json.loads(plain))
            json.loads(fast, parse_constant=strict)  # strict JSON, as the browser's parser needs: gaps are null
