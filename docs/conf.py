"""Sphinx configuration of mvlab's documentation site (``make docs``: docs/_build/html/index.html).

The guides are the Markdown files of docs/ (MyST), the API reference is generated from the numpydoc docstrings
(autosummary), and the gallery runs the scripts of examples/ (sphinx-gallery) at every build, so an example that
breaks fails the build (CI builds with warnings as errors).
"""

import shutil
from pathlib import Path

import plotly

import mvlab

ROOT = Path(__file__).resolve().parents[1]

project = "mvlab"
author = "the mvlab developers"
copyright = "2026, the mvlab developers"
release = version = mvlab.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# docs/reproduction/ and docs/bench/ hold data and bench outputs, linked from the pages, not pages themselves
exclude_patterns = ["_build", "reproduction", "bench", "screenshots", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.json", "auto_examples/*.md5"]

autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "colon_fence"]
# the guides link the committed data and bench outputs beside them (CSV, TXT): plain links on the site
suppress_warnings = ["myst.xref_missing", "myst.header"]

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "capture_repr": ("_repr_html_",),  # plotly figures, as the dashboard draws them
    "image_scrapers": (),  # no matplotlib: the figures are plotly's HTML
    "reset_modules": (),
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "pydata_sphinx_theme"
html_title = "mvlab"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
html_static_path = ["_static"]
html_extra_path = ["../mvlab/lessons/lesson.schema.json"]  # the lesson format's JSON Schema, published as is

# plotly.js from the installed plotly package, so the gallery's figures draw without a network
_static = Path(__file__).parent / "_static"
_static.mkdir(exist_ok=True)
shutil.copy(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", _static / "plotly.min.js")
html_js_files = ["plotly.min.js"]


def _skip_member(app, what, name, obj, skip, options):
    """Leave out what is scikit-learn's, not mvlab's: the metadata-routing methods every estimator gets
    (``set_fit_request``, ``get_metadata_routing``), names re-exported from scikit-learn (``mvlab.core.params``),
    and type aliases (``Combo = tuple[...]``), which autodoc cannot document as classes."""
    import types

    if name == "get_metadata_routing" or (name.startswith("set_") and name.endswith("_request")):
        return True
    if isinstance(obj, types.GenericAlias):
        return True
    module = getattr(obj, "__module__", "") or ""
    if module.startswith("sklearn."):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
