"""Made ``tests/data/lesson_steps_before.json`` once, from the lessons as Python modules (before issue #70 made them
files): every step's texts, its answer's truth and its items' fingerprints (:mod:`lesson_fingerprint`). Kept for the
record; it ran against commit 45db323."""

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from lesson_fingerprint import fingerprint, shows_timings  # noqa: E402

from mvlab.lessons import LESSONS  # noqa: E402
from mvlab.lessons.step_results import step_contexts, warm  # noqa: E402
from mvlab.store import ResultsStore  # noqa: E402

out = {}
with tempfile.TemporaryDirectory() as tmp:
    store = ResultsStore(Path(tmp) / "r.sqlite")
    for lesson in LESSONS.values():
        warm(lesson, store, say=lambda line: None)
        contexts = step_contexts(lesson, store)
        steps = []
        for step in lesson.steps:
            ctx = contexts[step.run]
            q = step.question
            steps.append({"title": step.title, "text": step.text, "prompt": q.prompt, "choices": list(q.choices),
                          "answer": q.answer, "why": q.why, "notice": step.notice, "mistake": step.mistake,
                          "captions": list(step.captions), "layout": list(step.layout),
                          "run": {"kind": step.run.settings.kind, "key": step.run.settings.key(),
                                  "dataset": step.run.dataset},
                          "holds": None if step.holds is None or shows_timings(step.title) else bool(step.holds(ctx)),
                          "items": [fingerprint(item, shows_timings(step.title)) for item in step.figures(ctx)]})
        out[lesson.id] = {"title": lesson.title, "summary": lesson.summary, "steps": steps}
Path(__file__).with_name("data").joinpath("lesson_steps_before.json").write_text(
    json.dumps(out, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
