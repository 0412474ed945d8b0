"""Several server processes behind nginx (python -m mvlab serve): its configuration is valid nginx, a browser
stays on one process (the cookie), browsers spread over the processes, and a class round spans them: a student
on one process answers, the teacher on another counts it and moves the class, and the student moves."""

import os
import shutil
import subprocess
import urllib.request

import pytest

from mvlab.lessons import get_lesson
from mvlab.lessons.results import warm
from mvlab.store import ClassRounds, ResultsStore
from mvlab.ui.serve import COOKIE, nginx_config, serving
from streamlit_client import StudentSession

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
pytestmark = pytest.mark.skipif(NGINX is None and not os.environ.get("MVLAB_REQUIRE_BROWSER"),
                                reason="nginx is not installed (apt-get install nginx; .ci/run does it)")


def test_the_configuration_is_valid_nginx_that_keeps_a_browser_on_one_process(tmp_path):
    text = nginx_config([9001, 9002, 9003], "127.0.0.1:8600", tmp_path)
    assert text.count("server 127.0.0.1:90") == 3 and "hash $mvlab_sticky consistent" in text
    assert f"$cookie_{COOKIE}" in text and "proxy_set_header Upgrade $http_upgrade" in text
    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp_path / kind).mkdir()
    conf = tmp_path / "nginx.conf"
    conf.write_text(text)
    checked = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", str(tmp_path), "-e", str(tmp_path / "e.log")],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    with pytest.raises(ValueError, match="at least one"):
        nginx_config([], "127.0.0.1:8600", tmp_path)


def which_process(url: str, cookie: str | None = None) -> tuple[str, str]:
    """(the process that answered, the cookie the proxy set) for one request."""
    request = urllib.request.Request(url + "/_stcore/health", headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as r:
        ours = [c.split(";")[0] for c in r.headers.get_all("Set-Cookie") or [] if c.startswith(f"{COOKIE}=")]
        return r.headers["X-Mvlab-Server"], (ours or [""])[0]


def keys_for_each_process(url: str, processes: int) -> dict[str, str]:
    """A cookie that lands on each process (the proxy's hash is consistent: the same key, the same process)."""
    found = {}
    for i in range(200):
        cookie = f"{COOKIE}=key{i}"
        found.setdefault(which_process(url, cookie)[0], cookie)
        if len(found) == processes:
            return found
    raise AssertionError(f"200 keys reached only {sorted(found)}")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def two_processes(request, tmp_path_factory):
    """Two server processes behind nginx on one store: a SQLite file, then a PostgreSQL database (as on several
    machines, docs/guide/deploy.md)."""
    if request.param == "sqlite":
        store = str(tmp_path_factory.mktemp("serve") / "results.sqlite")
    else:
        from postgres_server import new_database

        store = new_database(request.getfixturevalue("postgres_url"))
    warm(get_lesson("ofsp"), ResultsStore(store), say=lambda line: None)
    mp = pytest.MonkeyPatch()
    mp.setenv("MVLAB_WORKERS", "1")  # the engine this test's serving() starts: one worker on 2 cores
    with serving(2, store=store, env={"MVLAB_WORKERS": "1"}, say=lambda line: None) as served:
        yield served, store
    mp.undo()


def test_a_browser_stays_on_one_process_and_browsers_spread_over_both(two_processes):
    served, _ = two_processes
    first, cookie = which_process(served.url)
    assert cookie.startswith(f"{COOKIE}=")  # a first request draws a key and keeps it in a cookie
    assert {which_process(served.url, cookie)[0] for _ in range(10)} == {first}
    assert len({which_process(served.url)[0] for _ in range(40)}) == 2  # fresh browsers land on both
    assert served.dead() is None and len(served.pids()) == 3  # two web servers and the proxy


def test_a_round_spans_the_processes_teacher_on_one_students_on_the_other(two_processes):
    served, store = two_processes
    on = keys_for_each_process(served.url, 2)
    teacher_process, student_process = sorted(on)
    lesson = get_lesson("ofsp")
    started = ClassRounds(store).start("ofsp")
    code, key = started.round.code, started.key
    teacher = StudentSession(served.url, "lessons", f"lesson=ofsp&step=2&teacher=1&round={code}&key={key}",
                             cookie=on[teacher_process])
    students = [StudentSession(served.url, "lessons", f"lesson=ofsp&step=2&round={code}",
                               cookie=on[student_process]) for _ in range(2)]
    for s, choice in zip(students, (0, 1)):
        s.choose(lesson.steps[1].question.prompt, choice)
        s.click("Send my answer")
        assert s.wait_for_text("Your answer is in", 60)
        s._read_until(lambda: False, 30)
    assert teacher.watch("2 answered", 10)  # counted on the other process, seen by the teacher's refresh
    teacher.click("Next step for everyone →")
    for s in students:  # woken by their own process's watch of the shared store
        s.texts = []
        s._read_until(lambda s=s: any(lesson.steps[2].title in t for t in s.texts), 10)
    assert not any(s.exceptions for s in students + [teacher])
    for s in students + [teacher]:
        s.close()
