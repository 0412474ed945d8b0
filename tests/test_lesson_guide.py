"""The teacher's guide to lesson files (docs/guide/lessons.md, issue #70): its examples are the files mvlab ships
(the editor's template among them) and run exactly as printed, its reference is the one the schema writes, and its
first lesson is at most 40 lines."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from mvlab.cli import main
from mvlab.lessons import EXAMPLES_DIR
from mvlab.lessons.lesson_schema import reference_markdown

GUIDE = Path(__file__).parents[1] / "docs" / "guide" / "lessons.md"


def blocks(marker: str) -> dict[str, str]:
    """The fenced block after each ``<!-- marker: NAME -->`` of the guide, by NAME."""
    text = GUIDE.read_text()
    return {m.group(1): m.group(2) for m in re.finditer(rf"<!-- {marker}: (\S+) -->\n```\w+\n(.*?)```", text, re.S)}


def test_the_guides_examples_are_the_shipped_files_and_its_reference_the_schemas():
    """Fails when an example in the guide and the file mvlab ships differ (tried: a step title changed in the guide
    alone), and when the reference is not the one written from the schema (tried: a figure's parameter's help
    changed in the registry without the guide)."""
    examples = blocks("example")
    assert set(examples) == {"first-lesson.yaml", "own-data.yaml"}
    for name, text in examples.items():
        assert text == (EXAMPLES_DIR / name).read_text(), name
    assert len(examples["first-lesson.yaml"].splitlines()) <= 40  # "a complete lesson of at most 40 lines"
    assert reference_markdown() in GUIDE.read_text(), "regenerate the guide's reference: reference_markdown()"


def test_the_guides_commands_run_as_printed(tmp_path, monkeypatch, capsys):
    """The guide's check commands, run as printed in a folder holding the guide's files: the file checks clean and
    its claims hold on the computed result (one computation per run), for the bundled data and for the CSV. Fails
    when a claim no longer holds (tried: the first lesson's check asking RFD to be the highest)."""
    for name in ("first-lesson.yaml", "own-data.yaml", "tumours.csv"):
        shutil.copy(EXAMPLES_DIR / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    commands = blocks("commands")["first-lesson.yaml"].splitlines()
    commands.append(".venv/bin/python -m mvlab lesson check own-data.yaml --compute")
    for line in commands:
        args = shlex.split(line.split("#")[0])
        assert args[:3] == [".venv/bin/python", "-m", "mvlab"], line
        assert main(args[3:]) == 0, (line, capsys.readouterr())
        out = capsys.readouterr().out
        assert "no problem found" in out and "DOES NOT HOLD" not in out
        if "--compute" in args:
            assert "holds:" in out


def test_the_lesson_a_new_user_wrote_from_the_guide_alone_still_checks_clean():
    """docs/bench/new-user-lesson/: a four-step DVS lesson on a CSV of its own, written by a reader of the guide
    alone (issue #70's trial; bench_class_round ran a round of 30 on it). A change of the format that breaks it
    fails here (tried: the run's csv with source: demo beside it, as its writer first had it implicitly)."""
    folder = Path(__file__).parents[1] / "docs" / "bench" / "new-user-lesson"
    assert main(["lesson", "check", str(folder / "patients-dvs.yaml")]) == 0
