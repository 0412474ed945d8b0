"""Lesson files (issue #70): the format's schema as committed, the built-in lessons round-tripping through their
export, every hostile file refused in words with its line (nothing computed, nothing stored, no file written), a
fuzzed loader that never fails otherwise, the added lessons' store and keys (SQLite and PostgreSQL), and the
``lesson`` command's check, export, add and delete."""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mvlab.cli import main
from mvlab.experiments.settings import ProximitySettings
from mvlab.lessons import LESSONS
from mvlab.lessons.added import add_lesson, find_lesson, forget, saved_lessons
from mvlab.lessons.lesson_file import LessonFileError, check_lesson_file, export_lesson, read_lesson
from mvlab.lessons.lesson_schema import SCHEMA_PATH, schema
from mvlab.store.saved_lessons import SavedLessonError, SavedLessons

EXAMPLES = Path(__file__).parents[1] / "mvlab" / "lessons" / "examples"
FIRST = (EXAMPLES / "first-lesson.yaml").read_bytes()


def test_the_committed_schema_is_the_one_the_registries_write():
    """The JSON Schema in the repository (and the docs) is the one :func:`schema` writes from the registries: a new
    figure, check or setting without the file regenerated fails here. Broken once: a figure added to the registry
    (``proximity.extra``) made the two differ."""
    assert json.loads(SCHEMA_PATH.read_text()) == schema(), (
        "regenerate: python -c \"import json; from mvlab.lessons.lesson_schema import schema, SCHEMA_PATH; "
        "SCHEMA_PATH.write_text(json.dumps(schema(), indent=1, ensure_ascii=False) + '\\n')\"")


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_a_built_in_lesson_reads_back_from_its_export(lesson_id):
    """``lesson export`` writes a file that reads back into the same lesson, step for step (texts, runs, figures
    and their parameters, checks); the built-in file itself is what the export writes. Broken once: the export
    dropping the figures' parameters that differ from their defaults failed on the DVS lesson's step 4."""
    lesson = LESSONS[lesson_id]
    text = export_lesson(lesson)
    back = read_lesson(text.encode(), f"{lesson_id}.yaml", builtin=True)
    assert back.steps == lesson.steps and (back.id, back.title, back.summary) == (lesson.id, lesson.title,
                                                                                  lesson.summary)


def _file(**change) -> bytes:
    """The guide's first lesson with some lines replaced (``old=new`` pairs as bytes)."""
    raw = FIRST
    for old, new in change.values():
        assert old in raw, old
        raw = raw.replace(old, new, 1)
    return raw


def _text(text: str) -> bytes:
    """The guide's first lesson with its first step's text replaced (written as a JSON string: YAML reads it)."""
    head, rest = FIRST.split(b"    text: A forest", 1)
    return head + b"    text: " + json.dumps(text).encode() + b"\n" + rest.split(b"\n", 1)[1]


ALIAS_BOMB = b"a: &a [x, x, x, x, x, x, x, x, x]\n" + b"".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n".encode()
    for i in range(9))
