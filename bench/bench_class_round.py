"""A class round on one machine: N students answer the same lesson step, the teacher watches and moves them on.

    python bench/bench_class_round.py                          # 30, 100 and 300 students, one server process
    python bench/bench_class_round.py --students 300 --processes 2
    python bench/bench_class_round.py --students 60 --profile /tmp/profile   # py-spy's view of the server
    python bench/bench_class_round.py --students 30 --lesson-file my-lesson.yaml   # a lesson of yours (#70)
    python bench/bench_class_round.py --students 300 --processes 2 --languages en,de,fr,es,ar   # #73, item 6

The server is ``streamlit run app.py`` as ``make run`` starts it (``--processes 1``), or ``python -m mvlab serve
--processes P``: P Streamlit processes on one job engine behind nginx, as a lecture hall runs it. Each size runs
on a fresh results store in which the DVS lesson was warmed first (``python -m mvlab lesson dvs --warm``, as a
teacher does before class), with a fresh server; with ``--lesson-file``, a teacher's lesson file is added to that
store first (``python -m mvlab lesson add FILE``, its CSV beside it), warmed the same way, and the class answers its
step 1 (the lesson needs three steps: the class is moved on twice). A round of the lesson is started; the
teacher's page opens the teacher's link at the step; the students open the students' link within
``--open-within`` seconds (a QR code on the projector), then answer within ``--answer-within`` seconds (each at a
random moment: choose an option, then *Send my answer*). Every student and the teacher is a session speaking
Streamlit's own protocol (``tests/streamlit_client.py``) as a browser does, without drawing; the students are spread
over ``--client-processes`` processes (threads in each), so that the harness is not the limit: they run on the same
two cores as the server, which a real class's phones do not.

Measured, on the issue's targets:

* answers counted: every student's answer is in the store, once (target: all);
* the teacher's view: from the server recording the last answer to the teacher's page showing "N answered"
  (target: 2 s);
* the next-step push: from the teacher's click on *Next step for everyone* to each student's page showing the
  next step's heading, the slowest student (target: 2 s);
* a page opening meanwhile: another session opens the Data page while the class answers, and again at the
  moment of the click (target: under 3 s; the server's side: a real browser adds its own drawing);
* sessions lost: students whose connection failed or never saw the next step (target: none);
* the server's CPU seconds (its web processes, not the engine's workers nor the students) from the first
  student's arrival to the last move, and its peak resident memory (web processes and proxy), each also per
  student; the server's CPU while the answered class waits ``WAIT`` seconds (a waiting student should cost
  nothing), and during the push, beside what the simulated students took of the same cores meanwhile;
* a woken student's rerun: the server's CPU per student woken by the reveal (made before the push) and by a second
  move (made ``LOOK`` + 2 s after it), each made as the teacher's buttons do but through the store, so that nothing
  else runs meanwhile (the server's idle rate taken off), against Streamlit's floor measured in the same run
  (``bench_streamlit_floor.floor``: its trivial fragment rerun at ``FLOOR_SESSIONS`` sessions, just before and just
  after the round, the lower compared; target: at most ``RATIO`` times it).

With ``--languages en,de,fr,es,ar`` the students are spread over those languages (student i reads the i-th
modulo their number, ``?lang=`` in the link, and finds the step's words, buttons and answer in it), and each size
runs twice in the same run: first a round in English only, then the round in those languages; the report gives the
woken student's rerun of the second against the first (target: at most ``LANGUAGE_RATIO`` times).

Prints a table; docs/bench/bench_class_round.txt keeps the latest output.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402
from _memory import MemoryPeak  # noqa: E402
from bench_streamlit_floor import floor  # noqa: E402

from browser import running_app  # noqa: E402
from streamlit_client import StudentSession  # noqa: E402

LESSON, STEP = "dvs", 2  # the step (1-based) everyone answers; the teacher then moves the class to STEP + 1
LESSON_FILE: Path | None = None  # --lesson-file: a teacher's lesson, added to each round's store (STEP is then 1)
PAGE_FILES = {"app.py", *(p.name for p in (ROOT / "pages").glob("*.py"))}
WAIT = 5.0  # seconds the answered class waits before the teacher moves it on (its server CPU is measured)
LOOK = 3.0  # seconds the class looks at the revealed answer before the teacher moves it on
RATIO = 1.5  # target: a woken student's rerun costs the server at most this many times Streamlit's floor
FLOOR_SESSIONS, FLOOR_SECONDS = 60, 10.0  # the floor measured in the same run: sessions, seconds
LANGUAGE_RATIO = 1.1  # target (#73): a woken student's rerun in a class of five languages against English only


def warm(store: Path) -> None:
    if LESSON_FILE is not None:
        subprocess.run([sys.executable, "-m", "mvlab", "--store", str(store), "lesson", "add", str(LESSON_FILE)],
                       cwd=ROOT, check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "mvlab", "--store", str(store), "lesson", LESSON, "--warm", "--n-jobs", "1"],
                   cwd=ROOT, check=True, capture_output=True)


def words_of(lesson, language: str) -> dict[str, str]:
    """What a student reading ``language`` finds on the round's pages: the step's question, the buttons, the
    answer's line and the next two steps' titles, in that language (the lesson's own where it lacks it)."""
    from mvlab.i18n import gettext, use_language

    shown = lesson.in_language(language)
    question = shown.steps[STEP - 1].question
    with use_language(language):
        return {"prompt": question.prompt, "send": gettext("Send my answer"),
                "sent": gettext("Your answer is in; wait for the discussion.").split(";")[0],
                "answer": gettext("**Answer: {answer}.**").format(
                    answer=f"({chr(97 + question.answer)}) {question.choices[question.answer]}").split(")")[0],
                "heading": shown.steps[STEP].title, "after": shown.steps[STEP + 1].title}


def one_student(url, code, place, words, open_at, answer_at, deadline, seed, out):
    """One student: open the link at ``open_at`` (in the language ``words["language"]``), answer at ``answer_at``,
    then wait for the answer, the next step (``words["heading"]``) and the step after it (``words["after"]``)."""
    rng, row = random.Random(seed), {}
    out[seed] = row
    try:
        time.sleep(max(0.0, open_at - time.time()))
        session = StudentSession(url, "lessons", f"{place}&round={code}&lang={words['language']}", timeout=120)
        row["opened"] = time.time()
        time.sleep(max(0.0, answer_at - time.time()))
        session.choose(words["prompt"], rng.randrange(3))
        session.click(words["send"])
        session.wait_for_text(words["sent"], 60)
        row["sent"] = time.time()
        for name, said in (("revealed", words["answer"]), ("moved", words["heading"]),
                           ("moved again", words["after"])):
            if session.watch(said, max(0.1, deadline - time.time())):
                row[name] = time.time()
        session.close()
    except Exception as exc:  # noqa: BLE001 - a lost session is counted, with its reason
        row["error"] = f"{type(exc).__name__}: {exc}"[:200]


def client_process(student, plans, queue):
    """Simulated students as threads of this process: ``student(*plan, out)`` for each plan, each writing its row
    into ``out`` (a dict, by its seed); ``out`` goes to ``queue`` once all have ended. ``student`` is a function of a
    module (a spawned process imports it)."""
    out: dict[int, dict] = {}
    threads = [threading.Thread(target=student, args=(*plan, out), daemon=True) for plan in plans]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put(out)


def start_clients(student, plans: list[tuple], clients: int):
    """``plans`` shared over ``clients`` spawned processes (:func:`client_process`); returns the processes and the
    queue their rows come back on (one dict per process)."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    workers = [ctx.Process(target=client_process, args=(student, plans[c::clients], queue)) for c in range(clients)]
    for w in workers:
        w.start()
    return workers, queue


class ServerLoad(MemoryPeak):
    """CPU seconds and peak resident memory of the server's web processes (and the proxy)."""

    def __init__(self, pids: list[int]):
        super().__init__(pids=pids, interval=0.25)
        self.cpu0 = self.cpu1 = 0.0
        self.rss0 = self._now()

    def cpu_now(self) -> float:
        return _cpu(self.procs)

    def start(self):
        self.cpu0, self.rss0 = self.cpu_now(), self._now()
        self.__enter__()

    def stop(self):
        self.cpu1 = self.cpu_now()
        self.__exit__(None, None, None)


@contextmanager
def server(store: Path, processes: int):
    """The dashboard on ``store``: one ``streamlit run`` (its pid) or ``mvlab serve`` (web pids and nginx)."""
    env = {"MVLAB_WORKERS": "1", "MVLAB_DASHBOARD": "off"}
    if processes == 1:
        with running_app(store, **env) as url:
            pid = next(p.pid for p in psutil.process_iter(["cmdline"]) if url.rsplit(":", 1)[1] in
                       " ".join(p.info["cmdline"] or []) and "streamlit" in " ".join(p.info["cmdline"] or []))
            yield url, [pid]
    else:
        with served_by_mvlab(store, processes, env) as served:
            yield served.url, served.pids()


@contextmanager
def served_by_mvlab(store, processes: int, env: dict, say=lambda line: None):
    """``mvlab serve``'s processes on ``store`` (a path or a URL): :func:`mvlab.deploy.serve.serving`'s
    :class:`~mvlab.deploy.serve.Served` (its processes, nginx, the supervisor), with ``env`` also set here while it runs
    (the engine that serving() starts in this process reads it)."""
    import os

    from mvlab.deploy.serve import serving

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with serving(processes, store=str(store), env=env, say=say) as served:
            yield served
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _cpu(procs) -> float:
    total = 0.0
    for p in procs:
        try:
            total += sum(p.cpu_times()[:2])
        except psutil.Error:
            continue
    return total


def timed_open(url: str, out: dict, name: str) -> None:
    t = time.time()
    try:
        StudentSession(url, "data", "dataset=breast-cancer", timeout=60).close()
        out[name] = time.time() - t
    except Exception:  # noqa: BLE001
        out[name] = float("nan")


def profile(pids: list[int], folder: Path, seconds: float) -> list[subprocess.Popen]:
    """py-spy sampling every web process for ``seconds`` (its ``--format raw`` output: collapsed stacks)."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        raise SystemExit("--profile needs py-spy: .venv/bin/pip install py-spy")
    folder.mkdir(parents=True, exist_ok=True)
    return [subprocess.Popen([spy, "record", "--pid", str(pid), "--rate", "50", "--duration", str(int(seconds)),
                              "--format", "raw", "--nonblocking", "-o", str(folder / f"server-{i + 1}.txt")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for i, pid in enumerate(pids)]


def _ours(frame: str) -> bool:
    """A frame of mvlab's code: py-spy names it ``function (mvlab/...py:line)``, a page or app.py by its name."""
    path = frame.split(" (", 1)[-1].split(":")[0]
    return path.startswith("mvlab/") or "/mvlab/" in path or path in PAGE_FILES


def profile_summary(path: Path, top: int = 8) -> list[str]:
    """Where a web process's busy samples went (py-spy's collapsed stacks; idle waits left out): the share of
    script runs, of the event loop, of the round watch, and the script runs' costliest lines of mvlab."""
    buckets: dict[str, int] = {}
    lines: dict[str, int] = {}
    busy = 0
    for row in path.read_text().splitlines():
        stack, _, count = row.rpartition(" ")
        if not stack or "EpollSelector.select" in stack or "Condition.wait" in stack:
            continue
        n, frames = int(count), stack.split(";")
        busy += n
        names = [f.split(" (")[0] for f in frames]
        if "ScriptRunner._run_script_thread" in names:
            bucket = "script runs" + (": app.py's pages" if "Page.__init__" in names else "")
            ours = [f for f in frames if _ours(f)]
            if ours:
                function, where = ours[-1].split(" (", 1)
                line = f"{function} ({where.rsplit('/', 1)[-1]}"
                lines[line] = lines.get(line, 0) + n
        elif "Watch._loop" in names:
            bucket = "the round watch"
        elif "distributed/" in stack:
            bucket = "the job engine's Dask scheduler and client in this process"
        elif "BaseEventLoop._run_once" in names:
            bucket = "Streamlit's event loop (websockets, messages, wakes)"
        else:
            bucket = "other threads"
        buckets[bucket] = buckets.get(bucket, 0) + n
    out = [f"{100 * n / busy:5.1f} %  {name}" for name, n in sorted(buckets.items(), key=lambda kv: -kv[1])]
    out += [f"{100 * n / busy:5.1f} %    in {name}" for name, n in sorted(lines.items(), key=lambda kv: -kv[1])[:top]]
    return out


def run_round(n: int, processes: int, clients: int, open_within: float, answer_within: float,
              profile_dir: Path | None, languages: tuple[str, ...] = ("en",)) -> dict:
    from mvlab.lessons import LESSONS
    from mvlab.lessons.added import lesson_files
    from mvlab.lessons.lesson_file import read_lesson
    from mvlab.store import ClassRounds

    if LESSON_FILE is None:
        lesson = LESSONS[LESSON]
    else:
        raw, csv_files = lesson_files(LESSON_FILE)
        lesson = read_lesson(raw, LESSON_FILE.name, csv_files)
    said = {code: dict(words_of(lesson, code), language=code) for code in languages}
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "results.sqlite"
        warm(store)
        started = ClassRounds(store).start(LESSON, step=STEP - 1)
        code, key = started.round.code, started.key
        with server(store, processes) as (url, pids):
            # proxies (nginx) are measured but not profiled
            teacher = StudentSession(url, "lessons", f"lesson={LESSON}&step={STEP}&teacher=1&round={code}&key={key}",
                                     timeout=300)
            load = ServerLoad(pids)
            load.start()
            begin = time.time() + 1.0
            answers_from = begin + open_within
            deadline = answers_from + answer_within + 120.0
            plan = [(i, begin + rng.uniform(0, open_within), answers_from + rng.uniform(0, answer_within))
                    for i in range(n)]
            spies = profile(pids[:processes], profile_dir / f"{n}-students", deadline - time.time()) \
                if profile_dir else []
            place = f"lesson={LESSON}&step={STEP}"
            workers, queue = start_clients(one_student, [(url, code, place, said[languages[s % len(languages)]], o,
                                                          a, deadline, s)
                                                         for s, o, a in plan], clients)
            seen: dict[str, float] = {}
            opens: dict[str, float] = {}

            def teacher_watches():  # the teacher's page refreshes its count by itself while the class answers
                if teacher.watch(f"{n} answered", answers_from + answer_within + 60 - time.time()):
                    seen["all"] = time.time()

            watcher = threading.Thread(target=teacher_watches)
            watcher.start()
            time.sleep(max(0.0, answers_from + answer_within / 2 - time.time()))
            timed_open(url, opens, "during the answers")
            watcher.join()
            rounds = ClassRounds(store)
            counted = sum(rounds.counts(code, STEP - 1).values())
            with rounds._connect() as conn:  # when the server recorded the last answer
                (last_answer,) = conn.exec_driver_sql("SELECT MAX(time) FROM class_answers WHERE code = ?",
                                                      (code,)).fetchone()
            waiting0 = load.cpu_now()  # the class waits for the discussion: what does a waiting student cost?
            time.sleep(WAIT)
            waiting = (load.cpu_now() - waiting0) / WAIT
            harness = [psutil.Process(w.pid) for w in workers]
            samples: list[tuple[float, float, float]] = []  # (time, server CPU s, students' CPU s) from the reveal
            sampling = threading.Event()

            def sample_push():
                while not sampling.wait(0.05):
                    samples.append((time.time(), load.cpu_now(), _cpu(harness)))

            samples.append((time.time(), load.cpu_now(), _cpu(harness)))
            sampler = threading.Thread(target=sample_push, daemon=True)
            sampler.start()
            revealed = time.time()  # as the teacher's button does: the woken students' reruns alone, measured
            rounds.reveal(code, key, STEP - 1)
            time.sleep(LOOK)
            clicked = time.time()
            opener = threading.Thread(target=timed_open, args=(url, opens, "at the next step"))
            opener.start()
            teacher.click("Next step for everyone →")
            time.sleep(LOOK + 2.0)
            again = time.time()  # the class moved on once more, as the teacher's button does: measured alone
            rounds.move_to(code, key, STEP + 1)
            rows: dict[int, dict] = {}
            for _ in workers:
                rows.update(queue.get())
            for w in workers:
                w.join()
            sampling.set()
            sampler.join()
            opener.join()
            load.stop()
            teacher.close()
            for s in spies:
                s.wait()
    moves = sorted(r["moved"] - clicked for r in rows.values() if "moved" in r)
    push_server, push_students = _during(samples, clicked, moves)
    errors = [r["error"] for r in rows.values() if "error" in r]
    return {"n": n, "processes": processes, "languages": languages, "counted": counted,
            "teacher": seen["all"] - last_answer if "all" in seen and last_answer else float("nan"),
            "moves": moves, "opens": opens, "lost": n - len(moves), "errors": errors,
            "cpu": load.cpu1 - load.cpu0, "peak": load.peak, "rss0": load.rss0,
            "push_cpu": (push_server, push_students), "waiting": waiting,
            "woken": {"reveal": _per_woken(samples, revealed, [r["revealed"] - revealed for r in rows.values()
                                                               if "revealed" in r], waiting),
                      "next step": _per_woken(samples, again, [r["moved again"] - again for r in rows.values()
                                                               if "moved again" in r], waiting)}}


def _during(samples: list[tuple[float, float, float]], start: float, delays: list[float]) -> tuple[float, float]:
    """Server and students' CPU seconds from ``start`` to the last of ``delays`` (seconds after it)."""
    end = start + (max(delays) if delays else 0.0)
    window = [x for x in samples if start - 0.05 <= x[0] <= end + 0.05] or \
        [min(samples, key=lambda x: abs(x[0] - start))]
    return window[-1][1] - window[0][1], window[-1][2] - window[0][2]


def _per_woken(samples, start: float, delays: list[float], idle: float) -> tuple[int, float]:
    """``(students woken, server CPU ms per woken student's rerun)`` for a change made at ``start`` that reached
    students after ``delays`` seconds: the server's CPU until the last, less what it spends meanwhile without it
    (``idle``: cores while the class waited)."""
    if not delays:
        return 0, float("nan")
    server, _ = _during(samples, start, delays)
    return len(delays), 1000 * max(0.0, server - idle * max(delays)) / len(delays)


def report(results: list[dict], clients: int, open_within: float, answer_within: float) -> None:
    print(f"students open the link within {open_within:.0f} s and answer within {answer_within:.0f} s; "
          f"{clients} client processes")
    print(f"{'students':>8} {'procs':>5} {'counted':>9} {'teacher (s)':>11} {'moved':>9} {'push p50/max (s)':>17} "
          f"{'page open (s)':>14} {'lost':>4} {'server CPU s':>12} {'ms/student':>10} {'peak MB':>8} "
          f"{'MB/student':>10}  targets")
    for r in results:
        n, moves = r["n"], r["moves"]
        push = f"{statistics.median(moves):.2f} / {max(moves):.2f}" if moves else "-"
        page = max(r["opens"].values()) if r["opens"] else float("nan")
        ok = (r["counted"] == n and r["teacher"] <= 2.0 and len(moves) == n and max(moves) <= 2.0 and page < 3.0
              and r["lost"] == 0)
        counted, moved = f"{r['counted']}/{n}", f"{len(moves)}/{n}"
        print(f"{n:>8} {r['processes']:>5} {counted:>9} {r['teacher']:>11.2f} "
              f"{moved:>9} {push:>17} {page:>14.2f} {r['lost']:>4} {r['cpu']:>12.1f} "
              f"{1000 * r['cpu'] / n:>10.0f} {r['peak'] / 1e6:>8.0f} {(r['peak'] - r['rss0']) / 1e6 / n:>10.2f}  "
              + ("met" if ok else "NOT met"))
        if r["languages"] != ("en",):
            print(f"         the students read {', '.join(r['languages'])} (spread evenly), the teacher English")
        print(f"         while the class waits: the server {100 * r['waiting']:.0f} % of a core; during the push: the "
              f"server {r['push_cpu'][0]:.1f} CPU s, the simulated students {r['push_cpu'][1]:.1f} CPU s "
              "(on the same cores)")
        print("         " + woken_words(r["woken"], r.get("floor")))
        if r.get("floors"):
            print("         Streamlit's floor before and after the round: " + " and ".join(
                f"{f['ms']:.2f} ms ({f['done']:.0f} of {f['asked']:.0f} reruns/s)" for f in r["floors"])
                  + "; the lower is the one compared")
        for e in sorted(set(r["errors"]))[:3]:
            print(f"         lost: {e}")
    print("targets: every answer counted once; the teacher's count within 2 s of the last answer; every student "
          "on the next step within 2 s; a page opens in under 3 s meanwhile; no session lost; a woken student's "
          f"rerun at most {RATIO}x Streamlit's floor measured in the same run")


def language_words(results: list[dict]) -> str:
    """Each size's woken student's rerun in the round of several languages against the English-only round run just
    before it, in words, with the target (``LANGUAGE_RATIO``)."""
    lines = []
    for english, spoken in zip(results[::2], results[1::2]):
        ratios = {what: spoken["woken"][what][1] / english["woken"][what][1] for what in english["woken"]}
        verdicts = ", ".join(f"{what} {ratio:.2f}x ({spoken['woken'][what][1]:.2f} ms against "
                             f"{english['woken'][what][1]:.2f} ms): {'met' if ratio <= LANGUAGE_RATIO else 'NOT met'}"
                             for what, ratio in ratios.items())
        lines.append(f"{english['n']} students in {', '.join(spoken['languages'])} against English only: a woken "
                     f"student's rerun {verdicts} (target {LANGUAGE_RATIO}x)")
    return "\n".join(lines)


def woken_words(woken: dict[str, tuple[int, float]], floor: dict | None) -> str:
    """The server's CPU per woken student's rerun (the reveal; the next step, measured on a second move made alone)
    against Streamlit's floor (bench_streamlit_floor's trivial rerun, measured just after the round), in words."""
    costs = ", ".join(f"{what} {ms:.2f} ms ({count} woken)" for what, (count, ms) in woken.items())
    if not floor:
        return f"a woken student's rerun costs the server: {costs}"
    ratios = {what: ms / floor["ms"] for what, (_, ms) in woken.items()}
    verdicts = ", ".join(f"{what} {ratio:.2f}x: {'met' if ratio <= RATIO else 'NOT met'}"
                         for what, ratio in ratios.items())
    return (f"a woken student's rerun costs the server: {costs}; Streamlit's floor in this run "
            f"{floor['ms']:.2f} ms per trivial rerun ({floor['sessions']} sessions, {floor['done']:.0f} of "
            f"{floor['asked']:.0f} reruns/s done); against the {RATIO}x target: {verdicts}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[30, 100, 300])
    parser.add_argument("--processes", type=int, default=1, help="server processes (more than 1: behind nginx)")
    parser.add_argument("--client-processes", type=int, default=4, help="processes the simulated students share")
    parser.add_argument("--open-within", type=float, default=30.0,
                        help="seconds over which the students open the link (default 30)")
    parser.add_argument("--answer-within", type=float, default=10.0,
                        help="seconds over which they answer, once all have opened it (default 10)")
    parser.add_argument("--profile", type=Path, default=None, metavar="DIR",
                        help="record each web process with py-spy into DIR/<N>-students/ (collapsed stacks)")
    parser.add_argument("--lesson-file", type=Path, default=None, metavar="FILE",
                        help="a teacher's lesson file (three steps or more), added to each round's store")
    parser.add_argument("--languages", default="en",
                        help="the students' languages, spread over them (e.g. en,de,fr,es,ar; default en): each size "
                             "then runs in English only first, and the two woken reruns are compared")
    args = parser.parse_args()
    from mvlab.i18n import LANGUAGES

    languages = tuple(c.strip() for c in args.languages.split(",") if c.strip())
    if not languages or any(c not in LANGUAGES for c in languages):
        parser.error(f"--languages: codes among {', '.join(LANGUAGES)}, not {args.languages!r}")
    if args.lesson_file is not None:
        global LESSON, STEP, LESSON_FILE
        from mvlab.lessons.added import lesson_files
        from mvlab.lessons.lesson_file import read_lesson

        raw, csv_files = lesson_files(args.lesson_file)
        lesson = read_lesson(raw, args.lesson_file.name, csv_files)
        if len(lesson.steps) < 3:
            parser.error(f"{args.lesson_file}: the bench moves the class on twice from step 1; the lesson has "
                         f"{len(lesson.steps)} steps, it needs 3 or more.")
        LESSON, STEP, LESSON_FILE = lesson.id, 1, args.lesson_file.resolve()
    print(f"bench_class_round: lesson {LESSON!r} step {STEP}, {args.processes} server process(es), "
          f"{psutil.cpu_count()} cores")
    results = []
    rounds = [("en",), languages] if languages != ("en",) else [languages]
    for n in args.students:
        for spoken in rounds:
            before = floor(FLOOR_SESSIONS, args.client_processes, FLOOR_SECONDS)  # Streamlit's floor, in this run
            results.append(run_round(n, args.processes, args.client_processes, args.open_within,
                                     args.answer_within, args.profile, spoken))
            after = floor(FLOOR_SESSIONS, args.client_processes, FLOOR_SECONDS)
            results[-1]["floors"] = (before, after)
            results[-1]["floor"] = min(before, after, key=lambda f: f["ms"])  # the stricter of the two
            print(f"  {n} students ({', '.join(spoken)}): done", flush=True)
    report(results, args.client_processes, args.open_within, args.answer_within)
    if len(rounds) > 1:
        print(language_words(results))
    if args.profile:
        for n in args.students:
            for spied in sorted((args.profile / f"{n}-students").glob("server-*.txt")):
                print(f"where {spied.stem}'s busy time went with {n} students (py-spy, {spied}):")
                print("\n".join(f"  {line}" for line in profile_summary(spied)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
