"""*Your own lesson* on the Lessons page: write a lesson file in the page (from the guide's template or from any
lesson's export), or upload one with its CSV; every problem shown as you edit, next to its line; a preview as a
reader and as the teacher (a step's figures computed on the job engine on request); *Save* stores it in the results
store and gives its link and key; changing or deleting a saved lesson needs its key. The checking, the storing and
the keys are :mod:`mvlab.lessons.lesson_file`, :mod:`mvlab.lessons.added` and :mod:`mvlab.store.saved_lessons`; here
are the page's parts."""

from __future__ import annotations

import streamlit as st

from mvlab.i18n import _, current_language, format_number, ngettext
from mvlab.lessons import EXAMPLES_DIR, LESSONS, Lesson, StepContext
from mvlab.lessons.added import add_lesson, added_titles, forget, saved_lessons
from mvlab.lessons.figure_registry import FIGURES
from mvlab.lessons.lesson_file import LessonProblem, check_lesson_file, export_lesson
from mvlab.lessons.lesson_schema import CSV_MAX_BYTES
from mvlab.lessons.safe_yaml import MAX_BYTES
from mvlab.store import StoreUnavailable
from mvlab.store.saved_lessons import SavedLessonError
from mvlab.ui import class_round, lesson_step, runs
from mvlab.ui.prose import markdown_literal

__all__ = ["TEMPLATE", "panel", "problems_markdown", "preview"]

TEMPLATE = EXAMPLES_DIR / "first-lesson.yaml"
"""The guide's first lesson, the editor's template (the guide prints the same file)."""
_TEXT, _CSV, _SAVED = "lesson_editor_text", "lesson_editor_csv", "lesson_editor_saved"


def _file_name() -> str:
    """The name the editor's file goes by in its problems (a teacher's file in the page has none of its own)."""
    # Translators: the name of the lesson file written in the lesson editor, in its problems ("your lesson:12: ...")
    return _("your lesson")


def _template() -> str:
    return TEMPLATE.read_text(encoding="utf-8")


def problems_markdown(problems: list[LessonProblem], text: str) -> str:
    """Every problem next to its line: the line's number and its text, then what is wrong there (Markdown, the
    file's own words written as text)."""
    lines = text.splitlines()
    out = []
    for p in problems:
        shown = lines[p.line - 1].strip() if 0 < p.line <= len(lines) else ""
        where = _("**line {n}**").format(n=p.line) + (f" `{shown[:80].replace('`', chr(39))}`" if shown else "") \
            if p.line else _("**the file**")
        field = f"{markdown_literal(p.field)}: " if p.field else ""
        out.append(f"- {where}: {field}{markdown_literal(p.message)}")
    return "\n".join(out)


def _location() -> str:
    return runs.results_store().location


def _start_from() -> None:
    """The file to start from: the template or any lesson's export (built-in or added)."""
    choices = {"template": _("The guide's template (a two-step lesson on a bundled dataset)")}
    code = current_language()
    choices |= {lid: _("Export of “{title}”").format(title=lesson.in_language(code).title)
                for lid, lesson in LESSONS.items()}
    try:
        choices |= {lid: _("Your lesson “{title}”").format(title=title)
                    for lid, title in added_titles(_location()).items()}
    except StoreUnavailable:
        pass
    left, right = st.columns([3, 1])
    chosen = left.selectbox(_("Start from"), list(choices), format_func=choices.get, key="lesson_editor_start")
    right.write("")
    if right.button(_("Load it"), key="lesson_editor_load", width="stretch"):
        if chosen != "template" and class_round.hidden_steps(chosen):
            st.warning(_("A class round of this lesson is running: its file, which holds every answer, can be loaded "
                         "once the round has revealed them."))
        elif chosen == "template":
            st.session_state[_TEXT] = _template()
        elif chosen in LESSONS:
            st.session_state[_TEXT] = export_lesson(LESSONS[chosen])
        else:
            saved = saved_lessons(_location()).get(chosen)
            if saved is not None:
                st.session_state[_TEXT] = saved.text
                st.session_state[_CSV] = (saved.csv_name, saved.csv) if saved.csv_name else None