HOSTILE = {
    "a tag that would run code": (b"format: 1\nid: !!python/object/apply:os.system [echo hacked]\n",
                                  "hostile.yaml:2: tags (tag:yaml.org,2002:python/object/apply:os.system) are "
                                  "not allowed"),
    "an alias bomb": (ALIAS_BOMB, "hostile.yaml:1: anchors (&a) are not allowed"),
    "a 50 MB file": (b"format: 1\n" + b"#" * 50_000_000, "the file has more than 262,144 bytes (256 KiB), the most"),
    "10,000 steps": (FIRST.split(b"steps:")[0] + b"steps:\n" + b"  - 1\n" * 10_000,
                     "steps: has 10000 items; 1 to 12 are allowed"),
    "10,000 full steps": (FIRST.split(b"steps:")[0] + b"steps:\n" + b"  - {title: t, text: x}\n" * 10_000,
                          "the file holds more than 20,000 values"),
    "deep nesting": (b"format: 1\nid: " + b"[" * 5000 + b"]" * 5000 + b"\n", "nests lists and mappings more than 12"),
    "an unknown key": (_file(a=(b"    notice:", b"    colour: red\n    notice:")),
                       "step 1: unknown key 'colour'; allowed here: title, text, run, figures"),
    "a duplicate key": (_file(a=(b"    notice:", b"    title: again\n    notice:")),
                        "the key 'title' appears twice in one mapping"),
    "a NUL byte": (_file(a=(b"Dark cells", b"Dark\x00cells")), "control character (U+0000"),
    "invalid UTF-8": (_file(a=(b"Dark cells", b"Dark \xff\xfe cells")), "is not UTF-8 text"),
    "raw HTML": (_file(a=(b"Dark cells", b"<img src=x onerror=alert(1)> Dark cells")),
                 "step 1, text: raw HTML is not allowed"),
    "a javascript: link": (_file(a=(b"Dark cells", b"[Dark](javascript:alert(1)) cells")),
                           "step 1, text: links may only go to http(s) or mailto"),
    "an image from another host": (_file(a=(b"Dark cells", b"![x](https://evil.example/t.png) Dark cells")),
                                   "step 1, text: images are not allowed"),
    "parameters out of range": (_file(a=(b"n_estimators: 40", b"n_estimators: 1000000000")),
                                "n_estimators: must be from 1 to 200; got 1000000000"),
    "a figure that does not exist": (_file(a=(b"figure: proximity.heatmap", b"figure: proximity.sankey")),
                                     "figure: \"proximity.sankey\" is not allowed (did you mean proximity.map?); "
                                     "allowed: proximity.leaf_mates"),
    "a check that does not exist": (_file(a=(b"check: proximity.same_class_closer", b"check: looks_nice")),
                                    "check: \"looks_nice\" is not allowed; allowed: accuracy_within"),
    "an answer past the choices": (_file(a=(b"answer: 2", b"answer: 5")),
                                   "step 1, question, answer: the answer is the number of the right choice, 1 to 3"),
    "an image by reference": (_text('![logo][p] Dark cells\n\n[p]: https://e.example/p.png'),
                              "step 1, text: images are not allowed"),
    "a javascript: link as an entity": (_file(a=(b"Dark cells", b"[Dark](javascript&colon;alert(1)) cells")),
                                        "step 1, text: links may only go to http(s) or mailto"),
    "a data: link defined in a list": (_text("Dark cells\n\n- [n]: data:text/html,x"),
                                       "step 1, text: links may only go to http(s) or mailto"),
    "a text of 250,000 blank lines": (_file(a=(b"text: A forest", b"text: |\n      x" + b"\n" * 250_000 + b"      y\n"
                                                                   b"    title2: A forest")),
                                      "characters long; at most 2,000 are allowed"),
    "100 runs, each on a large dataset": (FIRST.replace(b"runs:\n", b"runs:\n" + b"".join(
        b"  r%d: {page: proximity, dataset: mnist-5000}\n" % i for i in range(100))), "runs: has 101 entries; 1 to 6"),
    "a number of 5,000 digits": (_file(a=(b"n_estimators: 40", b"n_estimators: " + b"9" * 5000)),
                                 "a number of 5,000 characters; a lesson file's numbers have at most 40"),
    "an escape past Unicode": (_file(a=(b"title: Do a", b'title: "\\UFFFFFFFF" Do a')), "this is not valid YAML"),
    "a figure of another page": (_file(a=(b"figure: proximity.heatmap", b"figure: siamese.levels")),
                                 "'siamese.levels' reads a result of the siamese page; this step's run is a "
                                 "proximity run"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_lesson_file_gets_its_message_in_words_with_its_line(case, monkeypatch):
    """Each hostile file of the issue's list gets a message naming the line and what is allowed, within 2 s, and
    nothing is computed (a page's run would raise). Broken once per guard: without the alias guard the bomb was
    refused only by the value cap (a different message); without the HTML check, the HTML case read as a lesson;
    without decoding entities, the ``&colon;`` link passed; with the data loaded for a file the schema refused, the
    100 runs took 59 s."""
    monkeypatch.setattr(ProximitySettings, "run", lambda *a, **k: pytest.fail("a check computed"))
    raw, words = HOSTILE[case]
    start = time.perf_counter()
    lesson, problems = check_lesson_file(raw, "hostile.yaml")
    assert time.perf_counter() - start < 2.0
    assert lesson is None and problems
    said = "\n".join(map(str, problems))
    assert words in said, said
    assert all(str(p).startswith("hostile.yaml") for p in problems)
    assert all(p.line for p in problems[:-1]) or case == "a 50 MB file"  # the file as a whole has no line
    assert len(problems) <= 51  # 50, then how many more
    assert "Traceback" not in said and "jsonschema" not in said


@pytest.mark.parametrize("old, new, words", [
    (b"n_estimators: 40", b'n_estimators: "40"', "n_estimators: must be a whole number"),
    (b"n_estimators: 40", b"n_estimators: 40.0", "n_estimators: must be a whole number; got 40.0"),
    (b"n_estimators: 40", b"n_estimators: null", "n_estimators: must be a whole number"),
    (b"view: mean", b"view: [mean]", "view: must be a text"),
    (b"page: proximity", b"page: [proximity]", "page: list is not allowed"),
    (b"figure: proximity.heatmap", b"figure: [proximity.heatmap]", "figure: list is not allowed"),
    (b"answer: 2", b"answer: 2.0", "answer: must be a whole number; got 2.0"),
    (b"      - figure: proximity.heatmap", b"      - figure: proximity.rows\n        after: [1.0, 2.0]",
     "must be a whole number; got 1.0"),
    (b"settings: {", b"settings: {seed: -1, ", "seed: must be from 0 to 4,294,967,295; got -1"),
    (b"settings: {", b"settings: {paper: true, ", "unknown key 'paper'"),
    (b"id: tumour-neighbours", b'id: "tumour-neighbours\\n"', "nothing else (no line break)"),
    (b"id: tumour-neighbours", b"id: proximity", "'proximity' is taken by mvlab itself"),
])
def test_a_value_of_the_wrong_kind_is_said_never_raised(old, new, words):
    """A value the schema refuses is said in words, and the checks that read values leave it alone: nothing raises
    (a hostile review found fourteen that did: a quoted number, a list where a name goes, a float where a count goes,
    a huge integer). Broken once: the semantic checks run on the schema's refused values (checker.clean bypassed)
    raised TypeError on the list-valued page."""
    raw = FIRST.replace(old, new, 1)
    assert raw != FIRST
    lesson, problems = check_lesson_file(raw, "kind.yaml")
    said = "\n".join(map(str, problems))
    assert lesson is None and words in said, said


def test_every_problem_is_said_at_once_each_with_its_line_and_field():
    """Five problems in one file: five messages, in the order of their lines, each naming the file, the line and
    the field. Broken once: stopping at the schema's first error gave one message."""
    raw = _file(a=(b"n_estimators: 40", b"n_estimators: 0"), b=(b"proximity.heatmap", b"proximity.heat"),
                c=(b"answer: 2", b"answer: 9"), d=(b"Dark cells", b"<b>Dark</b> cells"),
                e=(b"    notice: The highest", b"    notice: The highest\n    colour: red"))
    lesson, problems = check_lesson_file(raw, "five.yaml")
    lines = [p.line for p in problems]
    assert lesson is None and len(problems) >= 5 and lines == sorted(lines) and all(lines)
    fields = " | ".join(p.field for p in problems)
    for field in ("run 'forest', settings, n_estimators", "step 1, figure 1, figure", "step 1, text",
                  "step 1, question, answer", "step 2"):
        assert field in fields, fields
    assert "did you mean proximity.heatmap" in str(LessonFileError(problems))


def test_a_lessons_csv_is_capped_before_it_is_read():
    """A CSV of a million rows or of a million columns, or larger than 2 MiB, is refused before pandas reads it, and
    so are rows ended by CR alone and a gzip file (whose bytes say nothing of what it unpacks to: 497 KB became 256 MB
    and 4.8 GB of memory in a review); a missing one is named. Broken once: without the row count a 5,001-row CSV
    under 2 MiB was parsed."""
    raw = (EXAMPLES / "own-data.yaml").read_bytes()
    name = "tumours.csv"
    cases = {b"label,a.x\n" + b"1,2\n" * 1_000_000: "may have at most 2,097,152",
             b"label," + b",".join(b"a.x%d" % i for i in range(1_000)) + b"\n": "1,001 columns",
             b"label,a.x\n" + b"1,2\n" * 5_001: "5,001 rows",
             b"label,a.x\n" + b"1,2\r" * 100_000: "100,000 rows",  # rows ended by CR alone are rows too
             gzip.compress(b"label,a.x\n" + b"1,2\n" * 1_000_000): "is compressed (gzip)"}
    for csv, words in cases.items():
        _, problems = check_lesson_file(raw, "own-data.yaml", {name: csv})
        assert any(words in str(p) for p in problems), problems
    _, problems = check_lesson_file(raw, "own-data.yaml", {})
    assert "the CSV file 'tumours.csv' is not there" in str(problems[0])


LESSON_WORDS = [b"format: 1\n", b"id: abc\n", b"title: T\n", b"summary: S\n", b"runs:\n", b"  r:\n",
                b"    page: proximity\n", b"    dataset: breast-cancer\n", b"steps:\n", b"  - title: x\n",
                b"    figures: [{figure: proximity.map}]\n", b"!!python/name:os.system\n", b"&a [1]\n", b"*a\n",
                b"- [\n", b"{a: b}\n", b"\x00", b"\xff", b"\t", b"? x\n", b": y\n", b"---\n", b"'q\n",
                b"text: |\n  x\n"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(LESSON_WORDS), max_size=30) | st.binary(max_size=300))
def test_the_loader_never_fails_but_in_words(raw):
    """Property (Hypothesis): any bytes, and any sequence of lesson-file fragments (tags, anchors, aliases, flow
    brackets, NUL and invalid bytes, second documents), give a lesson or a list of problems in words, never an
    exception. Broken once: catching less than PyYAML's YAMLError (its scanner's and reader's errors escaped)."""
    raw = b"".join(raw) if isinstance(raw, list) else raw
    lesson, problems = check_lesson_file(raw, "fuzz.yaml")
    assert (lesson is None) == bool(problems)
    assert all(isinstance(p.message, str) and p.message for p in problems)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_valid_lesson_with_lines_changed_is_read_or_refused_in_words(data):
    """Property (Hypothesis): the guide's first lesson with lines deleted, duplicated or swapped reads into a
    lesson or gives problems with lines inside the file, never an exception."""
    lines = FIRST.splitlines(keepends=True)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["delete", "duplicate", "swap"]))
        if action == "delete" and len(lines) > 1:
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        else:
            j = data.draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
    raw = b"".join(lines)
    lesson, problems = check_lesson_file(raw, "changed.yaml")
    assert (lesson is None) == bool(problems)
    assert all(0 <= p.line <= len(lines) + 1 for p in problems)


