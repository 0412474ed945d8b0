"""What opening a page that shows a stored result costs the server, page by page.

    python bench/bench_page_opens.py [--opens 10]

One server (``streamlit run app.py`` with its embedded engine, as ``make run``).  Each training page is trained
once on breast cancer (seed 1), so that its result is in the results store; then ``--opens`` new sessions open
the page, one after another (Streamlit's own protocol: ``tests/streamlit_client.py``), each receiving the whole
result page.  It prints, per page, the median time to the whole page and the web server's CPU per open (the
Streamlit process: the page's script, its figures, sending it).  A class that opens a result pays this once per
student: the figures and the result read back from the store are built once per server.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the browser helpers of the test suite

import bench_classroom  # noqa: E402

from browser import running_app  # noqa: E402
from streamlit_client import StudentSession  # noqa: E402

QUERY = "dataset=breast-cancer&seed=1"
PAGES = {  # page: (its settings in the address beyond the data, words that only its result page shows)
    "dissimilarity": ("&n_estimators=60", "test instances, "),
    "dvs": ("&n_estimators=60", "made by the tie-break"),
    "view_construction": ("", "view ensembles in"),
    "siamese": ("", "test pairs from disjoint instance pools"),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opens", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp) / "results.sqlite", MVLAB_DASHBOARD="off") as url:
        keep = StudentSession(url, "home", "")  # a session stays open, as in a class (Streamlit keeps its script cache)
        pid = bench_classroom.server_pid(url)
        print(f"Opening a page whose result is stored (breast cancer, seed 1), {args.opens} new sessions one after "
              "another:\n")
        print("| page | training once | time to the whole page (median) | server CPU per open |")
        print("|---|---|---|---|")
        for page, (extra, shown) in PAGES.items():
            session = StudentSession(url, page, QUERY + extra, timeout=1800)
            started = time.perf_counter()
            session.click("Train")
            session._read_until(lambda s=session: s.finished)
            trained = time.perf_counter() - started
            session.close()
            times, cpu = [], bench_classroom.cpu_seconds(pid)
            for _ in range(args.opens):
                started = time.perf_counter()
                session = StudentSession(url, page, QUERY + extra)
                times.append(time.perf_counter() - started)
                if session.exceptions or not any(shown in text for text in session.texts):
                    raise RuntimeError(f"{page}: the stored result was not shown: {session.exceptions[:1]}")
                session.close()
            cpu = (bench_classroom.cpu_seconds(pid) - cpu) / args.opens
            print(f"| {page} | {trained:.1f} s | {1000 * statistics.median(times):.0f} ms | {1000 * cpu:.0f} ms |",
                  flush=True)
        keep.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
