"""A lesson as a file a teacher writes: YAML, ``format: 1``, checked against the format's JSON Schema
(:mod:`mvlab.lessons.lesson_schema`, written from the registries), then read into a
:class:`~mvlab.lessons.model.Lesson`. Nothing in a file is code: its figures and checks are names of the registries
(:data:`~mvlab.lessons.figure_registry.FIGURES`, :data:`~mvlab.lessons.check_registry.CHECKS`) with declared
parameters, its computations a page's settings by their declared names, its data a bundled dataset or the lesson's
own CSV file. The reader is :mod:`mvlab.lessons.safe_yaml` (plain data only).

Every problem of a file is reported at once, each with the file, the line, the field and what is allowed there
(:class:`LessonFileError`); the limits are :data:`~mvlab.lessons.lesson_schema.LIMITS`. The guide
(``docs/guide/lessons.md``) describes the format. :func:`export_lesson` writes a lesson back as its file.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import html
import json
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import jsonschema
import yaml

from mvlab.datasets.bundled import list_datasets, load_dataset
from mvlab.i18n import N_, gettext, localised_number, ngettext
from mvlab.i18n.languages import DEFAULT, LANGUAGES
from mvlab.lessons.check_registry import CHECKS
from mvlab.lessons.figure_registry import FIGURES
from mvlab.lessons.lesson_schema import CSV_MAX_BYTES, CSV_MAX_COLUMNS, CSV_MAX_ROWS, FORMAT, ID_PATTERN, schema
from mvlab.lessons.model import Lesson, Question, Step, StepRun, Use, entry_use, lesson_texts
from mvlab.lessons.pages import PAGES
from mvlab.lessons.parameters import Entry
from mvlab.lessons.safe_yaml import Located, YamlProblem, read_yaml

__all__ = ["LessonProblem", "LessonFileError", "check_lesson_file", "read_lesson", "export_lesson",
           "lesson_document", "field_words", "MAX_PROBLEMS"]

MAX_PROBLEMS = 50
"""Problems listed for one file (then how many more there are)."""


# ============================================================================================ problems
@dataclass(frozen=True)
class LessonProblem:
    """One problem of a lesson file: the ``file``, the ``line`` (0: the file as a whole), the ``field`` (in
    words: ``step 2, figure 1, measure``) and the ``message`` saying what is allowed."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field + ': ' if self.field else ''}{self.message}"


class LessonFileError(ValueError):
    """A lesson file that cannot be read: every problem (:attr:`problems`), one per line of the message."""

    def __init__(self, problems: list[LessonProblem]):
        self.problems = problems
        super().__init__("\n".join(map(str, problems)))


_NAMES = {
    # Translators: a place in a lesson file, for its problems ("step 2, figure 1, measure: ..."): the step {n}
    "steps": N_("step {n}"),
    # Translators: a place in a lesson file ("step 2, figure 1, measure: ..."): a step's figure {n}
    "figures": N_("figure {n}"),
    # Translators: a place in a lesson file ("step 2, check 1, above: ..."): a step's check (a claim) {n}, a noun
    "checks": N_("check {n}"),
    # Translators: a place in a lesson file ("step 2, question, choice 3: ..."): a question's choice {n}
    "choices": N_("choice {n}"),
    # Translators: a place in a lesson file ("step 2, layout 1: ..."): the row {n} of a step's layout (the YAML key
    # is "layout")
    "layout": N_("layout {n}"),
}


def field_words(path) -> str:
    """A path in the file, for people: ``('steps', 1, 'figures', 0, 'measure')`` is ``step 2, figure 1,
    measure``."""
    out, path = [], list(path)
    i = 0
    while i < len(path):
        part = path[i]
        if part in _NAMES and i + 1 < len(path) and isinstance(path[i + 1], int):
            out.append(gettext(_NAMES[part]).format(n=path[i + 1] + 1))
            i += 2
            continue
        if part == "runs" and i + 1 < len(path):
            # Translators: a place in a lesson file ("run 'main', settings: ..."): the run named {name} under runs:
            out.append(gettext("run '{name}'").format(name=path[i + 1]))
            i += 2
            continue
        out.append(str(part))
        i += 1
    return ", ".join(out)


_TYPE_WORDS = {"string": N_("a text"), "integer": N_("a whole number"), "number": N_("a number"),
               "boolean": N_("true or false"), "array": N_("a list"), "object": N_("a mapping (key: value lines)")}