def test_an_added_lesson_needs_its_key_to_change_and_never_shadows_a_built_in(store_location):
    """On SQLite and PostgreSQL: adding gives a key; adding the same id again without it is refused, with it
    changes the lesson (seen at once by this process); a built-in id or a word of the command is refused; deleting
    needs the key. Broken once: comparing the key's hash with == on a missing key (None) let any key delete."""
    added = add_lesson(FIRST, {}, "first.yaml", location=store_location)
    assert added.link == "/lessons?lesson=tumour-neighbours"
    assert find_lesson("tumour-neighbours", store_location).title == added.lesson.title
    changed = FIRST.replace(b"title: Do a forest's", b"title: Do the forest's")
    with pytest.raises(SavedLessonError, match="exists already; changing it needs the key"):
        add_lesson(changed, {}, "first.yaml", location=store_location)
    with pytest.raises(SavedLessonError, match="needs the key"):
        add_lesson(changed, {}, "first.yaml", key="not-the-key", location=store_location)
    assert add_lesson(changed, {}, "first.yaml", key=added.key, location=store_location).key == added.key
    assert find_lesson("tumour-neighbours", store_location).title.startswith("Do the forest's")
    store = SavedLessons(store_location, builtin=LESSONS)
    with pytest.raises(SavedLessonError, match="there is no saved lesson 'other-lesson' to change"):
        add_lesson(FIRST.replace(b"id: tumour-neighbours", b"id: other-lesson"), {}, key=added.key,
                   location=store_location)  # a key for an id not saved: its key would be lost
    for taken in ("dvs", "all", "check"):  # said by the check already, and by the store
        with pytest.raises(ValueError, match="is taken by mvlab itself"):
            add_lesson(FIRST.replace(b"id: tumour-neighbours", b"id: " + taken.encode()), {}, location=store_location)
    with pytest.raises(SavedLessonError, match="needs the key"):
        store.delete("tumour-neighbours", None)
    store.delete("tumour-neighbours", added.key)
    forget("tumour-neighbours", store_location)
    with pytest.raises(ValueError, match="There is no lesson 'tumour-neighbours'"):
        find_lesson("tumour-neighbours", store_location)
    assert store.titles() == {}


