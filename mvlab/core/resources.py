"""Where mvlab's files that are not Python code live: the bundled datasets (``sample_data/``), the papers'
reproduced cells that the Papers page reads (``docs/reproduction/*.csv``) and the dashboard (``app.py``,
``pages/``, its Streamlit settings ``.streamlit/config.toml``).

In a checkout they are at the repository's top, the layout its users asked for. A wheel carries copies of them
inside the package, under ``mvlab/_bundled/`` (``setup.py``'s build step puts them there), so an installed mvlab
finds them wherever it is run from.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PACKAGE", "BUNDLED", "CHECKOUT", "root", "path"]

PACKAGE = Path(__file__).resolve().parents[1]
"""The folder of the ``mvlab`` package."""
BUNDLED = PACKAGE / "_bundled"
"""Where a wheel's copies are (absent in a checkout)."""
CHECKOUT = PACKAGE.parent
"""The repository's top, in a checkout."""


def root() -> Path:
    """The folder holding ``sample_data/``, ``docs/reproduction/``, ``app.py`` and ``pages/``: the wheel's copies
    when this mvlab was installed from one, else the checkout's top."""
    return BUNDLED if BUNDLED.is_dir() else CHECKOUT


def path(*parts: str) -> Path:
    """A file or folder below :func:`root` (``path("sample_data", "mfeat.csv.gz")``)."""
    return root().joinpath(*parts)
