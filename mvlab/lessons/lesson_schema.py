"""The lesson file format's JSON Schema (format 1), written from the registries of figures and checks, the pages'
settings (their declared options, bounds and help) and the bundled datasets (:func:`schema`; committed as
``mvlab/lessons/lesson.schema.json`` and published with the docs), its limits (:data:`LIMITS`), and the reference
the teacher's guide prints (:func:`reference_markdown`), written from the same schema."""

from __future__ import annotations

import dataclasses
import functools
import json
import typing
from pathlib import Path

from mvlab.datasets.bundled import dataset_info, list_datasets, load_dataset
from mvlab.i18n import N_
from mvlab.i18n.languages import DEFAULT, LANGUAGES
from mvlab.lessons.check_registry import CHECKS
from mvlab.lessons.figure_registry import FIGURES
from mvlab.lessons.model import MAX_STEPS
from mvlab.lessons.pages import PAGES
from mvlab.lessons.parameters import Entry, Param
from mvlab.lessons.safe_yaml import MAX_BYTES, MAX_DEPTH, MAX_VALUES

__all__ = ["FORMAT", "SCHEMA_PATH", "ID_PATTERN", "CSV_PATTERN", "LIMITS", "CSV_MAX_BYTES", "CSV_MAX_ROWS",
           "CSV_MAX_COLUMNS", "schema", "reference_markdown"]

FORMAT = 1
SCHEMA_PATH = Path(__file__).with_name("lesson.schema.json")
ID_PATTERN = r"^[a-z][a-z0-9-]{2,39}$"
CSV_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}\.csv$"
LIMITS = {
    "file": f"{MAX_BYTES // 1024} KiB, UTF-8, no control characters, one YAML document, no tags, anchors or aliases, "
            f"nesting at most {MAX_DEPTH} deep, at most {MAX_VALUES:,} values",
    "steps": f"1 to {MAX_STEPS}",
    "runs": "1 to 6",
    "figures per step": "1 to 3",
    "checks per step": "0 to 6",
    "choices": "2 to 6",
    "title": "120 characters", "summary": "600 characters", "text": "2,000 characters",
    "languages": f"each text once, or once per language: {', '.join(LANGUAGES)}; the lesson's own among them",
    "a choice": "200 characters", "why, notice, mistake, caption": "600 characters",
    "csv": "one file per lesson, plain text (not compressed), 2 MiB, 5,000 rows, 500 columns",
    "computations": "below the pages' own bounds: at most 200 trees, 2,000 instances or features sampled, 1,000 "
                    "pairs, 10 views, 5 folds, 3 repetitions, 10 GA generations, 4 cascade levels; paper: false",
}
"""The limits of a lesson file, in words (the guide lists them)."""
CSV_MAX_BYTES = 2 * 1024 * 1024
CSV_MAX_ROWS = 5000
CSV_MAX_COLUMNS = 500

# ============================================================================================ the schema
def _text(limit: int, doc: str) -> dict:
    """A text a page shows: one text (in the lesson's own language), or one per language (``{en: ..., de: ...}``,
    :data:`mvlab.i18n.LANGUAGES`)."""
    plain = {"type": "string", "minLength": 1, "maxLength": limit}
    return {"anyOf": [plain, {"type": "object", "minProperties": 1, "propertyNames": {"enum": list(LANGUAGES)},
                              "additionalProperties": plain}], "description": doc}


def _param_schema(p: Param) -> dict:
    if p.name == "title" and p.type == "str":  # a figure's title: read by the reader, in their language
        return _text(300, p.help + ("" if p.default is None else f" Default: {_yaml_value(p.default)}."))
    base = {"int": {"type": "integer"}, "float": {"type": "number"}, "str": {"type": "string", "maxLength": 300},
            "bool": {"type": "boolean"}}
    kind = p.type[5:-1] if p.type.startswith("list[") else p.type
    item = dict(base[kind])
    if p.options is not None:
        item["enum"] = list(p.options)
    if p.range is not None:
        item["minimum"], item["maximum"] = p.range[0], p.range[1]
    out = ({"type": "array", "items": item, "minItems": 1, "maxItems": 50} if p.type.startswith("list[") else item)
    out["description"] = p.help + ("" if p.default is None else f" Default: {_yaml_value(p.default)}.")
    return out


