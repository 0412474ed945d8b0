"""The peers' own interpreters, shared by the bench scripts that run another library in its own venv (imported as
``from _venvs import venv_python``: a script's own folder is on ``sys.path``, also under the peers' interpreters).

``bench_peers`` (DF21 and DESlib in ``.venv-peers``, treeple in ``.venv-treeple``) and ``bench_proximity_peers``
(forestgeom, GPL, in ``.venv-forestgeom``) create each venv from its ``bench/requirements-*.txt`` when it is missing;
``make clean`` removes them all.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def venv_python(path: Path, requirements: str, imports: str, setup: bool) -> tuple[Path | None, str]:
    """A peer's interpreter ``path/bin/python``, creating the venv from ``bench/<requirements>`` when missing (unless
    ``setup`` is False); it must import ``imports`` (a comma-separated list of modules).  Returns ``(python, "")``,
    or ``(None, why)`` in words."""
    py = path / "bin" / "python"
    req = REPO / "bench" / requirements
    if not py.exists():
        if not setup:
            return None, f"{py} is missing (run without --no-setup to create it)"
        print(f"creating the venv {path} from {req.relative_to(REPO)} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        done = subprocess.run([str(py), "-m", "pip", "install", "-q", "-r", str(req)], capture_output=True, text=True)
        if done.returncode:
            return None, f"pip install -r bench/{requirements} failed:\n" + done.stderr[-2000:]
    check = subprocess.run([str(py), "-c", f"import {imports}"], capture_output=True, text=True)
    if check.returncode:
        return None, f"{path} cannot import {imports}:\n" + check.stderr[-2000:]
    return py, ""
