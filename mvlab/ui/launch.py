"""``python -m mvlab.ui.launch run app.py [Streamlit's options]``: Streamlit's own command, with the dashboard's
server made ready when it starts instead of at its first visitor (``make run`` and ``mvlab serve`` start it so).

Streamlit runs nothing of an app before a browser opens it, so the first visitor of a fresh server used to wait for
what every server does once: the job engine's worker processes started and importing scikit-learn (about 2 s on two
cores), the pages' modules imported, on the same cores as that visitor's page, whose first Train then waited for
the workers (issue #72: 1.4 s before its progress bar; the first page's heading 4.0 s after the address was
opened). Here a thread does that work as soon as Streamlit's runtime exists (:func:`get_ready`): the engine
(:meth:`mvlab.engine.Engine.start_in_background`) and the web process settled
(:func:`mvlab.ui.web_process.settle`: Streamlit's insides checked, the pages' modules imported and frozen out of the
garbage collector), and says in the log when it is done (:data:`READY`), or why the engine could not start (the
pages then say it too, and try again at their next run). A visitor who comes earlier shares the cores with it, as
before; nothing else changes: ``streamlit run app.py`` still works, and starts the engine at the first page.
"""

from __future__ import annotations

import sys
import threading
import time

__all__ = ["READY", "get_ready", "main"]

READY = "mvlab: the server is ready"
"""The start of the line the log gets once the engine's workers have started and the pages' modules are imported
(the bench and the tests wait for it)."""


def get_ready(started: float, say=print, wait_for_server: float = 120.0) -> bool:
    """Once this process is a Streamlit server (its runtime exists; looked for every 50 ms up to
    ``wait_for_server`` seconds): start the job engine in the background, settle the web process, wait for the
    engine, then ``say`` the :data:`READY` line with the seconds since ``started`` (``time.monotonic()``), or why the
    engine did not start. True when ready."""
    from mvlab.engine import shared_engine
    from mvlab.ui import streamlit_insides as insides
    from mvlab.ui import web_process

    until = time.monotonic() + wait_for_server
    while not insides.a_real_server():
        if time.monotonic() > until:
            say("mvlab: Streamlit's server did not start: nothing was made ready ahead")
            return False
        time.sleep(0.05)
    try:
        engine = shared_engine()
    except ValueError as exc:  # a setting of the environment that does not parse: said by every page too
        say(f"mvlab: the job engine cannot start: {exc}")
        return False
    engine.start_in_background()
    web_process.settle()
    while not engine.ready() and engine.start_error is None:
        time.sleep(0.05)
    if engine.start_error is not None:
        say(f"mvlab: the job engine could not start ({engine.start_error}); the pages will try again")
        return False
    say(f"{READY} ({time.monotonic() - started:.1f} s after its start: the job engine's workers started, the pages' "
        "modules imported)")
    return True


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    """Streamlit's command line with ``argv`` (``run app.py ...``), the server made ready by a thread meanwhile."""
    from mvlab.ui.streamlit_insides import streamlit_command

    started = time.monotonic()
    threading.Thread(target=get_ready, args=(started, _say), daemon=True, name="mvlab-get-ready").start()
    return streamlit_command(argv)


if __name__ == "__main__":  # not when a worker process re-imports the main module (multiprocessing's spawn)
    raise SystemExit(main(sys.argv[1:]))
