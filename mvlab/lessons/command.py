"""The ``lesson`` command: ``lesson ID --warm`` computes a lesson's results into the store, ``--html PATH`` writes its
handout; ``lesson check FILE`` (every problem with its line; ``--compute`` says whether each claim holds),
``lesson export ID FILE|-``, ``lesson add FILE [--key KEY]`` and ``lesson delete ID --key KEY`` for lesson files
(docs/guide/lessons.md)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from mvlab.store import ResultsStore

__all__ = ["LESSON_VERBS", "add_lesson_command", "cmd_lesson"]


def add_lesson_command(sub, scheduler_help: str) -> None:
    """The ``lesson`` subcommand on the command line's subparsers ``sub``."""
    les = sub.add_parser("lesson", help="prepare a lesson for class (--warm), write its handout (--html), or check, "
                         "export, add or delete a lesson file (docs/guide/lessons.md)",
                         description="lesson ID --warm | --html PATH; lesson check FILE [--compute]; lesson export "
                                     "ID FILE|-; lesson add FILE [--key KEY]; lesson delete ID --key KEY")
    les.add_argument("words", nargs="*", metavar="ID | VERB ...",
                     help="a lesson's id (proximity, dvs, ofsp, siamese, an added one, or 'all' with --warm), or "
                          "check FILE, export ID FILE, add FILE, delete ID")
    les.add_argument("--compute", action="store_true", help="with check: compute each step here and say whether "
                     "each claim holds on the result")
    les.add_argument("--key", default=None, help="with add: the key of the lesson to change; with delete: its key")
    les.add_argument("--warm", nargs="?", const=True, default=False, metavar="all",
                     help="compute every step's results into the results store (--warm all: every lesson)")
    les.add_argument("--html", metavar="PATH", help="write the lesson as one self-contained HTML file (figures "
                     "embedded, opens without a server or network); computes missing results first")
    les.add_argument("--language", default="en", metavar="CODE",
                     help="with --html: the handout's language (en, de, fr, es, ar; the lesson's own where it lacks "
                          "that one's texts)")
    les.add_argument("--n-jobs", type=int, default=-1, help="1 computes here, without the job engine")
    les.add_argument("--scheduler", default=None, help=scheduler_help)
    les.set_defaults(func=cmd_lesson)


LESSON_VERBS = ("check", "export", "add", "delete")
"""The ``lesson`` command's verbs (``lesson check FILE``...); any other first word is a lesson's id."""


def cmd_lesson(args) -> int:
    """A lesson file checked (``check``), exported (``export``), added to the store (``add``) or deleted
    (``delete``); a lesson's results warmed into the store (``--warm``) and/or its handout written (``--html``)."""
    words = list(args.words)
    if words and words[0] in LESSON_VERBS:
        verb, rest = words[0], words[1:]
        return {"check": _lesson_check, "export": _lesson_export, "add": _lesson_add,
                "delete": _lesson_delete}[verb](args, rest)
    if len(words) > 1:
        raise ValueError(f"'lesson {' '.join(words)}': name one lesson, or use a verb: {', '.join(LESSON_VERBS)} "
                         "(e.g. lesson check my-lesson.yaml).")
    return _lesson_prepare(args, words[0] if words else None)


def _lesson_files(name: str) -> tuple[bytes, dict[str, bytes]]:
    from mvlab.lessons.added import lesson_files

    path = Path(name)
    if not path.is_file():
        raise ValueError(f"{name}: there is no such file.")
    return lesson_files(path)


def _lesson_check(args, files: list[str]) -> int:
    """``lesson check FILE...``: every problem of each file with its line, exit 1 if any (no computation); with
    ``--compute``, also compute each step (here) and say whether each claim holds on the result."""
    from mvlab.lessons.lesson_file import check_lesson_file

    if not files:
        raise ValueError("Name the lesson file to check: lesson check my-lesson.yaml")
    bad = 0
    for name in files:
        raw, csv_files = _lesson_files(name)
        lesson, problems = check_lesson_file(raw, name, csv_files)
        if problems:
            bad += 1
            print(f"{name}: {len(problems)} problem{'s' * (len(problems) > 1)}:", file=sys.stderr)
            for problem in problems:
                print(f"  {problem}", file=sys.stderr)
            continue
        print(f"{name}: lesson '{lesson.id}', {len(lesson.steps)} step{'s' * (len(lesson.steps) > 1)}, "
              f"{len(lesson.runs())} computation{'s' * (len(lesson.runs()) > 1)}: no problem found.")
        if args.compute and not _claims_hold(lesson):
            bad += 1
    return 1 if bad else 0


def _claims_hold(lesson) -> bool:
    """Compute each run of ``lesson`` here (nothing stored) and print, step by step, what each figure shows in words
    (:func:`mvlab.viz.describe.describe`; a table's first rows) and whether each claim holds with what it measured
    (the numbers to write claims from). All on standard output, in order; a summary on standard error."""
    import pandas as pd

    from mvlab.lessons.model import StepContext
    from mvlab.viz.describe import describe

    contexts, failed = {}, 0
    for run in lesson.runs():
        data = run.data()
        start = time.perf_counter()
        contexts[run] = StepContext(run.settings.run(data), data, run.settings)
        print(f"  computed {run.label} in {time.perf_counter() - start:.1f} s")
    for number, step in enumerate(lesson.steps, 1):
        print(f"  step {number} ({step.title}):")
        try:
            items = step.items(contexts[step.run])
            verdicts = step.verdicts(contexts[step.run])
        except ValueError as exc:
            print(f"    cannot be shown on this result: {exc}")
            failed += 1
            continue
        for use, item in zip(step.figures, items):
            said = item.head(6).to_string(index=False) if isinstance(item, pd.DataFrame) else \
                describe(item).sentence
            print(f"    {use.name}: " + said.replace("\n", "\n      "))
        for use, holds, measured in verdicts:
            failed += not holds
            print(f"    {use.name}: {'holds' if holds else 'DOES NOT HOLD'}: {measured}")
    if failed:
        print(f"{lesson.id}: {failed} claim{'s' * (failed > 1)} or step{'s' * (failed > 1)} do not hold on the "
              "computed result (above).", file=sys.stderr)
    return not failed


