"""A lesson as one self-contained HTML file: its text, questions with their answers (revealed on
click, no script needed) and its figures as interactive plotly charts, with plotly's JavaScript
embedded once, so the file opens in a browser without a server or a network."""

from __future__ import annotations

import html
import re
from typing import Mapping

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from mvlab.core.version import VERSION
from mvlab.i18n import _, current_language, direction, ngettext
from mvlab.lessons.model import Lesson, Step, StepContext, StepRun
from mvlab.viz.describe import data_disclosure, describe

__all__ = ["inline_markdown", "render_handout"]

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 1100px; margin: 2em auto;
       padding: 0 1em; color: #222; line-height: 1.5; }
h1 { font-size: 1.8em; } h2 { margin-top: 2.2em; border-top: 1px solid #ddd; padding-top: 1em; }
.question { background: #f4f6fb; border-left: 4px solid #4c6ef5; padding: 0.6em 1em; margin: 1em 0; }
.question ol { margin: 0.3em 0; } details { margin-top: 0.5em; } summary { cursor: pointer; color: #364fc7; }
.notice { border-left: 4px solid #2f9e44; padding: 0.2em 1em; } .mistake { border-left: 4px solid #e03131;
       padding: 0.2em 1em; } table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; } th { background: #f1f3f5; }
.caption { color: #555; font-size: 0.9em; } figure { margin: 1em 0; }
footer { margin-top: 3em; color: #666; font-size: 0.85em; }
"""


def inline_markdown(text: str) -> str:
    """The inline markdown of lesson texts as HTML (escaped first): ``**bold**``, ``*italic*``, ```code```."""
    out = html.escape(text, quote=False)
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", out)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", out)


def _shown_html(item, div_id: str) -> str:
    if isinstance(item, go.Figure):  # the figure, then its text alternative: a sentence and its data (issue #47)
        described = describe(item)
        chart = item.to_html(full_html=False, include_plotlyjs=False, div_id=div_id,
                             config={"displaylogo": False, "responsive": True})
        sentence = html.escape(described.sentence)
        table = data_disclosure(described.table)
        figure = html.escape(_("Figure:"))
        return (f"<figure role='group' aria-describedby='{div_id}-text'>{chart}"
                f"<figcaption id='{div_id}-text' class='caption'>{figure} {sentence}</figcaption>{table}</figure>")
    if isinstance(item, pd.DataFrame):
        return item.to_html(index=False, na_rep="—", border=0, float_format=lambda v: f"{v:.3f}")
    raise ValueError(f"a step shows figures or tables, not {type(item).__name__}.")


def _step_html(number: int, total: int, step: Step, ctx: StepContext | None) -> str:
    q = step.question
    choices = "".join(f"<li>{inline_markdown(c)}</li>" for c in q.choices)
    said = html.escape(_("Step {step} of {total}").format(step=number, total=total))
    predict, show = html.escape(_("Predict first:")), html.escape(_("Show the answer"))
    parts = [f"<h2>{said}: {inline_markdown(step.title)}</h2>",
             f"<p>{inline_markdown(step.text)}</p>",
             f"<div class='question'><strong>{predict}</strong> {inline_markdown(q.prompt)}"
             f"<ol type='a'>{choices}</ol><details><summary>{show}</summary><p><strong>"
             f"({chr(97 + q.answer)}) {inline_markdown(q.choices[q.answer])}</strong>. {inline_markdown(q.why)}</p>"
             "</details></div>"]
    if ctx is None:
        said = _("This step's result was not computed when the handout was written.")
        parts.append(f"<p class='caption'>{html.escape(said)}</p>")
    else:
        try:
            items = step.items(ctx)
        except ValueError as exc:  # a teacher's lesson asks a figure of what its result does not hold
            items = []
            said = _("This step's figures cannot be drawn on its result: {error}").format(error=exc)
            parts.append(f"<p class='caption'>{html.escape(said)}</p>")
        for i, item in enumerate(items):
            parts.append(_shown_html(item, f"step{number}-figure{i + 1}"))
            if i < len(step.captions):
                parts.append(f"<p class='caption'>{inline_markdown(step.captions[i])}</p>")
    notice, mistake = html.escape(_("What to notice.")), html.escape(_("A common mistake."))
    parts += [f"<p class='notice'><strong>{notice}</strong> {inline_markdown(step.notice)}</p>",
              f"<p class='mistake'><strong>{mistake}</strong> {inline_markdown(step.mistake)}</p>"]
    return "\n".join(parts)


def render_handout(lesson: Lesson, contexts: Mapping[StepRun, StepContext | None]) -> str:
    """The handout of ``lesson`` as one HTML document; ``contexts`` gives each run's result
    (:func:`mvlab.lessons.step_results.step_contexts`; a missing one is said in its steps)."""
    total = len(lesson.steps)
    steps = "\n".join(_step_html(n, total, step, contexts.get(step.run)) for n, step in enumerate(lesson.steps, 1))
    code = current_language()
    title = html.escape(_("{title} (mvlab lesson)").format(title=lesson.title))
    intro = html.escape(ngettext("{n} step. Answer its question before you open its answer.",
                                 "{n} steps. Answer each question before you open its answer.", total).format(n=total))
    footer = html.escape(_("mvlab {version} lesson '{lesson}'. Every result was computed with a fixed seed; the "
                           "dashboard's Lessons page shows the same steps.").format(version=VERSION, lesson=lesson.id))
    return (
        f"<!DOCTYPE html>\n<html lang='{code}' dir='{direction(code)}'><head><meta charset='utf-8'>"
        f"<title>{title}</title><style>{_STYLE}</style>"
        f"<script type='text/javascript'>{get_plotlyjs()}</script></head><body>"
        f"<h1>{html.escape(lesson.title)}</h1><p>{inline_markdown(lesson.summary)}</p>"
        f"<p class='caption'>{intro}</p>\n{steps}\n<footer>{footer}</footer></body></html>"
    )