def _yaml_value(value) -> str:
    return json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)


def _entry_schema(key: str, entry: Entry, extra: dict) -> dict:
    props = {key: {"const": entry.name}, **extra, **{p.name: _param_schema(p) for p in entry.params}}
    return {"if": {"properties": {key: {"const": entry.name}}, "required": [key]},
            "then": {"properties": props, "additionalProperties": False,
                     "required": [key] + [p.name for p in entry.params if p.required]}}


LESSON_CAPS = {"n_estimators": 200, "n_samples": 2000, "n_used": 2000, "madelon_n": 2000, "d_used": 2000,
               "n_pairs": 1000, "max_views": 10, "n_splits": 5, "n_repeats": 3, "inner_cv": 5, "ga_generations": 10,
               "max_levels": 4, "seed": 2 ** 32 - 1}
"""The largest value a lesson's run may set, below what a page allows: a step opened in class computes at once for
everyone, so a lesson's computations stay about a minute on a class server (the pages compute the rest); a seed
is what the libraries take (0 to 2**32 - 1). ``paper`` is off in a lesson (the paper's sizes take hours)."""


def _settings_schema(kind: str) -> dict:
    cls = PAGES[kind].settings
    hints = cls.field_types()
    props = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        meta = f.metadata
        if typing.get_origin(hint) is tuple:
            item_type = typing.get_args(hint)[0]
            item = {"type": "integer"} if item_type is int else {"type": "string"}
            if meta.get("options"):
                item["enum"] = list(meta["options"])
            if item_type is int:
                item["minimum"], item["maximum"] = 1, 64
            prop = {"type": "array", "items": item, "maxItems": 50, "uniqueItems": True}
        else:
            prop = {"type": {int: "integer", float: "number", bool: "boolean", str: "string"}[hint]}
            if meta.get("options"):
                prop["enum"] = list(meta["options"])
            if meta.get("range") is not None and hint is not bool:
                prop["minimum"], prop["maximum"] = meta["range"]
            if f.name in LESSON_CAPS:
                prop["minimum"] = max(prop.get("minimum", 0), 0)
                prop["maximum"] = min(prop.get("maximum", LESSON_CAPS[f.name]), LESSON_CAPS[f.name])
            if f.name == "paper":
                prop["const"] = False
            if hint is str:
                prop["maxLength"] = 300
        default = f.default if f.default is not dataclasses.MISSING else None
        help_text = meta.get("help") or ("The seed of every random choice." if f.name == "seed" else "")
        if f.name == "paper":
            help_text = "Off in a lesson: the paper's sizes take hours; a lesson's computations stay about a minute."
        elif f.name == "source" and PAGES[kind].own_data:
            own = "; ".join(f"{k}: {v}" for k, v in PAGES[kind].own_data.items())
            help_text = (f"In a lesson: leave it out; a run with dataset: or csv: computes on that data, a run "
                         f"without them on the page's own data ({own}).")
        elif f.name in PAGES[kind].settings.display_only:
            help_text += " No effect in a lesson: its figures name what they show."
        prop["description"] = (help_text + f" Default: {_yaml_value(default)}.").strip()
        props[f.name] = prop
    return {"type": "object", "additionalProperties": False, "properties": props,
            "description": f"The settings of the {PAGES[kind].title} page, by their names; those left out keep "
                           "their defaults."}


