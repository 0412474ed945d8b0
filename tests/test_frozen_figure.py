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