"""JSON Schema's types in words (what a value "must be")."""


def _or(words) -> str:
    """``words`` as alternatives ("a text or a number"), in the language being served."""
    words = list(words)
    said = words[0]
    for word in words[1:]:
        # Translators: two alternatives, e.g. "a text or a number" (a lesson file's value must be one of them)
        said = gettext("{first} or {second}").format(first=said, second=word)
    return said


def _missing(error: jsonschema.ValidationError) -> str:
    """The key a ``required`` error says is missing."""
    return error.message.split("'")[1] if "'" in error.message else error.message


def _schema_words(error: jsonschema.ValidationError) -> str:
    v, s = error.validator, error.schema
    if v == "anyOf" and _is_text(s):  # a text, or one per language: say what is wrong with the one given
        branch = 1 if isinstance(error.instance, dict) else 0
        inner = [e for e in error.context if e.relative_schema_path and e.relative_schema_path[0] == branch]
        if isinstance(error.instance, (str, dict)) and inner:
            return _schema_words(min(inner, key=lambda e: len(e.relative_schema_path)))
        return gettext("must be a text, or one text per language ({example}); got {value}").format(
            example=", ".join(f"{c}: …" for c in list(LANGUAGES)[:2]), value=_short(error.instance))
    if (v == "propertyNames" and "enum" in s.get("propertyNames", {})) or (
            v == "enum" and list(s["enum"]) == list(LANGUAGES)):
        return gettext("{value} is not a language mvlab speaks; the languages: {languages}").format(
            value=_short(error.instance), languages=", ".join(LANGUAGES))
    if v == "additionalProperties":
        extra = sorted(set(error.instance) - set(s.get("properties", {})))
        # Translators: what keys a lesson file allows at a place that allows none
        allowed = ", ".join(s.get("properties", {})) or gettext("none")
        return ngettext("unknown key {keys}; allowed here: {allowed}", "unknown keys {keys}; allowed here: {allowed}",
                        len(extra)).format(keys=", ".join(repr(k) for k in extra), allowed=allowed)
    if v == "required":
        return gettext("'{key}' is missing").format(key=_missing(error))
    if v == "enum":
        close = difflib.get_close_matches(str(error.instance), list(map(str, s["enum"])), n=1)
        allowed = ", ".join(map(str, s["enum"]))
        if close:
            return gettext("{value} is not allowed (did you mean {guess}?); allowed: {allowed}").format(
                value=_short(error.instance), guess=close[0], allowed=allowed)
        return gettext("{value} is not allowed; allowed: {allowed}").format(value=_short(error.instance),
                                                                             allowed=allowed)
    if v == "const":
        return gettext("must be {wanted}; got {value}").format(wanted=json.dumps(s["const"]),
                                                               value=_short(error.instance))
    if v == "type":
        wanted = s["type"] if isinstance(s["type"], list) else [s["type"]]
        return gettext("must be {wanted}; got {value}").format(wanted=_or(gettext(_TYPE_WORDS[t]) for t in wanted),
                                                               value=_short(error.instance))
    if v in ("minimum", "maximum"):
        low, high = (_number_words(s.get(k)) for k in ("minimum", "maximum"))
        if low and high:
            return gettext("must be from {low} to {high}; got {value}").format(low=low, high=high,
                                                                               value=_short(error.instance))
        if v == "minimum":
            return gettext("must be at least {limit}").format(limit=_number_words(s[v]))
        return gettext("must be at most {limit}").format(limit=_number_words(s[v]))
    if v == "maxLength":
        n = len(error.instance)
        return ngettext("is {n} character long; at most {limit} are allowed",
                        "is {n} characters long; at most {limit} are allowed", n).format(
            n=localised_number(f"{n:,}"), limit=localised_number(f"{s['maxLength']:,}"))
    if v == "minLength":
        return gettext("cannot be empty")
    if v in ("minItems", "maxItems"):
        n = len(error.instance)
        # Translators: the most items a list may hold when it has no such limit ("1 to any are allowed")
        high = s.get("maxItems", gettext("any"))
        return ngettext("has {n} item; {low} to {high} are allowed", "has {n} items; {low} to {high} are allowed",
                        n).format(n=n, low=s.get("minItems", 0), high=high)
    if v in ("minProperties", "maxProperties"):
        n = len(error.instance)
        return ngettext("has {n} entry; {low} to {high} are allowed", "has {n} entries; {low} to {high} are allowed",
                        n).format(n=n, low=s.get("minProperties", 0), high=s.get("maxProperties"))
    if v == "uniqueItems":
        return gettext("names the same value twice; give each once")
    if v == "pattern":
        description = s.get("description")
        return gettext("{value} is not allowed here: {what}").format(
            value=_short(error.instance), what=gettext(description) if description else gettext("see the format"))
    if v == "propertyNames":
        return gettext("the name {value} is not allowed: lower-case letters, digits, '-' and '_', starting with a "
                       "letter").format(value=_short(error.instance))
    return error.message