def schema() -> dict:
    """The JSON Schema of a lesson file, format 1, written from the registries of figures and checks, the pages'
    settings and the bundled datasets (the committed ``lesson.schema.json`` is this; a test compares them)."""
    run = {"type": "object", "required": ["page"], "additionalProperties": False,
           "description": "A computation: a page's settings on a bundled dataset or on the lesson's CSV file.",
           "properties": {"page": {"enum": list(PAGES), "description": "The page whose computation this is."},
                          "dataset": {"enum": list_datasets(), "description": "A bundled dataset."},
                          "csv": {"type": "string", "pattern": CSV_PATTERN,  # said by a problem: translated there
                                  "description": N_("The lesson's own CSV file (a header, a label column and columns "
                                                    "named view.feature), next to the lesson file.")},
                          "settings": {"type": "object", "description": "The page's settings by their names (see "
                                                                        "below); those left out keep their defaults."}},
           "allOf": [{"if": {"properties": {"page": {"const": kind}}, "required": ["page"]},
                      "then": {"properties": {"settings": {"$ref": f"#/$defs/settings-{kind}"}}}} for kind in PAGES]}
    figure = {"type": "object", "required": ["figure"],
              "properties": {"figure": {"enum": list(FIGURES), "description": "A figure's name."},
                             "caption": _text(600, "A sentence under the figure.")},
              "allOf": [_entry_schema("figure", e, {"caption": {"$ref": "#/$defs/caption"}}) for e in FIGURES.values()]}
    check = {"type": "object", "required": ["check"],
             "properties": {"check": {"enum": list(CHECKS), "description": "A check's name."}},
             "allOf": [_entry_schema("check", e, {}) for e in CHECKS.values()]}
    question = {"type": "object", "required": ["prompt", "choices", "answer", "why"], "additionalProperties": False,
                "properties": {"prompt": _text(300, "The question, asked before the figures are shown."),
                               "choices": {"type": "array", "minItems": 2, "maxItems": 6,
                                           "items": _text(200, "A choice."), "description": "The choices."},
                               "answer": {"type": "integer", "minimum": 1,
                                          "description": "The number of the right choice, counting from 1."},
                               "why": _text(600, "Why that answer: shown with it.")}}
    step = {"type": "object", "required": ["title", "text", "figures", "question", "notice", "mistake"],
            "additionalProperties": False,
            "properties": {"title": _text(120, "The step's title."),
                           "text": _text(2000, "What the step sets up (Markdown: bold, italics, lists, links; no "
                                               "HTML, no images)."),
                           "run": {"type": "string", "description": "The run whose result the figures show (a name "
                                                                    "under runs); may be left out when there is one."},
                           "figures": {"type": "array", "minItems": 1, "maxItems": 3,
                                       "items": {"$ref": "#/$defs/figure"}, "description": "What the step shows."},
                           "layout": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 3},
                                      "minItems": 1, "maxItems": 3,
                                      "description": "Figures per row: [1, 2] puts the first figure alone on a row, "
                                                     "the next two side by side; default one per row."},
                           "question": {"$ref": "#/$defs/question", "description": "The question asked before the "
                                        "figures are shown (below)."},
                           "notice": _text(600, "What to notice once the answer is shown."),
                           "mistake": _text(600, "One common mistake."),
                           "checks": {"type": "array", "maxItems": 6, "items": {"$ref": "#/$defs/check"},
                                      "description": "Claims the answer makes of the result, checked before class."}}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "mvlab-lesson-format-1",
        "title": "An mvlab lesson file, format 1",
        "type": "object",
        "required": ["format", "id", "title", "summary", "runs", "steps"],
        "additionalProperties": False,
        "properties": {
            "format": {"const": FORMAT, "description": "The format's version: 1."},
            "id": {"type": "string", "pattern": ID_PATTERN,  # said by a problem: translated there
                   "description": N_("The lesson's name in its link (/lessons?lesson=ID): 3 to 40 lower-case "
                                     "letters, digits and hyphens, starting with a letter.")},
            "language": {"enum": list(LANGUAGES), "description": "The language the lesson is written in: its texts "
                         "given once are in it, and a reader of a language a text lacks reads it there. Default: "
                         f"{DEFAULT}."},
            "title": _text(120, "The lesson's title."),
            "summary": _text(600, "One paragraph: what the lesson shows."),
            "runs": {"type": "object", "minProperties": 1, "maxProperties": 6,
                     "propertyNames": {"pattern": r"^[a-z][a-z0-9_-]{0,29}$"},
                     "additionalProperties": {"$ref": "#/$defs/run"},
                     "description": "The computations, by a name of your choice."},
            "steps": {"type": "array", "minItems": 1, "maxItems": MAX_STEPS, "items": {"$ref": "#/$defs/step"},
                      "description": "The steps, in order."},
        },
        "$defs": {"run": run, "figure": figure, "check": check, "question": question, "step": step,
                  "caption": _text(600, "A sentence under the figure."),
                  **{f"settings-{kind}": _settings_schema(kind) for kind in PAGES}},
    }


