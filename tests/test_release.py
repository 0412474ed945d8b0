"""What a user outside this checkout needs to reuse and cite mvlab: a licence the package declares, a citation
file and a changelog whose version is the package's, and the papers cited as the README cites them."""

import yaml

from conftest import ROOT
from mvlab import __version__


def test_the_licence_is_bsd_3_clause_and_the_package_declares_it():
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("BSD 3-Clause License") and "Neither the name of the copyright holder" in licence
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'license = "BSD-3-Clause"' in pyproject and 'license-files = ["LICENSE"]' in pyproject


def test_the_citation_file_names_this_version_and_the_three_papers_as_the_readme_does():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["license"] == "BSD-3-Clause"
    assert str(cff["version"]) == __version__
    assert {"message", "title", "authors", "date-released"} <= set(cff)
    readme = (ROOT / "README.md").read_text()
    cited = []
    for reference in cff["references"]:
        ids = [i["value"] for i in reference.get("identifiers", [])] + ([reference["doi"]] if "doi" in reference
                                                                        else [])
        assert ids and all(i.replace("doi:", "") in readme for i in ids), reference["title"]
        cited.append(reference["authors"][0]["family-names"])
    assert cited == ["Bernard", "Kumar", "Utkin"]


def test_the_changelog_starts_with_this_version():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    first = next(line for line in changelog.splitlines() if line.startswith("## "))
    assert first.startswith(f"## {__version__} ")