def _is_text(schema: dict) -> bool:
    """Whether ``schema`` is a text's (:func:`mvlab.lessons.lesson_schema._text`: a text or one per language)."""
    branches = schema.get("anyOf", [])
    return len(branches) == 2 and branches[0].get("type") == "string" and branches[1].get("type") == "object"


def _number_words(value) -> str:
    """A bound as people write it: 4,294,967,295 and 0.5, not 4.29497e+09."""
    if value is None:
        return ""
    return localised_number(f"{value:,}" if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}")


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 60 else text[:57] + "…"


# ============================================================================================ checking
# every pattern below is linear in the text (no nested or unbounded repetition across lines); they read the text
# with its HTML entities decoded, as a Markdown renderer does ("javascript&colon;" is "javascript:")
_HTML = re.compile(r"<[A-Za-z!/?]")
_SCRIPT_SCHEME = re.compile(r"(?i)(javascript|vbscript|data|file)[ \t]*:")
_LINK_TARGET = re.compile(r"\][ \t]*[(:][ \t]*<?[ \t]*([^)\s>]*)")
_SAFE_SCHEME = re.compile(r"(?i)(https?://|mailto:|#|/|\.|[^:]*$)")
_IMAGE = "!["
_TEXT_CHECKED = 20_000
"""Characters of a text the checks read (the schema's limits are far lower, and say so of a longer text)."""


def _text_problems(text: str) -> str | None:
    """Why a text a page renders as Markdown is refused (raw HTML, an image, a link that is not http(s), mailto or
    relative), or None. An entity (``&colon;``) is read as its character, as the renderer does."""
    text = html.unescape(text[:_TEXT_CHECKED])
    if _HTML.search(text):
        return gettext("raw HTML is not allowed in a lesson's text; write Markdown (**bold**, *italics*, [a link]"
                       "(https://…)); a '<' just before a letter reads as HTML: write 'x < y', with spaces")
    if _IMAGE in text:
        return gettext("images are not allowed in a lesson's text (a step shows figures computed from its data)")
    targets = _LINK_TARGET.findall(text)
    if any(not _SAFE_SCHEME.match(t) for t in targets) or re.search(r"(?i)\b(javascript|vbscript)[ \t]*:", text):
        return gettext("links may only go to http(s) or mailto addresses (javascript:, data: and file: are not "
                       "allowed)")
    return None


_TEXT_KEYS = ("title", "summary", "text", "prompt", "why", "notice", "mistake", "caption")


class _Checker:
    """One pass over a parsed file: collects problems with their lines."""

    def __init__(self, located: Located, file: str, csv_files: Mapping[str, bytes] | None):
        self.located, self.file, self.csv_files = located, file, csv_files
        self.problems: list[LessonProblem] = []
        self.broken: set[tuple] = set()
        """The paths the schema found wrong: the checks that read values (types, names) leave them and what holds
        them alone, and nothing is loaded or computed while there is any."""

    def clean(self, path) -> bool:
        """Whether no schema problem lies at, inside or above ``path``."""
        path = tuple(path)
        return not any(err[:len(path)] == path or path[:len(err)] == err for err in self.broken)

    def whole(self, path) -> bool:
        """Whether no schema problem lies at or above ``path`` (a list's or a mapping's own: its length, its type)."""
        path = tuple(path)
        return not any(path[:len(err)] == err for err in self.broken)

    def add(self, path, message: str) -> None:
        self.problems.append(LessonProblem(self.file, self.located.line(path), field_words(path), message))

    def texts(self, doc) -> None:
        """Every text of the file that a page shows, in every language it is given in: no HTML, no unsafe link, no
        image."""
        for path, value in _text_fields(doc):
            for where, text in ([(path, value)] if isinstance(value, str) else
                                [(path + (k,), v) for k, v in value.items()] if isinstance(value, dict) else []):
                if isinstance(text, str) and (why := _text_problems(text)):
                    self.add(where, why)

    def own_language(self, doc, own: str) -> None:
        """Each text given per language has one in the lesson's own language ``own`` (what a reader of a language
        it lacks reads)."""
        for path, value in _text_fields(doc):
            if isinstance(value, dict) and own not in value and self.clean(path):
                self.add(path, gettext("a text given per language needs one in the lesson's own language "
                                       "('{language}'): it is what a reader of a language it lacks reads").format(
                    language=own))


