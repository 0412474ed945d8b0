"""mvlab.viz.reproduction_figures: the published cells against mvlab's, one marker and interval per cell."""

import numpy as np
import pandas as pd
import pytest

from mvlab.viz.reproduction_figures import paper_against_ours


def _cells():
    rows = [  # table, dataset, N, model, reading, draws, mean, ci_low, ci_high, paper, inside
        (4, "ecoli", 100, "gcForest", "disjoint", 10, 0.80, 0.70, 0.85, 0.44, False),  # not symmetric: which end
        (4, "ecoli", 100, "SDF", "disjoint", 10, 0.82, 0.77, 0.87, 0.83, True),
        (4, "ecoli", 500, "SDF", "disjoint", 1, 0.70, np.nan, np.nan, 0.65, np.nan),
        (8, "ecoli", 2000, "RF", "disjoint", 5, 0.88, 0.86, 0.90, np.nan, np.nan),  # no printed value
        (6, "ionosphere", 2000, "SDF", "shared", 5, 0.95, 0.93, 0.97, 0.91, False),
    ]
    return pd.DataFrame(rows, columns=["table", "dataset", "N", "model", "reading", "draws", "mean", "ci_low",
                                       "ci_high", "paper", "inside"])


def _points(fig):
    """Every drawn cell as (panel's x axis, paper, mean, bar above, bar below, hover)."""
    out = []
    for t in fig.data:
        if t.mode == "markers" and t.x[0] is not None:
            for i in range(len(t.x)):
                out.append((t.xaxis, t.x[i], t.y[i], t.error_y.array[i], t.error_y.arrayminus[i], t.hovertext[i]))
    return sorted(out, key=lambda p: (p[0], p[1]))


def test_each_printed_cell_is_one_marker_at_the_papers_value_and_ours_with_its_interval():
    fig = paper_against_ours(_cells(), colour="N", symbol="model", facet="reading", colour_title="N",
                             facet_titles={"disjoint": "disjoint pools"})
    points = _points(fig)
    assert [(p[0], p[1], p[2]) for p in points] == [("x", 0.44, 0.80), ("x", 0.65, 0.70), ("x", 0.83, 0.82),
                                                      ("x2", 0.91, 0.95)]  # RF's cell has no printed value
    above, below = np.array([p[3] for p in points], dtype=float), np.array([p[4] for p in points], dtype=float)
    np.testing.assert_allclose(above, [0.05, np.nan, 0.05, 0.02])  # up to ci_high
    np.testing.assert_allclose(below, [0.10, np.nan, 0.05, 0.02])  # down to ci_low
    assert "ecoli" in points[0][5] and "N = 100" in points[0][5] and "outside" in points[0][5]
    assert "one draw: no interval" in points[1][5] and "inside" in points[2][5]
    assert [a.text for a in fig.layout.annotations] == ["disjoint pools", "shared"]
    # each panel's diagonal spans its own cells and intervals
    diagonals = [t for t in fig.data if t.mode == "lines"]
    assert [d.xaxis for d in diagonals] == ["x", "x2"]
    assert diagonals[0].x[0] < 0.44 and diagonals[0].x[1] > 0.87 and list(diagonals[0].x) == list(diagonals[0].y)
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert legend == ["mvlab = the paper", "N = 100", "N = 500", "N = 2000", "gcForest", "SDF"]


def test_a_missing_column_or_a_cell_without_its_value_is_named():
    with pytest.raises(ValueError, match="no column 'classifier'"):
        paper_against_ours(_cells(), colour="classifier", symbol="model", facet="reading")
    cells = _cells()
    cells.loc[0, "N"] = np.nan  # a printed cell that could not be coloured would silently vanish
    with pytest.raises(ValueError, match="1 cell\\(s\\) with a printed value have no 'N'"):
        paper_against_ours(cells, colour="N", symbol="model", facet="reading")
    cells.loc[3, "N"] = np.nan  # a cell without a printed value is not drawn: its N does not matter
    cells.loc[0, "N"] = 100
    assert paper_against_ours(cells, colour="N", symbol="model", facet="reading").data
