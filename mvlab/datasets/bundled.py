"""The bundled real datasets: a registry of names, titles and loaders.

Bundled datasets live in ``sample_data/`` as gzip'ed CSV files in the same convention that
:func:`mvlab.datasets.reader.read_multiview_csv` reads from uploads (sources, licences and
citations in ``sample_data/README.md``), so every bundled load goes through the validating
reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from mvlab.core import resources
from mvlab.datasets.container import MultiViewDataset
from mvlab.datasets.reader import read_multiview_csv
from mvlab.i18n import N_

__all__ = ["DatasetInfo", "list_datasets", "dataset_info", "load_dataset", "SAMPLE_DATA_DIR"]


SAMPLE_DATA_DIR = resources.path("sample_data")


@dataclass(frozen=True)
class DatasetInfo:
    """What the dataset picker shows about a bundled dataset."""

    name: str
    title: str
    description: str
    n_samples: int
    n_features: int
    n_views: int
    n_classes: int


def _bundled(file: str, label_column: str = "label", drop: Sequence[str] = (),
             **kwargs) -> Callable[[str, str], MultiViewDataset]:
    def load(name: str, description: str) -> MultiViewDataset:
        return read_multiview_csv(
            SAMPLE_DATA_DIR / file,
            label_column=label_column,
            drop_columns=drop,
            name=name,
            description=description,
            max_bytes=1 << 30,
            origin="bundled",
            **kwargs,
        )

    return load


_REGISTRY: dict[str, tuple[DatasetInfo, Callable[[str, str], MultiViewDataset]]] = {
    info.name: (info, loader)
    for info, loader in [
        (
            DatasetInfo("mfeat", N_("UCI Multiple Features (handwritten digits)"),
                        N_("2000 handwritten digits 0-9 described by six feature sets: Fourier coefficients (fou), "
                        "profile correlations (fac), Karhunen-Loeve coefficients (kar), pixel averages (pix), "
                        "Zernike moments (zer) and morphological features (mor)."), 2000, 649, 6, 10),
            _bundled("mfeat.csv.gz"),
        ),
        (
            DatasetInfo("htad", N_("HTAD home tasks (audio + wrist accelerometer)"),
                        N_("1386 windows of 7 home tasks (brushing teeth, eating chips, mopping, sweeping, typing, "
                        "washing hands, watching TV) seen by two sensors: 36 MFCC features of the sound (audio) "
                        "and 16 features of a wrist accelerometer (accelerometer)."), 1386, 52, 2, 7),
            _bundled("htad.csv.gz"),
        ),
        (
            DatasetInfo("segment", N_("UCI Image Segmentation (shape + colour)"),
                        N_("2310 3x3 pixel regions of 7 outdoor images, labelled brickface, cement, foliage, grass, "
                        "path, sky or window; 9 shape and texture features (position, line densities, edge "
                        "contrasts) and 10 colour features (RGB means, excess colours, HSV)."), 2310, 19, 2, 7),
            _bundled("segment.csv.gz"),
        ),
        (
            DatasetInfo("cell-segmentation", N_("Cell body segmentation (4 fluorescence channels)"),
                        N_("2019 cells from a high-content screen, imaged in four fluorescence channels (ch1-ch4: one "
                        "view per channel, ch1 also holding the shape of the segmented cell) plus their position "
                        "in the image; label = whether the image analysis segmented the cell body poorly (PS) "
                        "or well (WS)."), 2019, 58, 5, 2),
            _bundled("cell-segmentation.csv.gz"),
        ),
        (
            DatasetInfo("nutrimouse", N_("Nutrimouse (genotype)"),
                        N_("40 mice: expression of 120 liver genes and 21 hepatic fatty acids; label = genotype "
                        "(wild type or PPAR-alpha deficient)."), 40, 141, 2, 2),
            _bundled("nutrimouse.csv.gz", label_column="genotype", drop=("diet",)),
        ),
        (
            DatasetInfo("nutrimouse-diet", N_("Nutrimouse (diet)"),
                        N_("The same 40 mice, labelled by one of 5 diets."), 40, 141, 2, 5),
            _bundled("nutrimouse.csv.gz", label_column="diet", drop=("genotype",)),
        ),
        (
            DatasetInfo("breast-cancer", N_("Breast cancer Wisconsin (diagnostic)"),
                        N_("569 tumours, 10 cell-nucleus measurements summarised three ways: mean, standard "
                        "error (se) and worst value; label = malignant or benign."), 569, 30, 3, 2),
            _bundled("breast-cancer.csv.gz"),
        ),
        (
            DatasetInfo("digits", N_("Digits 8x8 (image quadrants)"),
                        N_("1797 8x8 images of handwritten digits; the four 4x4 quadrants of the image are the "
                        "views (top-left, top-right, bottom-left, bottom-right); the image shape is kept for "
                        "multi-grained scanning."), 1797, 64, 4, 10),
            _bundled("digits.csv.gz", image_shape=(8, 8)),
        ),
        # The single-view datasets of the papers' own experiments (one view each: the Siamese deep forest,
        # OFSP and a single forest's dissimilarity apply; view combination needs two views or more).
        (
            DatasetInfo("ecoli", N_("UCI Ecoli (protein localisation sites)"),
                        N_("336 E. coli proteins, 7 measurements from their amino-acid sequence (signal-sequence "
                        "scores, lipoprotein and charge signals, membrane-spanning scores); label = one of 8 "
                        "localisation sites (cp 143 ... imL 2, imS 2). A dataset of the Siamese deep forest "
                        "paper (its Table 2 counts the sequence name as an 8th attribute)."), 336, 7, 1, 8),
            _bundled("ecoli.csv.gz"),
        ),
        (
            DatasetInfo("yeast", N_("UCI Yeast (protein localisation sites)"),
                        N_("1484 yeast proteins, 8 sequence-derived measurements; label = one of 10 localisation "
                        "sites (CYT 463 ... ERL 5). A dataset of the Siamese deep forest paper."), 1484, 8, 1, 10),
            _bundled("yeast.csv.gz"),
        ),
        (
            DatasetInfo("ionosphere", N_("UCI Ionosphere (radar returns)"),
                        N_("351 radar returns from the ionosphere, 34 attributes (17 complex pulse numbers); "
                        "label = good (225: evidence of structure) or bad (126). A dataset of the Siamese deep "
                        "forest paper; all 34 attributes, as in UCI."), 351, 34, 1, 2),
            _bundled("ionosphere.csv.gz"),
        ),
        (
            DatasetInfo("mammographic", N_("UCI Mammographic masses (no missing values)"),
                        N_("830 mammographic masses: BI-RADS assessment, age, shape, margin, density; label = "
                        "benign (427) or malignant (403). UCI has 961 masses; the 131 with a missing value are "
                        "left out (the Siamese deep forest paper does not say what it did with them)."),
                        830, 5, 1, 2),
            _bundled("mammographic.csv.gz"),
        ),
        (
            DatasetInfo("haberman", N_("UCI Haberman's survival"),
                        N_("306 patients operated on for breast cancer: age, year of operation, number of positive "
                        "axillary nodes; label = survived 5 years or longer (225) or died within 5 years (81). "
                        "A dataset of the Siamese deep forest paper."), 306, 3, 1, 2),
            _bundled("haberman.csv.gz"),
        ),
        (
            DatasetInfo("golub-3051", N_("Golub leukemia, ALL/AML (3,051 filtered genes)"),
                        N_("The 38 training samples of Golub et al. 1999 (27 ALL, 11 AML) on 3,051 genes: the "
                        "filtered, log-transformed and standardised matrix of Bioconductor's multtest, NOT the "
                        "7,129 raw genes of the OFSP paper's All-AML leukemia row (same samples, fewer genes, "
                        "other scale)."), 38, 3051, 1, 2),
            _bundled("golub-3051.csv.gz"),
        ),
        (
            DatasetInfo("ilpd", N_("UCI Indian Liver Patient (ILPD, no missing values)"),
                        N_("579 patients from north-east Andhra Pradesh: age, gender (1 female, 2 male), total and "
                        "direct bilirubin, alkaline phosphotase, two aminotransferases, total proteins, albumin "
                        "and the albumin/globulin ratio; label = liver patient (414) or not (165). UCI has 583; "
                        "the 4 without an albumin/globulin ratio are left out (the Siamese deep forest paper's "
                        "Table 2 says 583 and does not say what it did with them)."), 579, 10, 1, 2),
            _bundled("ilpd.csv.gz"),
        ),
        (
            DatasetInfo("mnist-5000", N_("MNIST handwritten digits (a 5,000-digit subset)"),
                        N_("5,000 of MNIST's 70,000 28x28 grey-level images of handwritten digits, 500 of each "
                        "digit; the image shape is kept for multi-grained scanning. The Siamese deep forest "
                        "paper's Table 10 draws its pairs from all of MNIST: this is a subset of the paper's "
                        "data, not the whole of it."), 5000, 784, 1, 10),
            _bundled("mnist-5000.csv.gz", image_shape=(28, 28)),
        ),
    ]
}


def list_datasets() -> list[str]:
    """Names of the bundled datasets, for :func:`load_dataset`."""
    return list(_REGISTRY)


def dataset_info(name: str) -> DatasetInfo:
    """Title, description and shape of a bundled dataset (without loading it)."""
    _check_name(name)
    return _REGISTRY[name][0]


def load_dataset(name: str) -> MultiViewDataset:
    """Load a bundled dataset by name (see :func:`list_datasets`)."""
    _check_name(name)
    info, loader = _REGISTRY[name]
    return loader(name, info.description)


def _check_name(name: str) -> None:
    if name not in _REGISTRY:
        raise ValueError(f"Unknown dataset {name!r}; the bundled datasets are {list_datasets()}.")
