"""What a user outside this checkout needs to reuse and cite mvlab: a licence the package declares, a citation
file and a changelog whose version is the package's, and the papers cited as the README cites them."""

import re

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


def _pins(text: str) -> dict[str, str]:
    """The lock's pins that apply to this interpreter and platform (a universal lock pins some packages twice, by
    Python version, under an environment marker)."""
    from packaging.markers import Marker

    pins = {}
    for m in re.finditer(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)(?: ; ([^\\\n]+?))?\s*\\?$", text, re.M):
        if m.group(3) is None or Marker(m.group(3)).evaluate():
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def test_the_lock_pins_every_range_with_hashes_and_is_what_the_tests_run_on():
    """requirements.lock (make lock) pins every package of requirements.txt's ranges and what they pull in, each
    with its hashes; the environment the tests run in was installed from it (make test installs the lock)."""
    from importlib.metadata import PackageNotFoundError, version

    lock = (ROOT / "requirements.lock").read_text()
    pins = _pins(lock)
    ranges = [re.match(r"[A-Za-z0-9_.\-]+", line).group(0).lower().replace("_", "-")
              for line in (ROOT / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")]
    assert ranges and not [name for name in ranges if name not in pins]
    for block in re.split(r"\n(?=[A-Za-z0-9])", lock.split("\n", 2)[2]):
        assert "--hash=sha256:" in block, block.splitlines()[0]
    mismatched = []
    for name in ranges:
        try:
            if version(name) != pins[name]:
                mismatched.append((name, version(name), pins[name]))
        except PackageNotFoundError:
            mismatched.append((name, None, pins[name]))
    assert not mismatched, f"installed packages differ from the lock (run make test, which installs it): {mismatched}"


def test_ci_checks_the_wheel_in_a_clean_environment_and_requires_postgresql():
    """.ci/run runs the whole suite with PostgreSQL required (not skipped), then .ci/check-wheel: the wheel installed
    from the lock into a new environment, every dataset loaded from another folder, every page in Chromium."""
    run = (ROOT / ".ci" / "run").read_text()
    assert "MVLAB_REQUIRE_POSTGRES=1" in run and "apt-get install -y -qq postgresql" in run
    assert run.index("make test") < run.index("bash .ci/check-wheel")
    check = (ROOT / ".ci" / "check-wheel").read_text()
    assert "--require-hashes -r requirements.lock" in check and "mvlab dashboard" in check
    assert "list_datasets()" in check and 'cd "$work/elsewhere"' in check
    pages = {p.stem for p in (ROOT / "pages").glob("*.py")} - {"home"}
    assert all(f'"{page}":' in check for page in pages), "a page the wheel check does not open"
