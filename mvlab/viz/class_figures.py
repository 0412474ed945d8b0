"""The room's answers to a lesson's predict-first question: a bar per choice (a class round, issue 35), as a plotly
figure (the teacher's projector) or as a few lines of HTML (a student's phone, issue #53 item 10)."""

from __future__ import annotations

import html
from typing import Mapping, Sequence

import plotly.graph_objects as go

from mvlab.i18n import _
from mvlab.viz.palette import GREEN, GREY

__all__ = ["answer_distribution", "answer_bars_html"]


def answer_distribution(choices: Sequence[str], counts: Mapping[int, int], *, correct: int | None = None,
                        font_size: int | None = None) -> go.Figure:
    """Horizontal bars, one per choice (``choices`` in order, labelled (a), (b), ...), of how many chose it
    (``counts``: choice index -> count); with ``correct``, the right choice green and marked, the others grey.
    Without it (before the reveal) every bar is grey: the distribution does not give the answer away."""
    n, labels, values, colours, text = _bars(choices, counts, correct)
    fig = go.Figure(go.Bar(x=values, y=labels, orientation="h", marker_color=colours, text=text,
                           textposition="outside", cliponaxis=False,
                           hovertemplate="%{y}<br>%{x} " + _("answers") + "<extra></extra>"))
    fig.update_yaxes(autorange="reversed", automargin=True)
    fig.update_xaxes(range=[0, max(values + [1]) * 1.35], title_text=_("answers"),
                     dtick=max(1, (max(values + [1]) // 5)))
    fig.update_layout(title=_("{n} answered").format(n=n), height=90 + 55 * len(choices),
                      margin=dict(t=50, b=40, l=10, r=30), showlegend=False, font_size=font_size)
    return fig


def _bars(choices: Sequence[str], counts: Mapping[int, int], correct: int | None):
    """``(answered, labels, values, colours, texts)`` of the bars, one per choice, the right one marked."""
    n = sum(counts.values())
    labels = [f"({chr(97 + i)}) {c}" for i, c in enumerate(choices)]
    values = [int(counts.get(i, 0)) for i in range(len(choices))]
    colours = [GREEN if i == correct else GREY for i in range(len(choices))]
    text = [f"{v} ({100 * v / n:.0f} %)" if n else "0" for v in values]
    if correct is not None:
        text[correct] += "  ✓ " + _("right")
    return n, labels, values, colours, text


def answer_bars_html(choices: Sequence[str], counts: Mapping[int, int], *, correct: int | None = None) -> str:
    """The bars of :func:`answer_distribution` as one line of HTML: a table whose caption says how many answered,
    one row per choice with its label, a bar as long as its share of the largest count (drawn, not read: hidden
    from screen readers) and its count with its share, the right choice marked and green with ``correct``, every
    bar grey without it. Its own text alternative: everything it shows is written in it. The labels are escaped."""
    n, labels, values, colours, text = _bars(choices, counts, correct)
    top = max(values + [1])
    rows = "".join(
        f"<tr><td style='padding:0.15rem 0.5rem 0.15rem 0;border:none'>{html.escape(label)}</td>"
        f"<td style='width:40%;border:none'><div aria-hidden='true' style='height:0.9rem;width:{100 * v / top:.1f}%;"
        f"min-width:2px;background:{colour}'></div></td>"
        f"<td style='padding:0.15rem 0 0.15rem 0.5rem;white-space:nowrap;border:none'>{html.escape(said)}</td></tr>"
        for label, v, colour, said in zip(labels, values, colours, text))
    caption = html.escape(_("The class's answers: {n} answered").format(n=n), quote=False)
    return (f"<table style='width:100%;border:none'><caption style='caption-side:top;text-align:start'>{caption}"
            f"</caption><tbody>{rows}</tbody></table>")