def _lesson_export(args, rest: list[str]) -> int:
    """``lesson export ID FILE``: a built-in lesson as a file (an added one: its file as saved, and its CSV file
    beside it); ``-`` writes to standard output."""
    from mvlab.lessons import LESSONS
    from mvlab.lessons.added import find_lesson, saved_lessons
    from mvlab.lessons.lesson_file import export_lesson

    if len(rest) != 2:
        raise ValueError("Name the lesson and the file: lesson export dvs my-lesson.yaml (- for standard output).")
    lesson_id, target = rest
    lesson = find_lesson(lesson_id, args.store)
    saved = None if lesson_id in LESSONS else saved_lessons(args.store).get(lesson_id)
    text = export_lesson(lesson) if saved is None else saved.text
    if target == "-":
        sys.stdout.write(text)
        return 0
    path = Path(target)
    if not path.parent.exists():
        raise ValueError(f"{target}: the folder {path.parent} does not exist.")
    path.write_text(text, encoding="utf-8")
    print(f"lesson '{lesson.id}' written to {path}")
    if saved is not None and saved.csv_name is not None:
        (path.parent / saved.csv_name).write_bytes(saved.csv)
        print(f"its data written to {path.parent / saved.csv_name}")
    return 0


def _lesson_add(args, rest: list[str]) -> int:
    """``lesson add FILE [--key KEY]``: the file checked, then stored with its CSV file; prints its id, link and
    key."""
    from mvlab.lessons.added import add_lesson

    if len(rest) != 1:
        raise ValueError("Name one lesson file: lesson add my-lesson.yaml")
    raw, csv_files = _lesson_files(rest[0])
    added = add_lesson(raw, csv_files, rest[0], key=args.key, location=args.store)
    print(f"lesson '{added.lesson.id}' added to {ResultsStore(args.store).shown}\n  its link: {added.link}")
    if args.key is None:
        print(f"  its key (changing or deleting it needs it; keep it): {added.key}")
    return 0


def _lesson_delete(args, rest: list[str]) -> int:
    """``lesson delete ID --key KEY``."""
    from mvlab.lessons.added import forget, saved_lessons

    if len(rest) != 1 or args.key is None:
        raise ValueError("Name the lesson and give its key: lesson delete my-lesson --key KEY")
    saved_lessons(args.store).delete(rest[0], args.key)
    forget(rest[0], args.store)
    print(f"lesson '{rest[0]}' deleted.")
    return 0


def _lesson_prepare(args, wanted: str | None) -> int:
    """Warm a lesson's results into the store (``--warm``) and/or write its handout (``--html``)."""
    from mvlab.i18n import LANGUAGES, use_language
    from mvlab.lessons import LESSONS
    from mvlab.lessons.added import find_lesson
    from mvlab.lessons.handout import render_handout
    from mvlab.lessons.step_results import step_contexts, warm

    wanted = "all" if "all" in (args.warm, wanted) else wanted
    if wanted is None:
        raise ValueError(f"Name a lesson ({', '.join(LESSONS)}, or one added to the store) or use --warm all; to "
                         f"check, export, add or delete a lesson file: lesson {'|'.join(LESSON_VERBS)} ...")
    lessons = list(LESSONS.values()) if wanted == "all" else [find_lesson(wanted, args.store)]
    if not args.warm and not args.html:
        raise ValueError("Say what to do: --warm (compute every step's results into the store) and/or --html PATH.")
    if args.html and len(lessons) != 1:
        raise ValueError("--html writes the handout of one lesson: name it (e.g. lesson dvs --html dvs.html).")
    if args.language not in LANGUAGES:
        raise ValueError(f"--language {args.language!r}: one of {', '.join(LANGUAGES)}.")
    store = ResultsStore(args.store)
    store.sweep_orphans()
    engine = None
    if args.n_jobs != 1:
        from mvlab.engine import Engine, EngineConfig, shared_engine

        engine = Engine(EngineConfig.from_env({"MVLAB_SCHEDULER": args.scheduler})) if args.scheduler \
            else shared_engine()
    try:
        for lesson in lessons:  # --html computes what is missing too: a handout shows every step's figures
            fates = warm(lesson, store, engine, say=lambda line: print(line, file=sys.stderr))
            if any(f.startswith("failed") for f in fates.values()):
                return 1
    finally:
        if args.scheduler and engine is not None:
            engine.close()
    if args.html:
        path = Path(args.html)
        if path.parent and not path.parent.exists():
            raise ValueError(f"--html {args.html}: the folder {path.parent} does not exist.")
        with use_language(args.language):
            handout = render_handout(lessons[0].in_language(args.language), step_contexts(lessons[0], store))
        path.write_text(handout, encoding="utf-8")
        print(f"handout of lesson '{lessons[0].id}' ({args.language}) written to {path} "
              f"({path.stat().st_size / 1e6:.1f} MB)")
    else:
        print(f"{len(lessons)} lesson(s) ready in {store.shown}: every step opens without training.")
    return 0
