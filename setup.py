"""The build step that puts the files mvlab needs besides its code into the wheel (everything else is in
pyproject.toml): the bundled datasets, the papers' reproduced cells, the dashboard and its settings, copied into
``mvlab/_bundled/`` of the wheel (``mvlab.core.resources`` finds them there), while the repository keeps them at
its top."""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLED = ["app.py", "pages/*.py", ".streamlit/config.toml", "sample_data/*.csv.gz", "sample_data/README.md",
           "docs/reproduction/*.csv", "LICENSE"]
"""Glob patterns, relative to the repository's top, of what a wheel carries under mvlab/_bundled/."""


class BuildWithBundledFiles(build_py):
    """``build_py``, then the files of ``BUNDLED`` copied into ``mvlab/_bundled/`` (not for an editable install,
    which reads them in place)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "mvlab" / "_bundled"
        for pattern in BUNDLED:
            found = sorted(HERE.glob(pattern))
            if not found:
                raise FileNotFoundError(f"setup.py: nothing matches {pattern!r} (the wheel would miss it)")
            for source in found:
                destination = target / source.relative_to(HERE)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, destination)


TRAVERSAL = Extension(
    "mvlab._compiled.traverse", ["mvlab/_compiled/traverse.c"],
    # no fused multiply-add: acc += w * v stays one product then one sum, as numpy computes it (bit for bit)
    extra_compile_args=["-O3", "-funroll-loops", "-ffp-contract=off"],
    # without a C compiler the install still succeeds, and mvlab.siamese._traverse takes its portable route
    optional=True,
)
"""The compiled traversal of compact forests (``mvlab.siamese._traverse``); plain C and the Python headers."""

setup(cmdclass={"build_py": BuildWithBundledFiles}, ext_modules=[TRAVERSAL])