def _uploads() -> None:
    """A lesson file and its CSV uploaded: sizes checked before they are read; the file goes into the editor."""
    files = st.file_uploader(_("…or upload a lesson file (.yaml) and its CSV file"), type=["yaml", "yml", "csv"],
                             accept_multiple_files=True, key="lesson_editor_upload")
    for file in files or []:
        limit = CSV_MAX_BYTES if file.name.lower().endswith(".csv") else MAX_BYTES
        if file.size > limit:
            too_large = (_("{file} has {size} bytes; a lesson CSV may have at most {limit}. Nothing was read.")
                         if limit == CSV_MAX_BYTES else
                         _("{file} has {size} bytes; a lesson file may have at most {limit}. Nothing was read."))
            st.error(too_large.format(file=markdown_literal(file.name[:80]), size=format_number(file.size),
                                      limit=format_number(limit)))
            continue
        raw = file.getvalue()
        if file.name.lower().endswith(".csv"):
            st.session_state[_CSV] = (file.name, raw)
        elif st.session_state.get("lesson_editor_uploaded") != (file.name, hash(raw)):
            st.session_state["lesson_editor_uploaded"] = (file.name, hash(raw))
            try:
                st.session_state[_TEXT] = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                st.error(_("{file} is not UTF-8 text; save it as UTF-8.").format(file=markdown_literal(file.name[:80])))


def _csv_files() -> dict[str, bytes]:
    held = st.session_state.get(_CSV)
    return {} if not held else {held[0]: held[1]}


def panel() -> None:
    """The whole of *Your own lesson* (in an expander of the Lessons page)."""
    st.caption(_("A lesson is a short YAML file: its steps, each with a question asked before its figures, figures "
                 "and checks named from mvlab's lists, computed on a bundled dataset or on your CSV file. The guide "
                 "({guide}) has a complete lesson in 37 lines and lists every figure and check.").format(
        guide="docs/guide/lessons.md"))
    _start_from()
    _uploads()
    st.session_state.setdefault(_TEXT, _template())
    held = st.session_state.get(_CSV)
    if held:
        st.caption(ngettext("CSV file with the lesson: **{file}** ({size} byte).",
                            "CSV file with the lesson: **{file}** ({size} bytes).", len(held[1])).format(
            file=markdown_literal(held[0]), size=format_number(len(held[1]))))
    edit, checked = st.columns([3, 2])
    text = edit.text_area(_("Lesson file (YAML)"), key=_TEXT, height=520,
                          help=_("Press Ctrl+Enter (or click outside) to check it."))
    raw = text.encode("utf-8")
    lesson, problems = check_lesson_file(raw, _file_name(), _csv_files())
    with checked:
        if problems:
            st.error(ngettext("{n} problem to fix before the lesson can be saved:",
                              "{n} problems to fix before the lesson can be saved:", len(problems)).format(
                n=len(problems)))
            st.markdown(problems_markdown(problems, text))
        else:
            st.success(ngettext("No problem found: “{title}”, {n} step.", "No problem found: “{title}”, {n} steps.",
                                len(lesson.steps)).format(title=markdown_literal(lesson.title), n=len(lesson.steps)))
    if lesson is None:
        return
    preview(lesson)
    _save(lesson, raw)


def preview(lesson: Lesson) -> None:
    """The lesson as a reader sees it before answering, or as the teacher sees it (with the answers); with
    *figures*, each run's result (stored already, or computed on the job engine by its Train button) and every
    step's figures drawn from it, with whether each of its claims holds."""
    left, right = st.columns(2)
    as_teacher = left.toggle(_("Preview as the teacher (answers shown)"), key="lesson_editor_as_teacher")
    with_figures = right.toggle(_("Preview the figures (computed on this server)"), key="lesson_editor_figures",
                                help=_("Each computation of the lesson is looked up in the results store, or computed "
                                       "when you press its Train button; the figures then show under their steps."))
    contexts = _contexts(lesson) if with_figures else {}
    for number, step in enumerate(lesson.steps, 1):
        with st.container(border=True):
            st.markdown("#### " + _("Step {n}. {title}").format(n=number, title=markdown_literal(step.title))
                        + f"\n\n{step.text}\n\n" + _("**Predict first:** {prompt}").format(
                            prompt=step.question.prompt))
            for i, choice in enumerate(step.question.choices):
                mark = " ✓" if as_teacher and i == step.question.answer else ""
                st.markdown(f"({chr(97 + i)}) {choice}{mark}")
            if as_teacher:
                st.markdown(_("**Why:** {why}").format(why=step.question.why) + "\n\n"
                            + _("**Notice:** {notice}").format(notice=step.notice) + "\n\n"
                            + _("**A common mistake:** {mistake}").format(mistake=step.mistake))
            names = ", ".join(f"{use.name} ({_figure_doc(use.name)})" for use in step.figures)
            st.caption(_("Figures, computed by {run}: {figures}").format(run=step.run.label, figures=names))
            ctx = contexts.get(step.run)
            if ctx is not None:
                _figures_of(step, ctx, number)


