"""docs/reproduction.md says nothing its files do not: rendered byte for byte from the committed draws files, no
number written by hand in its generated sections, every number of its quoted sections in the files they cite, its
verdicts by the rules it states (:mod:`mvlab.reproduction.verdicts`), and every reading declared once."""

import re
import shutil
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mvlab.cli import main
from mvlab.reproduction import registry, writer
from mvlab.reproduction.cells import prediction_interval
from mvlab.reproduction.outputs import OUTPUT_FACTS
from mvlab.reproduction.verdicts import NEAR, compare_word, count_words, gap_word

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "reproduction.md"
FOLDER = ROOT / "docs" / "reproduction"


def _sections(text: str) -> dict:
    """The report's text by section: ``"top"`` (before section 1), and ``"1"``, ``"2"``, ``"2.1"``, ``"3"`` (its
    heading alone), ``"3.1"``, ``"3.2"``, each up to the next numbered heading."""
    parts = re.split(r"^(#{2,3} \d(?:\.\d)?)[ .]", text, flags=re.M)
    out = {"top": parts[0]}
    for head, body in zip(parts[1::2], parts[2::2]):
        out[head.split()[-1]] = body
    return out


# ----------------------------------------------------------------------------------------- byte for byte
def test_the_report_and_the_cells_files_are_rewritten_byte_for_byte_from_the_committed_draws(tmp_path):
    for path in [*FOLDER.glob("*_draws.csv"), *FOLDER.glob("*.txt")]:  # what the report is computed from
        shutil.copy(path, tmp_path / path.name)
    assert main(["reproduce", "report", "--out", str(tmp_path), "--report", str(tmp_path / "report.md")]) == 0
    assert (tmp_path / "report.md").read_bytes() == REPORT.read_bytes(), \
        "docs/reproduction.md differs from what the committed files give: run python -m mvlab reproduce report"
    for reading in registry.READINGS.values():
        name = f"{reading.stem}_cells.csv"
        assert (tmp_path / name).read_bytes() == (FOLDER / name).read_bytes(), name


# ------------------------------------------------------------------------------------ no hand-written number
RESULT = re.compile(r"(?<![\w.§/-])[−+-]?\d*\.\d+(?![\w.])|\d+(?:\.\d+)? ?%|\b\d+ of (?:the )?\d+\b")
"""What a result looks like in prose: a decimal number, a percentage, a count "n of m"."""


def _prose(text: str) -> str:
    """``text`` without its placeholders, code spans, links' targets and generated sections."""
    text = re.sub(r"<!-- BEGIN ([\w-]+) -->.*?<!-- END \1 -->", "", text, flags=re.S)
    text = writer.PLACEHOLDER.sub("", text)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"(?:[Ss]ections?|§)\s?[A-C]?\d+(?:\.\d+)*(?:(?:,| and|–)\s?[A-C]?\d+(?:\.\d+)*)*", "", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


def test_the_generated_sections_prose_holds_no_number_written_by_hand():
    sections = _sections(writer.TEMPLATE.read_text(encoding="utf-8"))
    for name in ("top", "2.1", "3.1"):
        prose = _prose(sections[name])
        if name == "top":  # the table of the protocols on the bundled data quotes their files (checked below)
            prose = "\n".join(line for line in prose.splitlines() if not line.startswith("|"))
        found = RESULT.findall(prose)
        assert not found, f"section {name} writes results by hand: {found}; make them facts of a reading"


CITED = re.compile(r"(\w+\.txt)\b")
TOKEN = re.compile(r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d)|(?<![\d.])\.\d+")
"""A number of a command's output as a whole token: neither preceded nor followed by a digit or by a decimal point
that continues it ("27.85" is one token, never "27"); thousands commas allowed, signs dropped."""
QUOTED = re.compile(r"(?<![\w.§/-])[−+-]?\d*\.\d+(?!\d)"
                    r"|(?<![\w.,−+-])(?:\d{1,3}(?:,\d{3})+|\d+)(?= (?:s|h|draws|trees|splits|repetitions"
                    r"|(?:test |training )?pairs)\b)")
