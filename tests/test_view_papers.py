"""mvlab.ui.views.papers_page: the Papers page is built from the reading registry, the coverage tables and the palette
alone (AppTest of the view's parts, on committed files written here or handed in)."""

import ast
import dataclasses
import re
from types import SimpleNamespace

import pandas as pd
from plotly.colors import hex_to_rgb
from streamlit.testing.v1 import AppTest

from conftest import ROOT
from mvlab.reproduction import registry, writer
from mvlab.reproduction.coverage import PAPER_NAMES
from mvlab.viz import palette

SOURCES = [ROOT / "pages" / "papers.py", ROOT / "mvlab" / "ui" / "views" / "papers_page.py"]


def test_the_page_names_no_reading_and_no_colour_of_its_own():
    """Fails when the page or its view writes a reading's name or a colour (tried: read_cells("sdf-paper") written
    back into sdf_protocol, and "#fbe0c4" for the outside verdict)."""
    for path in SOURCES:
        strings = [n.value for n in ast.walk(ast.parse(path.read_text()))
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        named = [s for s in strings for name in registry.READINGS if re.search(rf"\b{re.escape(name)}\b", s)]
        colours = [s for s in strings if re.search(r"#[0-9a-fA-F]{3,8}\b|rgba?\(\s*\d", s)]
        assert not named and not colours, (path.name, named, colours)


def test_each_verdict_is_shaded_in_its_palette_colour():
    """Fails when a verdict takes another colour than the palette's (tried: inside shaded in palette.RED)."""
    from mvlab.ui.views.papers_page import SHADE, coloured

    frame = pd.DataFrame({"paper": [0.9, 0.8, 0.7, float("nan")], "mvlab": [0.91, 0.5, 0.6, 0.7],
                          "paper's value": ["inside", "outside", "outside (inside one draw's)", "no paper value"]})
    html = coloured(frame).to_html()
    for verdict, colour in (("inside", palette.GREEN), ("outside", palette.RED),
                            ("outside (inside one draw's)", palette.ORANGE)):
        shade = "rgba({}, {}, {}, {})".format(*hex_to_rgb(colour), SHADE)
        cell = re.search(rf"#(T_\w+_row\d+_col2)[^}}]*{re.escape(shade)}", html)
        assert cell, (verdict, shade)
        assert re.search(rf'id="{cell.group(1)}"[^>]*>{re.escape(verdict)}<', html), verdict
    assert html.count("rgba(") == 3  # "no paper value" is not shaded


def draw_view():
    from mvlab.ui.views import papers_page

    papers_page.view(None)


def test_without_committed_files_every_paper_has_its_tab_and_says_which_command_makes_its_cells(tmp_path,
                                                                                                monkeypatch):
    """Fails when a paper of the coverage tables gets no tab, or its protocol's command does not come from the
    registry (tried: the tabs from registry.PAPERS, which lacks the dynamic-view-selection paper)."""
    monkeypatch.setattr(writer, "REPRODUCTION_DIR", tmp_path)
    at = AppTest.from_function(draw_view, default_timeout=60).run()
    assert not at.exception, at.exception
    assert [t.label for t in at.tabs] == list(PAPER_NAMES.values())
    infos = " ".join(i.value for i in at.info)
    for paper in ("sdf", "ofsp"):
        assert f"`{registry.readings_of(paper)[0].command}`" in infos
    assert any("per-dataset accuracies (its Table 2) were lost" in m.value for m in at.markdown)
    assert not at.subheader  # no reading's draws are committed: no section


def draw_tab(paper, files):
    from mvlab.ui.views import papers_page

    papers_page.paper_tab(paper, files)


def test_a_reading_added_to_the_registry_shows_under_its_paper(monkeypatch):
    """The page follows the registry: a further reading declared there is shown under its paper, with its title,
    reason, command, draws and section, and nothing of the page changed. Fails when paper_tab leaves out the
    further readings (tried: its loop over readings[1:] left out)."""
    added = dataclasses.replace(
        registry.READINGS["sdf-lambda"], name="made-up", title="A reading added to the registry",
        reason="To see the page follow the registry", markdown=lambda cells, draws, head=True: "Its **section**.",
        draws_file=lambda folder: SimpleNamespace(key=["draw"]))
    monkeypatch.setitem(registry.READINGS, "made-up", added)
    committed = {"made-up": (pd.DataFrame({"mean": [0.5]}), pd.DataFrame({"draw": [0, 1, 1, 2]}))}
    at = AppTest.from_function(draw_tab, args=("sdf", lambda name: committed.get(name, (None, None))),
                               default_timeout=60).run()
    assert not at.exception, at.exception
    assert [s.value for s in at.subheader] == ["A reading added to the registry"]
    assert any(c.value.startswith("To see the page follow the registry (`python -m mvlab reproduce made-up`; draws in "
                                  "made_up_draws.csv: 3;") for c in at.caption)
    assert "Its **section**." in [m.value for m in at.markdown]


def test_a_figure_of_readings_counts_the_readings_whose_cells_it_drew():
    """The OFSP protocol's figure draws its cells and the leak reading's: its heading says "under both readings"
    when both have cells. Fails when a reading without cells is counted (tried: figure_of counting every name
    asked for)."""
    from mvlab.ui.views.papers_page import figure_of

    asked = SimpleNamespace(figure=lambda others: (others("one"), others("two"), "a figure")[-1])
    files = {"one": (pd.DataFrame({"paper": [0.5]}), None), "two": (None, None)}
    assert figure_of(asked, files.get) == ("a figure", 1)
    files["two"] = (pd.DataFrame({"paper": [0.4]}), None)
    assert figure_of(asked, files.get) == ("a figure", 2)
    assert figure_of(SimpleNamespace(figure=None), files.get) == (None, 0)
