"""mvlab.viz.frozen: a figure whose wire form is computed once is drawn exactly as the figure itself."""

import numpy as np
import plotly.io
import plotly.tools

from mvlab.viz import dissimilarity_figures
from mvlab.viz.frozen import FrozenFigure, freeze


def figure():
    rng = np.random.default_rng(0)
    return dissimilarity_figures.dissimilarity_heatmap(rng.random((240, 240)), rng.choice(["a", "b"], size=240))


def test_frozen_figure_has_the_json_of_the_figure_itself():
    fig, frozen = figure(), freeze(figure())
    assert isinstance(frozen, FrozenFigure)
    assert plotly.io.to_json(frozen) == plotly.io.to_json(fig)
    assert frozen.to_dict() == fig.to_dict()
    # what st.plotly_chart sends (its own dict of the figure, then JSON without validation)
    sent = [plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(f, validate_figure=True), validate=False)
            for f in (fig, frozen)]
    assert sent[0] == sent[1] and '"bdata"' in sent[0]  # the heatmap travels as an encoded array


def test_frozen_figure_encodes_once_and_is_shared_not_copied():
    fig = figure()
    frozen = freeze(fig)
    assert frozen is fig and freeze(frozen) is frozen and frozen.to_dict() is frozen.to_dict()
    plotly.io.to_json(frozen)  # plotly's own pass over the dict (it drops trace uids) changes nothing
    assert frozen.to_dict() == figure().to_dict()


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