# ============================================================================================ reference
def reference_markdown() -> str:
    """The format's reference for the guide, written from :func:`schema` and the registries."""
    s = schema()
    out = ["## The format's reference", "", "Written from the lesson format's JSON Schema "
           "(`mvlab/lessons/lesson.schema.json`, published beside these pages as", "[lesson.schema.json]"
           "(../lesson.schema.json): an editor that reads JSON Schemas checks a lesson file as you type); a", "test "
           "fails when the two disagree.", "",
           "### The file", "", "| key | required | what |", "|---|---|---|"]
    for key, prop in s["properties"].items():
        out.append(f"| `{key}` | {'yes' if key in s['required'] else 'no'} | {prop.get('description', '')} |")
    for part, title in (("run", "A run (under `runs:`)"), ("step", "A step (under `steps:`)"),
                        ("question", "A question")):
        d = s["$defs"][part]
        out += ["", f"### {title}", "", "| key | required | what |", "|---|---|---|"]
        for key, prop in d["properties"].items():
            what = prop.get("description") or s["$defs"].get(prop.get("$ref", "#/$defs/")[8:], {}).get(
                "description", "")
            out.append(f"| `{key}` | {'yes' if key in d.get('required', []) else 'no'} | {what} |")
    out += ["", "### The bundled datasets", "", "A run's `dataset:`; a proximity run's `view:` is one of its views.",
            "", "| dataset | instances | features | classes | views |", "|---|---|---|---|---|"]
    for name, views in _dataset_views().items():
        info = dataset_info(name)
        out.append(f"| `{name}` | {info.n_samples} | {info.n_features} | {info.n_classes} | "
                   f"{', '.join(f'`{v}`' for v in views)} |")
    out += ["", "### Settings of each page", ""]
    for kind, page in PAGES.items():
        d = s["$defs"][f"settings-{kind}"]
        out += [f"**page: {kind}** ({page.title})", "", "| setting | allowed | what |", "|---|---|---|"]
        for key, prop in d["properties"].items():
            out.append(f"| `{key}` | {_allowed(prop)} | {prop['description']} |")
        out += ["", f"Its accuracies (the names `method`, `other` and `among` of the accuracy checks take): "
                    f"{page.accuracies_doc}", ""]
    notes = {"figure": "A figure's parameters go beside its name, e.g. `- {figure: dvs.subset_frequencies, method: "
                       "dvs-soft}`; every figure also takes `caption` (a sentence under it). A figure reads a result "
                       "of the page named after its first word.",
             "check": "A check's parameters go beside its name, e.g. `- {check: dvs.tie_rate, method: dvs, above: "
                      "0.9}`. A check that measures a number (those with `above`, `below`, `at_least` and `at_most`) "
                      "needs at least one of the four. `lesson check --compute` prints what each check measured."}
    for title, registry, key in (("Figures", FIGURES, "figure"), ("Checks", CHECKS, "check")):
        out += [f"### {title}", "", notes[key], ""]
        for entry in registry.values():
            out += [f"**`{key}: {entry.name}`** (page: {', '.join(entry.pages)}). {entry.doc}", ""]
            if entry.params:
                out += ["| parameter | allowed | what |", "|---|---|---|"]
                for p in entry.params:
                    out.append(f"| `{p.name}`{' (required)' if p.required else ''} | {p.allowed()} | "
                               f"{_param_schema(p)['description']} |")
                out.append("")
    out += ["### Limits", "", "| what | limit |", "|---|---|"]
    out += [f"| {what} | {limit} |" for what, limit in LIMITS.items()]
    return "\n".join(out) + "\n"


@functools.cache
def _dataset_views() -> dict[str, list[str]]:
    """Each bundled dataset's views (loaded once: the reference lists them)."""
    return {name: list(load_dataset(name).views) for name in list_datasets()}


def _allowed(prop: dict) -> str:
    if prop.get("type") == "array":
        item = prop["items"]
        return "a list of " + (", ".join(map(str, item["enum"])) if "enum" in item else
                               {"integer": "whole numbers", "string": "texts"}[item["type"]])
    if "enum" in prop:
        return ", ".join(map(str, prop["enum"]))
    words = {"integer": "a whole number", "number": "a number", "boolean": "true or false", "string": "a text"}
    said = words[prop["type"]]
    if "minimum" in prop:
        said += f" from {prop['minimum']:g} to {prop['maximum']:g}"
    return said