def test_an_added_lesson_with_its_own_csv_computes_on_it(tmp_path):
    """The guide's second lesson, on its own CSV: added with the CSV, found again from the store (the CSV
    travels with it), warmed, and each claim holds on the result computed from the CSV's rows."""
    from mvlab.lessons.step_results import step_contexts, warm
    from mvlab.store import ResultsStore

    location = str(tmp_path / "r.sqlite")
    csv = (EXAMPLES / "tumours.csv").read_bytes()
    raw = (EXAMPLES / "own-data.yaml").read_bytes()
    added = add_lesson(raw, {"tumours.csv": csv}, "own-data.yaml", location=location)
    saved = saved_lessons(location).get(added.lesson.id)
    assert saved.csv == csv and saved.csv_name == "tumours.csv"
    forget(added.lesson.id, location)
    lesson = find_lesson(added.lesson.id, location)
    store = ResultsStore(location)
    warm(lesson, store, say=lambda line: None)
    contexts = step_contexts(lesson, store)
    for step in lesson.steps:
        ctx = contexts[step.run]
        assert ctx.data.n_samples == csv.count(b"\n") - 1
        assert step.items(ctx) and all(holds for _, holds, _ in step.verdicts(ctx))


def test_the_lesson_command_checks_exports_adds_and_deletes(tmp_path, capsys):
    """``lesson check`` exits 0 or 1 with every problem and its line; ``export`` writes a built-in lesson that
    checks clean (or to standard output); ``add`` prints the id, the link and the key; ``--html`` writes an added
    lesson's handout; ``delete`` needs the key; a hostile file added leaves the store and the folder as they were."""
    store = str(tmp_path / "r.sqlite")
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_bytes(FIRST)
    bad.write_bytes(HOSTILE["parameters out of range"][0].replace(b"answer: 2", b"answer: 4"))
    assert main(["lesson", "check", str(good)]) == 0
    assert "no problem found" in capsys.readouterr().out
    assert main(["lesson", "check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "2 problems" in err and f"{bad}:9: run 'forest', settings, n_estimators" in err
    assert f"{bad}:18: step 1, question, answer" in err
    assert main(["lesson", "export", "ofsp", str(tmp_path / "ofsp.yaml")]) == 0
    assert main(["lesson", "check", str(tmp_path / "ofsp.yaml")]) == 1  # a built-in's id: give yours another
    assert "'ofsp' is taken by mvlab itself" in capsys.readouterr().err
    exported = (tmp_path / "ofsp.yaml").read_text().replace("id: ofsp\n", "id: my-ofsp\n")
    (tmp_path / "ofsp.yaml").write_text(exported)
    assert main(["lesson", "check", str(tmp_path / "ofsp.yaml")]) == 0
    capsys.readouterr()
    assert main(["lesson", "export", "siamese", "-"]) == 0
    assert capsys.readouterr().out.startswith("# mvlab lesson file, format 1")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["--store", store, "lesson", "add", str(bad)]) == 2
    assert "n_estimators: must be from 1 to 200" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no store file, nothing written
    assert main(["--store", store, "lesson", "add", str(good)]) == 0
    out = capsys.readouterr().out
    assert "its link: /lessons?lesson=tumour-neighbours" in out
    key = out.split("keep it): ")[1].split()[0]
    handout = tmp_path / "handout.html"  # --warm and --html take an added lesson's id as a built-in one's
    assert main(["--store", store, "lesson", "tumour-neighbours", "--html", str(handout), "--n-jobs", "1"]) == 0
    assert "tumour-neighbours: steps 1, 2, proximity on breast-cancer: computed in" in capsys.readouterr().err
    assert handout.read_text().count("<summary>Show the answer</summary>") == 2
    assert main(["--store", store, "lesson", "delete", "tumour-neighbours", "--key", "wrong"]) == 2
    assert main(["--store", store, "lesson", "delete", "tumour-neighbours", "--key", key]) == 0
    assert main(["lesson", "check"]) == 2 and "Name the lesson file" in capsys.readouterr().err


DVS_LESSON = """format: 1
id: dvs-on-csv
title: T
summary: S
runs:
  r:
    page: {page}
{data}    settings: {{{settings}}}
steps:
  - title: T
    text: X
    figures: [{{figure: {figure}}}]
    question: {{prompt: "Q?", choices: [a, b], answer: 1, why: W}}
    notice: N
    mistake: M
"""


def _lesson(page: str, data: str, settings: str) -> tuple:
    figure = {"dvs": "dvs.accuracy", "view_construction": "view_construction.k_lines"}.get(page, "proximity.map")
    raw = DVS_LESSON.format(page=page, data=data, settings=settings, figure=figure).encode()
    lesson, problems = check_lesson_file(raw, "run.yaml", {"tumours.csv": (EXAMPLES / "tumours.csv").read_bytes()})
    return lesson, " ".join(p.message for p in problems)


def test_a_run_computes_on_the_data_it_names_never_silently_on_other_data():
    """A teacher's DVS run on their CSV, with the page's default ``source`` (the region demo) left as it is, computes
    on the CSV; ``source: demo`` beside a CSV is refused in words; a run that names no data is refused where its
    page has none of its own, and computes on the page's own data where it has. Fails without the rule (tried:
    _data_source returning the settings as given: the DVS run computed on the region demo while its label said
    tumours.csv, as a new user of the guide found)."""
    lesson, said = _lesson("dvs", "    csv: tumours.csv\n", "n_estimators: 10")
    assert not said and lesson.runs()[0].data().n_samples == 240 and lesson.runs()[0].data().n_views == 2
    lesson, said = _lesson("dvs", "", "n_estimators: 10")
    assert not said and lesson.runs()[0].data().n_samples == 600  # the region demo
    _, said = _lesson("dvs", "    csv: tumours.csv\n", "source: demo")
    assert "source: demo computes on the region demo" in said and "leave out source (the run's csv is used)" in said
    _, said = _lesson("view_construction", "", "max_views: 3")
    assert "say which data the run computes on" in said and "source: madelon" in said
    _, said = _lesson("proximity", "", "view: mean")
    assert "say which data the run computes on: 'dataset'" in said


def test_an_answer_of_zero_is_said_once_and_rightly():
    """``answer: 0`` gets one message (at least 1), not also a range of choices the question does not have."""
    _, problems = check_lesson_file(FIRST.replace(b"answer: 2", b"answer: 0"), "zero.yaml")
    assert [p.message for p in problems] == ["must be at least 1"]