"""What the quoted prose must take from its files: every decimal, and the integers of a measured time ("4336 s") or
of a protocol's size that the outputs print ("5 draws", "20 trees", "N training pairs"). Not checked: counts of
rows ("14 of the 40": counted, never printed, and small integers are in every file anyway), section, table and
year numbers, and the paper's dataset sizes quoted from its text."""


def _number(text: str) -> Decimal:
    text = text.replace("−", "-").replace(",", "").lstrip("+-")
    return Decimal("0" + text if text.startswith(".") else text)


def _is_in(quoted: Decimal, tokens: set) -> bool:
    """``quoted`` is one of ``tokens`` (trailing zeros aside), or a decimal that one of them rounds to at its own
    precision ("0.788" for 0.7877, never "0.78"); an integer only as printed."""
    if quoted in tokens:
        return True
    places = quoted.as_tuple().exponent
    if places >= 0:
        return False
    step = Decimal(1).scaleb(places)
    return any(t.as_tuple().exponent < places and quoted in {t.quantize(step, rounding=ROUND_HALF_UP),
                                                              t.quantize(step, rounding=ROUND_HALF_EVEN)}
               for t in tokens)


@pytest.mark.parametrize("name", ["top", "1", "2", "3.2"])  # the others are generated (the test above)
def test_every_number_of_the_quoted_sections_is_in_the_files_they_cite(name):
    section = _sections(writer.TEMPLATE.read_text(encoding="utf-8"))[name]
    if name == "top":  # its table of the protocols on the bundled data
        section = "\n".join(line for line in section.splitlines() if line.startswith("| ") and ".txt" in line)
    files = set(CITED.findall(section)) or {"sdf_quick.txt", "sdf_tables.txt"}
    text = " ".join((FOLDER / f).read_text(encoding="utf-8") for f in files)
    if "mvlab.reproduction.outputs" in section:  # it says which of its numbers that module computes from the files
        text += " " + " ".join(v for facts in OUTPUT_FACTS.values() for v in facts(FOLDER).values())
    tokens = {_number(t) for t in TOKEN.findall(text)}
    numbers = QUOTED.findall(_prose(section))
    assert numbers, f"section {name}: no number found to check"
    missing = [n for n in numbers if not _is_in(_number(n), tokens)]
    assert not missing, f"section {name} quotes numbers that {sorted(files)} do not hold: {missing}"
    sample = {_number(t) for t in TOKEN.findall("rank 27.85, p = 0.109, mean -0.0134 over 12,600 features; 4336 s")}
    assert not any(_is_in(_number(n), sample) for n in ("27", "7.8", "0.10", "600"))  # no part of a token
    assert all(_is_in(_number(n), sample) for n in ("27.85", "27.9", "0.109", "0.11", "−0.013", "12,600", "4336"))


# ---------------------------------------------------------------------------------------------- the rules
def test_the_verdict_words_follow_the_stated_rules():
    assert gap_word(NEAR) == "near" and gap_word(-NEAR) == "near"
    assert gap_word(NEAR + 0.001) == "above" and gap_word(-NEAR - 0.001) == "below"
    assert compare_word(0.5, 0.5) == "level" and compare_word(0.51, 0.5) == "higher"
    assert count_words([0.01, 0.0, -0.02, 0.0]) == {"higher": 1, "level": 2, "lower": 1}


def test_the_prediction_interval_covers_one_more_draw_as_often_as_it_says():
    rng = np.random.default_rng(0)
    hits = []
    for _ in range(4000):
        x = rng.normal(0.7, 0.05, size=6)
        low, high = prediction_interval(x[:5])
        hits.append(low <= x[5] <= high)
    assert abs(np.mean(hits) - 0.95) < 0.012  # the t prediction interval is exact for normal draws
    assert all(np.isnan(prediction_interval([0.5])))
    x = np.array([0.6, 0.7, 0.8])  # by hand: t_{0.975, 2} = 4.303
    low, high = prediction_interval(x)
    assert (high - low) / 2 == pytest.approx(4.302653 * 0.1 * np.sqrt(1 + 1 / 3), rel=1e-5)


