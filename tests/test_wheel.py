"""mvlab outside its checkout: the wheel carries the bundled datasets, the papers' reproduced cells, the dashboard
and its settings, the licence and an ``mvlab`` command; installed from it, mvlab loads every dataset from another
folder and ``mvlab dashboard`` serves the Papers page."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from browser import free_port
from conftest import ROOT
from streamlit_client import StudentSession


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    (found,) = out.glob("mvlab-*.whl")
    return found


def test_the_wheel_carries_the_data_the_dashboard_the_licence_and_the_command(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = [f"mvlab/_bundled/{p.relative_to(ROOT)}" for pattern in
                ("sample_data/*.csv.gz", "sample_data/README.md", "docs/reproduction/*.csv", "pages/*.py",
                 "app.py", ".streamlit/config.toml") for p in ROOT.glob(pattern)]
    assert len(expected) > 30 and not [e for e in expected if e not in names]
    prose = [str(p.relative_to(ROOT)) for p in ROOT.glob("mvlab/ui/text/*/*.md")]  # the pages' prose (page_text)
    assert prose and not [p for p in prose if p not in names]
    assert "mvlab/reproduction/report_template.md" in names  # reproduce report renders the report from it
    # the compiled traversal of compact forests, built for this platform (mvlab/_compiled/traverse.c)
    assert [n for n in names if n.startswith("mvlab/_compiled/traverse.") and n.endswith(".so")], sorted(names)[:20]
    dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert f"{dist_info}/licenses/LICENSE" in names
    with zipfile.ZipFile(wheel) as z:
        metadata = z.read(f"{dist_info}/METADATA").decode()
        entry_points = z.read(f"{dist_info}/entry_points.txt").decode()
    assert "License-Expression: BSD-3-Clause" in metadata
    assert "Provides-Extra: app" in metadata and "Provides-Extra: tests" in metadata
    assert "mvlab = mvlab.cli:main" in entry_points
    assert not [n for n in names if n.startswith(("tests/", "bench/", "mvlab/_bundled/tests"))]


def test_installed_from_the_wheel_it_loads_every_dataset_and_serves_the_papers_page_from_another_folder(
        wheel, tmp_path):
    site, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                                str(wheel)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr[-3000:]
    env = {**os.environ, "PYTHONPATH": str(site), "MVLAB_STORE": str(tmp_path / "results.sqlite")}
    loaded = subprocess.run(
        [sys.executable, "-c", "import mvlab; from mvlab import list_datasets, load_dataset; "
         "print(mvlab.__file__); print(sum(load_dataset(n).X.shape[0] > 0 for n in list_datasets()), "
         "len(list_datasets())); from mvlab.siamese import _traverse; print(_traverse.COMPILED, "
         "_traverse._compiled.__module__ if _traverse.COMPILED else '')"],
        cwd=elsewhere, env=env, capture_output=True, text=True)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    where, *counts, compiled, module = loaded.stdout.split()
    assert where.startswith(str(site)) and counts[0] == counts[1]  # the wheel's mvlab, every dataset loaded
    assert (compiled, module) == ("True", "mvlab._compiled.traverse")  # its own compiled traversal, not the checkout's

    port = free_port()
    log = (tmp_path / "dashboard.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "mvlab", "dashboard", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true"],
                            cwd=elsewhere, env={**env, "MVLAB_DASHBOARD": "off", "MVLAB_WORKERS": "1"},
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        from mvlab.deploy.serve import wait_healthy

        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, proc, "mvlab dashboard", tmp_path / "dashboard.log")
        page = StudentSession(url, "papers", timeout=120)
        page.close()
        assert not page.exceptions, page.exceptions
        assert any("Siamese" in t for t in page.texts) and any("OFSP" in t for t in page.texts)
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(20)