def _text_fields(value, path=()):
    """``(path, text)`` of every text of a lesson file that a page shows (a key of :data:`_TEXT_KEYS`, or a choice),
    the text as given: one text, or one per language."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k in _TEXT_KEYS:
                yield path + (k,), v
            else:
                yield from _text_fields(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if path[-1:] == ("choices",):
                yield path + (i,), v
            else:
                yield from _text_fields(v, path + (i,))


def _whole_number(checker, instance) -> bool:
    """JSON Schema's "integer" without the floats that equal one (``2.0`` is not a step's answer nor a count)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


_VALIDATOR = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _whole_number))(schema())
"""The format's schema, a whole number being an integer that is no float."""


def _id_problems(doc: dict, checker: _Checker, builtin: bool) -> None:
    """An id exactly of the pattern (the schema's ``$`` lets a trailing line break through) and none that mvlab
    keeps for itself (a built-in lesson's, a word of the command): what ``lesson add`` would refuse, said by
    ``check`` already."""
    lesson_id = doc.get("id")
    if not isinstance(lesson_id, str) or not checker.clean(("id",)):
        return
    from mvlab.store.saved_lessons import RESERVED_IDS

    if not re.fullmatch(ID_PATTERN.strip("^$"), lesson_id):
        checker.add(("id",), gettext("an id is 3 to 40 lower-case letters, digits and hyphens, starting with a "
                                     "letter, and nothing else (no line break)"))
    elif not builtin and (lesson_id in RESERVED_IDS or lesson_id in _builtin_ids()):
        checker.add(("id",), gettext("'{id}' is taken by mvlab itself (a built-in lesson or a word of the lesson "
                                     "command); give your lesson another id").format(id=lesson_id))


@functools.cache  # the package's own files: listed once per process, not at every check of the editor
def _builtin_ids() -> tuple[str, ...]:
    return tuple(p.stem for p in BUILTIN_FILES.glob("*.yaml"))


BUILTIN_FILES = Path(__file__).with_name("builtin")
"""The built-in lessons' files (their ids are theirs alone)."""


def check_lesson_file(raw: bytes, file: str = "lesson.yaml", csv_files: Mapping[str, bytes] | None = None,
                      *, data: bool = True, builtin: bool = False) -> tuple[Lesson | None, list[LessonProblem]]:
    """Read and check a lesson file; returns the lesson (None when there is any problem) and every problem.

    ``csv_files`` maps a CSV file's name (as the lesson's runs give it) to its bytes (None: none). ``data``: also
    load each run's data and ask its settings whether they can run on it
    (:meth:`~mvlab.experiments.settings.ExperimentSettings.problems`): quick, no computation. ``builtin``: one of
    mvlab's own lessons, whose ids no teacher's may take."""
    try:
        located = read_yaml(raw)
    except YamlProblem as exc:
        return None, [LessonProblem(file, exc.line, "", exc.message)]
    doc = located.value
    checker = _Checker(located, file, {} if csv_files is None else csv_files)
    if not isinstance(doc, dict):
        checker.add((), gettext("a lesson file is a mapping: format, id, title, summary, runs and steps (see the "
                                "guide)"))
        return None, checker.problems
    if doc.get("format") not in (None, FORMAT):
        checker.add(("format",), gettext("this mvlab reads lesson files of format {format}; this one says "
                                         "{value}").format(format=FORMAT, value=_short(doc.get("format"))))
        return None, checker.problems
    for error in sorted(_VALIDATOR.iter_errors(doc), key=lambda e: located.line(e.absolute_path)):
        path = tuple(error.absolute_path)
        checker.broken.add(path)
        if error.validator == "required":
            path = path + (_missing(error),)
        checker.add(path, _schema_words(error))
    checker.texts(doc)
    own = doc.get("language", DEFAULT) if checker.clean(("language",)) else DEFAULT
    checker.own_language(doc, own)
    _id_problems(doc, checker, builtin)
    runs = _runs(doc, checker, data and not checker.broken)
    steps = _steps(in_language(doc, own, own), checker, runs)
    if checker.problems:
        problems = sorted(_unique(checker.problems), key=lambda p: p.line)
        if len(problems) > MAX_PROBLEMS:
            more = len(problems) - MAX_PROBLEMS
            said = ngettext("and {n} more problem (the first {shown} are shown)",
                            "and {n} more problems (the first {shown} are shown)", more).format(
                n=localised_number(f"{more:,}"), shown=MAX_PROBLEMS)
            problems = problems[:MAX_PROBLEMS] + [LessonProblem(file, 0, "", said)]
        return None, problems
    mine = in_language(doc, own, own)
    translations = {code: _texts(in_language(doc, code, None)) for code in LANGUAGES
                    if code != own and code in _languages_given(doc)}
    return Lesson(doc["id"], mine["title"], mine["summary"], tuple(steps), source=raw.decode("utf-8-sig"),
                  language=own, translations=translations), []