def _figure_doc(name: str) -> str:
    """What the figure ``name`` shows (its doc, :data:`~mvlab.lessons.figure_registry.FIGURES`) in the reader's
    language, to follow its name in brackets: the English text with a small first letter (a translation as its
    translator wrote it: a German noun keeps its capital)."""
    doc = FIGURES[name].doc
    said = _(doc)
    return f"{doc[0].lower()}{doc[1:]}" if said == doc else said


def _contexts(lesson: Lesson) -> dict:
    """Each run of ``lesson`` with its result as a step context, where there is one (stored, or just computed by
    its Train button)."""
    out = {}
    for i, run in enumerate(lesson.runs()):
        data = run.data()
        result = runs.result_or_train(run.settings, data, run.result_type, key=f"lesson_editor_run_{i}",
                                      label=_("Computing {run}").format(run=run.label))
        if result is not None:
            out[run] = StepContext(result, data, run.settings)
    return out


def _figures_of(step, ctx, number: int) -> None:
    """A previewed step's figures and its claims' verdicts; a figure that cannot be drawn on this result is said in
    words."""
    try:
        items, verdicts = step.items(ctx), step.verdicts(ctx)
    except ValueError as exc:
        st.error(_("Step {n} cannot be shown on this result: {error}").format(n=number,
                                                                              error=markdown_literal(str(exc))))
        return
    lesson_step.show_items(items, step, key=f"lesson_editor_fig_{number}", teacher=False)
    for use, holds, measured in verdicts:
        said = (_("{check}: holds: {measured}") if holds else _("{check}: does not hold: {measured}")).format(
            check=use.name, measured=markdown_literal(measured))
        (st.success if holds else st.error)(said)


def _save(lesson: Lesson, raw: bytes) -> None:
    """*Save* (a new lesson, or a change with its key) and *Delete* (with its key)."""
    with st.form("lesson_editor_save", border=False):
        # Translators: a saved lesson's key (a secret, like a password) that changes or deletes it
        key = st.text_input(_("Key"), type="password", key="lesson_editor_key",
                            help=_("Only to change or delete a lesson saved before: the key given when it was saved."))
        save, delete = st.columns(2)
        saving = save.form_submit_button(_("Save the lesson"), type="primary", width="stretch")
        deleting = delete.form_submit_button(_("Delete the saved lesson"), width="stretch")
    try:
        if saving:
            added = add_lesson(raw, _csv_files(), _file_name(), key=key or None, location=_location())
            st.session_state[_SAVED] = (added.lesson.id, added.link, None if key else added.key)
        elif deleting:
            saved_lessons(_location()).delete(lesson.id, key)
            forget(lesson.id, _location())
            st.session_state[_SAVED] = (lesson.id, None, None)
    except (SavedLessonError, StoreUnavailable) as exc:
        st.error(str(exc))
        return
    except ValueError as exc:  # the file changed under the check: its problems, in words
        st.error(markdown_literal(str(exc)))
        return
    done = st.session_state.get(_SAVED)
    if done is None or done[0] != lesson.id:
        return
    lesson_id, link, new_key = done
    if link is None:
        st.success(_("The lesson '{lesson}' was deleted.").format(lesson=lesson_id))
        return
    st.success(_("Saved. Its link: `{link}` (open it, teach it, start a class round from it).").format(link=link))
    if new_key:
        st.warning(_("Its key, shown to you only: `{key}`. Keep it: changing or deleting the lesson needs it.").format(
            key=new_key))
    st.page_link("pages/lessons.py", label=_("Open the saved lesson"), query_params={"lesson": lesson_id})