def test_table8_names_the_cell_each_printed_value_was_taken_from():
    from mvlab.reproduction.sdf_paper import PAPER, table8_source

    assert table8_source("ecoli", "SDF") == "Table 4: N=2000, T=400"  # .921, printed only there
    assert PAPER[(4, "ecoli", 2000, 400, "SDF")] == PAPER[(8, "ecoli", None, None, "SDF")]
    assert table8_source("ecoli", "RF") == "Table 8 only"
    cells = writer.read_cells("sdf-paper")
    t8 = cells[(cells["table"] == 8) & cells["model"].isin(["gcForest", "SDF"])]
    assert (t8["paper_source"].str.startswith("Table ")).all()
    assert (cells.loc[cells["table"] < 8, "paper_source"] == "").all()


def test_ties_are_counted_as_ties_in_the_gain_line():
    from mvlab.reproduction.sdf_paper_report import gain_line

    cells = pd.DataFrame([{"dataset": "yeast", "N": n, "T": 100, "model": m, "mean": v, "paper": p}
                          for n, (g, s) in {100: (0.5, 0.5), 500: (0.6, 0.61), 1000: (0.7, 0.69)}.items()
                          for m, v, p in (("gcForest", g, 0.5), ("SDF", s, 0.52))])
    assert "SDF higher in 1, level in 1, lower in 1" in gain_line(cells)


# ------------------------------------------------------------------------------------- a reading declared once
def test_every_reading_is_one_record_that_the_writer_the_command_line_and_the_template_use():
    from mvlab.cli import build_parser

    template = writer.TEMPLATE.read_text(encoding="utf-8")
    parser = build_parser()
    for name, reading in registry.READINGS.items():
        assert reading.name == name and reading.paper in registry.PAPERS
        assert f"<!-- BEGIN {name} -->" in template, f"the report has no section for {name}"
        args = parser.parse_args(["reproduce", name, "--report-only"])
        assert args.func.__name__ == "cmd_reproduce_reading" and args.reading == name
        assert (FOLDER / f"{reading.stem}_draws.csv").exists() and (FOLDER / f"{reading.stem}_cells.csv").exists()
        with pytest.raises(SystemExit):  # argparse refuses a dataset the reading does not run on
            parser.parse_args(["reproduce", name, "--datasets", "mfeat"])
    assert [r.name for r in registry.readings_of("sdf")][0] == "sdf-paper"
    with pytest.raises(ValueError, match="no reading called"):
        registry.reading("sdf-unknown")


def test_an_old_command_line_is_told_the_reading_it_now_names(capsys):
    assert main(["reproduce", "sdf", "--paper", "--lambda-on-test"]) == 2
    assert "reproduce sdf-lambda" in capsys.readouterr().err
    assert main(["reproduce", "ofsp", "--table3", "--report-only"]) == 2
    assert "reproduce ofsp-paper" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a size flag where the protocol has one size
        main(["reproduce", "sdf", "--quick", "--trees", "-1", "--classifiers", "knn"])


def test_the_template_names_a_fact_no_reading_gives_in_words(tmp_path):
    bad = tmp_path / "t.md"
    bad.write_text("x {{sdf-paper.nothing}}", encoding="utf-8")
    with pytest.raises(ValueError, match="does not give"):
        writer.render_report(FOLDER, bad)
    bad.write_text("x {{sdf-paper.summary}}", encoding="utf-8")
    assert "not computed yet" in writer.render_report(tmp_path, bad)  # no draws there


# ---------------------------------------------------------------------------------------------- the λ grid
def test_the_wide_lambda_grid_runs_on_the_main_protocols_own_pairs():
    from mvlab.reproduction.sdf_lambda_grid import paired_draws

    draws, main_draws = writer.read_draws("sdf-lambda-grid"), writer.read_draws("sdf-paper")
    paired = paired_draws(draws, main_draws)  # raises if any gcForest differs from the main protocol's
    assert len(paired) == draws[["N", "T", "draw"]].drop_duplicates().shape[0]
    broken = draws.copy()
    broken.loc[broken["model"] == "gcForest", "accuracy"] += 0.01
    with pytest.raises(ValueError, match="not computed by the same code"):
        paired_draws(broken, main_draws)