def _texts(doc: dict) -> dict:
    return lesson_texts(doc["title"], doc["summary"], doc["steps"])


def in_language(value, code: str, own: str | None, path=()):
    """A lesson file's plain data with each text given per language replaced by its text in ``code``, else in
    ``own`` (the lesson's language); with ``own`` None, None where the file has no text in ``code`` (a text given
    once is in the lesson's own language)."""
    if isinstance(value, dict):
        return {k: _pick(v, code, own) if k in _TEXT_KEYS else in_language(v, code, own, path + (k,))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_pick(v, code, own) if path[-1:] == ("choices",) else in_language(v, code, own, path + (i,))
                for i, v in enumerate(value)]
    return value


def _pick(text, code: str, own: str | None):
    if isinstance(text, dict):
        return text.get(code, text.get(own) if own is not None else None)
    return text if own is not None else None


def _languages_given(doc) -> set[str]:
    """Every language a text of the file is given in (the languages of its per-language texts)."""
    return set().union(*(set(text) for _, text in _text_fields(doc) if isinstance(text, dict)))


def _unique(problems: list[LessonProblem]) -> list[LessonProblem]:
    return list(dict.fromkeys(problems))


def read_lesson(raw: bytes, file: str = "lesson.yaml", csv_files: Mapping[str, bytes] | None = None,
                *, data: bool = True, builtin: bool = False) -> Lesson:
    """The lesson of a file (:func:`check_lesson_file`); :class:`LessonFileError` with every problem."""
    lesson, problems = check_lesson_file(raw, file, csv_files, data=data, builtin=builtin)
    if problems:
        raise LessonFileError(problems)
    return lesson


def _settings_values(kind: str, given: dict) -> dict:
    """The file's settings as the settings class takes them (lists as tuples, whole numbers as floats where a
    number is declared); the schema has checked their types and ranges."""
    hints = PAGES[kind].settings.field_types()
    out = {}
    for name, value in given.items():
        hint = hints.get(name)
        if typing.get_origin(hint) is tuple and isinstance(value, list):
            value = tuple(value)
        elif hint is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        out[name] = value
    return out


def _runs(doc: dict, checker: _Checker, data: bool) -> dict[str, StepRun]:
    runs = {}
    given = doc.get("runs")
    if not isinstance(given, dict):
        return runs
    csv_names = {r.get("csv") for r in given.values() if isinstance(r, dict) and isinstance(r.get("csv"), str)}
    if len(csv_names) > 1:
        checker.add(("runs",), gettext("a lesson has at most one CSV file; this one names {files}").format(
            files=", ".join(sorted(csv_names))))
    for name, run in given.items():
        path = ("runs", name)
        if not isinstance(run, dict) or not checker.clean(path) or not checker.whole(("runs",)):
            continue
        settings_given = run.get("settings", {})
        if not isinstance(settings_given, dict) or ("dataset" in run and "csv" in run):
            if "dataset" in run and "csv" in run:
                checker.add(path, gettext("give the data as either 'dataset' (a bundled dataset) or 'csv' (the "
                                          "lesson's CSV file), not both"))
            continue
        page = PAGES[run["page"]]
        settings_given = _data_source(page, run, dict(settings_given), checker, path)
        if settings_given is None:
            continue
        try:
            settings = page.settings(**_settings_values(page.kind, settings_given))
        except (TypeError, ValueError):
            continue  # the schema said which
        csv = None
        if "csv" in run:
            csv = _csv(run["csv"], checker, path + ("csv",))
            if csv is None:
                continue
        dataset = run.get("dataset") or run.get("csv") or ""
        if not isinstance(dataset, str) or (csv is None and dataset and dataset not in list_datasets()):
            continue
        step_run = StepRun(settings, dataset, page.result, csv)
        if data and (csv is not None or "csv" not in run):
            try:
                for problem in settings.problems(step_run.data() if csv is not None or not dataset
                                                 else load_dataset(dataset)):
                    checker.add(path + ("settings",), problem)
            except ValueError as exc:
                if csv is None:
                    checker.add(path + ("settings",), str(exc))
                else:
                    checker.add(path + ("csv",), gettext("{error} (A lesson's CSV names its label column "
                                                         "'label'.)").format(error=exc))
                continue
        runs[name] = step_run
    return runs


