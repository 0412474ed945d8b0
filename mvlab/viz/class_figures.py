"""The room's answers to a lesson's predict-first question: a bar per choice (a class round, issue 35)."""

from __future__ import annotations

from typing import Mapping, Sequence

import plotly.graph_objects as go

from mvlab.viz.palette import GREEN, GREY

__all__ = ["answer_distribution"]


def answer_distribution(choices: Sequence[str], counts: Mapping[int, int], *, correct: int | None = None,
                        font_size: int | None = None) -> go.Figure:
    """Horizontal bars, one per choice (``choices`` in order, labelled (a), (b), ...), of how many chose it
    (``counts``: choice index -> count); with ``correct``, the right choice green and marked, the others grey.
    Without it (before the reveal) every bar is grey: the distribution does not give the answer away."""
    n = sum(counts.values())
    labels = [f"({chr(97 + i)}) {c}" for i, c in enumerate(choices)]
    values = [int(counts.get(i, 0)) for i in range(len(choices))]
    colours = [GREEN if i == correct else GREY for i in range(len(choices))]
    text = [f"{v} ({100 * v / n:.0f} %)" if n else "0" for v in values]
    if correct is not None:
        text[correct] += "  ✓ right"
    fig = go.Figure(go.Bar(x=values, y=labels, orientation="h", marker_color=colours, text=text,
                           textposition="outside", cliponaxis=False,
                           hovertemplate="%{y}<br>%{x} answer(s)<extra></extra>"))
    fig.update_yaxes(autorange="reversed", automargin=True)
    fig.update_xaxes(range=[0, max(values + [1]) * 1.35], title_text="answers", dtick=max(1, (max(values + [1]) // 5)))
    fig.update_layout(title=f"{n} answered", height=90 + 55 * len(choices), margin=dict(t=50, b=40, l=10, r=30),
                      showlegend=False, font_size=font_size)
    return fig
