"""The papers' protocols on mvlab's bundled datasets (``python -m mvlab reproduce dvs|ofsp|sdf``): which family
runs them, on which datasets, and what each paper reported, printed beside mvlab's numbers.

Their own tables, cell by cell, are the readings of :mod:`mvlab.reproduction.registry`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Reproduction", "REPRODUCTIONS"]


@dataclass
class Reproduction:
    """One paper's protocol on the bundled data: the family (whose presets give the parameters
    and the protocol at each size), the datasets, and what the paper reported."""

    family: str
    datasets: list            # (name, n_samples or None for all)
    note: str
    synthetic: dict = field(default_factory=dict)  # name -> make_multiview_classification parameters
    sweep: dict = field(default_factory=dict)      # k-sweep options per size (view construction)
    sizes: tuple = ("quick", "paper")                # the sizes it runs at (--quick, --paper)


REPRODUCTIONS = {
    "dvs": Reproduction(
        "dissimilarity",
        [("mfeat", 600), ("htad", 1000), ("segment", 1000), ("cell-segmentation", 1000), ("breast-cancer", None),
         ("digits", 600), ("nutrimouse", None), ("nutrimouse-diet", None)],
        note=("Bernard et al. 2020: 15 datasets, 10 stratified 50/50 splits, 512 trees, RFD dissimilarity; "
              "average ranks Avg 3.67, SWknn 3.50, SWka 3.30, SWoob 2.40, DVS 2.13; only DVS significantly "
              "better than Avg by the sign test."),
        synthetic={"synthetic": {"n_samples": 600, "n_views": 4, "n_features": 10, "n_classes": 3,
                                 "p_informative": 0.5, "relevance": "iid"},
                   "synthetic-regions": {"n_samples": 600, "n_views": 4, "n_features": 10, "n_classes": 3,
                                         "relevance": "region"}},
    ),
    "sdf": Reproduction(
        "pairs", [("breast-cancer", None), ("digits", None), ("mfeat", 600), ("nutrimouse", None)],
        note=("Utkin & Ryabinin 2018: 10 UCI datasets, N training and 2N/3 test pairs, 100 draws; Table 8 best "
              "settings: SDF beats gcForest on all 10 (mean +0.015, paired t-test p = 0.015)."),
        sizes=("quick",),
    ),
    "ofsp": Reproduction(
        "view-construction", [("breast-cancer", None), ("madelon", 200), ("nutrimouse", None), ("mfeat", 200)],
        note=("Kumar & Minz 2016: 16 binary high-dimensional datasets (38-500 instances, 468-12,601 attributes as "
              "its Table 2 prints them, the class counted), "
              "10 x 5-fold CV, k = 1..10 views, kNN / NB / linear SVM; methods ranked per dataset by Friedman "
              "aligned ranks (blocks = k) with Holm's post-hoc test (those tables are lost from the text)."),
        sweep={"quick": {"max_features": 100}, "paper": {"max_features": None}},
    ),
}
"""The protocols on the bundled data by the name of their ``reproduce`` subcommand."""