def _data_source(page, run: dict, settings: dict, checker: _Checker, path) -> dict | None:
    """The run's settings with its data settled (None: a problem was said): a run computes on its ``dataset`` or
    ``csv``, or, on a page that has data of its own (``source: demo``, ``source: madelon``), on that; never both,
    and never silently on the other one."""
    has_data = "dataset" in run or "csv" in run
    if page.own_data is None:
        if not has_data:
            checker.add(path, gettext("say which data the run computes on: 'dataset' (a bundled dataset: "
                                      "{datasets}) or 'csv' (your CSV file)").format(
                datasets=", ".join(list_datasets())))
            return None
        return settings
    default = next(f.default for f in dataclasses.fields(page.settings) if f.name == "source")
    source = settings.get("source")
    own = ", ".join(f"source: {k} ({gettext(v)})" for k, v in page.own_data.items())
    if has_data and source in page.own_data:
        given = "dataset" if "dataset" in run else "csv"
        checker.add(path + ("settings", "source"), gettext(
            "source: {source} computes on {data}, not on the run's {given}; leave out source (the run's {given} is "
            "used) or leave out {given}").format(source=source, data=gettext(page.own_data[source]), given=given))
        return None
    if has_data:
        settings["source"] = page.data_value()
    elif (source or default) not in page.own_data:
        checker.add(path, gettext("say which data the run computes on: 'dataset' (a bundled dataset) or 'csv' (your "
                                  "CSV file), or the page's own data: {own}").format(own=own))
        return None
    return settings


def _csv(name: str, checker: _Checker, path) -> bytes | None:
    """The lesson's CSV file ``name``, capped before it is parsed; None (and the problem said) when it is not at
    hand or too large."""
    raw = checker.csv_files.get(name)
    if raw is None:
        checker.add(path, gettext("the CSV file '{file}' is not there; put it next to the lesson file (or upload it "
                                  "with the lesson)").format(file=name))
        return None
    if len(raw) > CSV_MAX_BYTES:
        checker.add(path, gettext("'{file}' is {size} bytes; a lesson's CSV may have at most {limit} ({mib} "
                                  "MiB)").format(
            file=name, size=localised_number(f"{len(raw):,}"), limit=localised_number(f"{CSV_MAX_BYTES:,}"),
            mib=CSV_MAX_BYTES // 1024 // 1024))
        return None
    if raw[:2] == b"\x1f\x8b":
        checker.add(path, gettext("'{file}' is compressed (gzip); a lesson's CSV is plain text, so that its size says "
                                  "what it holds").format(file=name))
        return None
    breaks = raw.count(b"\n") + raw.count(b"\r") - raw.count(b"\r\n")  # LF, CRLF and CR alike
    rows = breaks + (not raw.endswith((b"\n", b"\r")))
    columns = re.split(rb"\r\n|\r|\n", raw, maxsplit=1)[0].count(b",") + 1
    if rows - 1 > CSV_MAX_ROWS or columns > CSV_MAX_COLUMNS:
        checker.add(path, gettext("'{file}' has {rows} rows and {columns} columns; a lesson's CSV may have at most "
                                  "{max_rows} rows and {max_columns} columns").format(
            file=name, rows=localised_number(f"{rows - 1:,}"), columns=localised_number(f"{columns:,}"),
            max_rows=localised_number(f"{CSV_MAX_ROWS:,}"), max_columns=CSV_MAX_COLUMNS))
        return None
    return raw


def _use(entry_map: dict, item, path, checker: _Checker, run: StepRun | None, key: str) -> Use | None:
    if not isinstance(item, dict) or not isinstance(item.get(key), str) or item[key] not in entry_map:
        return None
    entry = entry_map[item[key]]
    if run is not None and run.settings.kind not in entry.pages:
        checker.add(path + (key,), gettext("'{name}' reads a result of the {pages} page; this step's run is a {kind} "
                                           "run").format(name=entry.name, pages=_or(entry.pages),
                                                         kind=run.settings.kind))
        return None
    params = {k: v for k, v in item.items() if k not in (key, "caption")}
    if key == "check" and getattr(entry.build, "numeric", False) and not any(
            params.get(b) is not None for b in ("above", "below", "at_least", "at_most")):
        checker.add(path, gettext("'{name}' measures a number: say what it should be with above, below, at_least "
                                  "or at_most").format(name=entry.name))
    if run is not None:
        names = _method_names(entry, params, run)
        for bad in names:
            checker.add(path + (bad[0],), bad[1])
    return entry_use(entry, params)


def _method_names(entry: Entry, params: dict, run: StepRun) -> list[tuple[str, str]]:
    """The accuracy checks' method names that the run's result does not report."""
    if not entry.name.startswith("accuracy_"):
        return []
    have = PAGES[run.settings.kind].methods(run.settings)
    out = []
    for name in ("method", "other", "among"):
        for value in (params.get(name) if isinstance(params.get(name), list) else [params.get(name)]):
            if isinstance(value, str) and value not in have:
                out.append((name, gettext("'{method}' is not a method of this run; its methods: {methods}").format(
                    method=value, methods=", ".join(have))))
    return out


def _steps(doc: dict, checker: _Checker, runs: dict[str, StepRun]) -> list[Step]:
    """Each step's checks that the schema cannot make (its run named, its figures' and checks' pages and methods,
    the answer among the choices, the layout's rows), each on the parts the schema found right; the steps, when the
    whole file is right."""
    steps = []
    given = doc.get("steps")
    run_names = list(doc.get("runs", {})) if isinstance(doc.get("runs"), dict) else []
    if not isinstance(given, list) or not checker.whole(("steps",)):
        return steps
    for i, step in enumerate(given):
        path = ("steps", i)
        if not isinstance(step, dict):
            continue
        said = len(checker.problems)
        name = step.get("run", run_names[0] if len(run_names) == 1 else None)
        if not checker.clean(path + ("run",)):
            name = None
        elif name is None:
            checker.add(path, gettext("say which run the step shows ('run:'); the runs are {runs}").format(
                runs=", ".join(run_names)))
        elif name not in run_names:
            checker.add(path + ("run",), gettext("there is no run '{name}'; the runs are {runs}").format(
                name=name, runs=", ".join(run_names)))
        run = runs.get(name) if isinstance(name, str) else None
        figures = [_use(FIGURES, f, path + ("figures", j), checker, run, "figure") if checker.clean(
                   path + ("figures", j)) else None for j, f in enumerate(step.get("figures") or [])]
        checks = [_use(CHECKS, c, path + ("checks", j), checker, run, "check") if checker.clean(
                  path + ("checks", j)) else None for j, c in enumerate(step.get("checks") or [])]
        q = step.get("question")
        if checker.clean(path + ("question",)) and isinstance(q, dict) and q["answer"] > len(q["choices"]):
            checker.add(path + ("question", "answer"), gettext("the answer is the number of the right choice, 1 to "
                                                               "{n}; got {answer}").format(n=len(q["choices"]),
                                                                                            answer=q["answer"]))
        layout = step.get("layout") or []
        n_figures = len(step.get("figures") or []) if checker.clean(path + ("figures",)) else None
        if n_figures is not None and checker.clean(path + ("layout",)) and sum(layout) > n_figures:
            checker.add(path + ("layout",), ngettext("the rows hold {n} figure; the step has {figures}",
                                                     "the rows hold {n} figures; the step has {figures}",
                                                     sum(layout)).format(n=sum(layout), figures=n_figures))
        if run is None or None in figures or None in checks or not checker.clean(path) or len(checker.problems) > said:
            continue
        question = Question(q["prompt"], tuple(q["choices"]), q["answer"] - 1, q["why"])
        captions = tuple(f.get("caption", "") for f in step["figures"])
        steps.append(Step(step["title"], step["text"], run, tuple(figures), question, step["notice"],
                          step["mistake"], captions if any(captions) else (), tuple(layout), tuple(checks)))
    return steps


# ============================================================================================ export
class _Dumper(yaml.SafeDumper):
    """Long texts as folded blocks, short ones plain where YAML allows."""


def _str(dumper, value: str):
    if len(value) > 70 and "\n" not in value and value == value.strip() and "  " not in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=">")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def lesson_document(lesson: Lesson) -> dict:
    """A lesson as the plain data of its file (format 1): settings that differ from their defaults (the seed
    always), each run named after its page (``main`` when there is one)."""
    runs, names = {}, {}
    for run in lesson.runs():
        base = run.settings.kind if len(lesson.runs()) > 1 else "main"
        name, n = base, 2
        while name in runs:
            name, n = f"{base}-{n}", n + 1
        defaults = type(run.settings)()
        settings = {f.name: _plain(getattr(run.settings, f.name)) for f in dataclasses.fields(run.settings)
                    if f.name == "seed" or getattr(run.settings, f.name) != getattr(defaults, f.name)}
        if run.dataset and "source" in settings and settings["source"] == PAGES[run.settings.kind].data_value():
            del settings["source"]  # a run with its own dataset or CSV computes on it
        data = {} if not run.dataset else {"csv": run.dataset} if run.csv is not None else {"dataset": run.dataset}
        runs[name] = {"page": run.settings.kind, **data, "settings": settings}
        names[run] = name
    steps = []
    for i, step in enumerate(lesson.steps):
        q = step.question

        def said(key, text, j=None, i=i):  # a text, or one per language where the lesson has it in others
            return _per_language(lesson, text, lambda texts: texts["steps"][i][key] if j is None else
                                 texts["steps"][i][key][j])

        out = {"title": said("title", step.title), "text": said("text", step.text)}
        if len(runs) > 1:
            out["run"] = names[step.run]
        out["figures"] = [{"figure": use.name, **{k: said("figure_titles", v, j) if k == "title" else _plain(v)
                                                  for k, v in use.params if _differs(FIGURES, use, k, v)},
                           **({"caption": said("captions", step.captions[j], j)} if j < len(step.captions) and
                              step.captions[j] else {})}
                          for j, use in enumerate(step.figures)]
        if step.layout:
            out["layout"] = list(step.layout)
        out["question"] = {"prompt": said("prompt", q.prompt),
                           "choices": [said("choices", c, j) for j, c in enumerate(q.choices)],
                           "answer": q.answer + 1, "why": said("why", q.why)}
        out["notice"], out["mistake"] = said("notice", step.notice), said("mistake", step.mistake)
        if step.checks:
            out["checks"] = [{"check": use.name, **{k: _plain(v) for k, v in use.params if _differs(CHECKS, use, k, v)}}
                             for use in step.checks]
        steps.append(out)
    head = {"format": FORMAT, "id": lesson.id}
    if lesson.language != DEFAULT:
        head["language"] = lesson.language
    return {**head, "title": _per_language(lesson, lesson.title, lambda texts: texts["title"]),
            "summary": _per_language(lesson, lesson.summary, lambda texts: texts["summary"]), "runs": runs,
            "steps": steps}


def _per_language(lesson: Lesson, own: str, pick) -> str | dict:
    """A text of ``lesson`` as its file writes it: ``own`` alone, or one per language where the lesson has it in
    others (``pick(texts)`` reads it from a language's texts: None where that language lacks it)."""
    others = {code: pick(texts) for code, texts in lesson.translations.items()}
    others = {code: text for code, text in others.items() if text is not None}
    return {lesson.language: own, **others} if others else own


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def _differs(registry: dict, use: Use, name: str, value) -> bool:
    param = registry[use.name].param(name)
    return param is None or param.required or _plain(value) != _plain(param.default)


def export_lesson(lesson: Lesson) -> str:
    """A lesson as the text of its file (format 1); reading it back gives the same lesson."""
    head = (f"# mvlab lesson file, format {FORMAT}: the guide is docs/guide/lessons.md; check it with\n"
            "#   python -m mvlab lesson check FILE\n")
    return head + yaml.dump(lesson_document(lesson), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)

