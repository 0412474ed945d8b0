"""mvlab: a laboratory for multi-view learning with random forests.

Every public name is importable from here (``from mvlab import RFDClassifier, load_dataset``);
it is loaded from its subpackage on first use, so ``import mvlab`` stays cheap.  The
subpackages follow the three papers over a small shared core:

==========================  ==================================================================
``mvlab.core``              views (the one validator), neighbour searches, parameters, progress
``mvlab.datasets``          the container, bundled real data, synthetic generators, CSV reader
``mvlab.forest``            forest dissimilarities of one view (the measure table)
``mvlab.rfd``               Bernard et al. 2020: view forests, static weights, dynamic view selection
``mvlab.construction``      Kumar & Minz 2016: OFSP and the other partitioners, view ensembles
``mvlab.siamese``           Utkin & Ryabinin 2018: pairs, cascade, tree-weight QP, Siamese deep forest
``mvlab.experiments``       protocols, the runner, method families, statistics, reports, the store
``mvlab.viz``               plotly figures and 2-D projections
``mvlab.ui``                Streamlit glue (the only part that imports streamlit)
==========================  ==================================================================

Submodules never import from this file.
"""

from __future__ import annotations

import importlib

from mvlab.core.version import VERSION as __version__

_PUBLIC = {
    "mvlab.core.views": ["check_views", "views_to_Xs", "Xs_to_views"],
    "mvlab.datasets.container": ["MultiViewDataset"],
    "mvlab.datasets.bundled": ["DatasetInfo", "list_datasets", "dataset_info", "load_dataset"],
    "mvlab.datasets.reader": ["read_multiview_csv"],
    "mvlab.datasets.synthetic": ["make_multiview_classification", "make_madelon"],
    "mvlab.forest.dissimilarity": ["ForestDissimilarity"],
    "mvlab.forest.measures": ["MEASURES", "Measure", "Breiman", "PathLength", "RFD", "OOBProximity", "RFGAP",
                              "measure_spec"],
    "mvlab.rfd.view_forests": ["ViewForests", "fit_view_forests", "combine"],
    "mvlab.rfd.weights": ["swknn_weights", "kernel_alignment", "alignment_weights", "oob_weights",
                          "static_view_weights"],
    "mvlab.rfd.classifier": ["RFDClassifier", "COMBINATIONS", "StaticCombiner", "make_combiner"],
    "mvlab.rfd.cost": ["estimate_cost", "CostEstimate"],
    "mvlab.rfd.dvs": ["DVSCombiner"],
    "mvlab.rfd.explanation": ["DVSExplanation", "view_choice_scores"],
    "mvlab.construction.partition": ["OFSP", "RandomPartition", "AttributeBagging", "AttributeClustering",
                                     "GeneticViews", "Bagging"],
    "mvlab.construction.ensemble": ["ViewEnsemble", "performance_weights", "weighted_vote"],
    "mvlab.construction.diversity": ["disagreement", "disagreement_total", "diversity_report"],
    "mvlab.siamese.pairs": ["make_pairs", "make_pair_split", "pair_features"],
    "mvlab.siamese.cascade": ["CascadeForest"],
    "mvlab.siamese.scanning": ["MultiGrainedScanner"],
    "mvlab.siamese.tree_weights": ["solve_tree_weights"],
    "mvlab.siamese.forest": ["SiameseDeepForest"],
    "mvlab.experiments.protocols": ["RepeatedHoldout", "RepeatedKFold", "RepeatedPairDraws"],
    "mvlab.experiments.runner": ["summarize"],
    "mvlab.experiments.families": ["run_experiment", "FAMILIES"],
    "mvlab.store": ["ResultsStore"],
    "mvlab.experiments.combinations": ["compare_combinations"],
    "mvlab.experiments.view_construction_sweep": ["k_sweep"],
    "mvlab.experiments.siamese_comparison": ["run_siamese_experiment"],
    "mvlab.experiments.pair_methods": ["compare_pair_methods"],
    "mvlab.stats": ["average_ranks", "sign_test", "friedman_test", "friedman_aligned_ranks_test",
                                "posthoc_vs_control", "holm_adjust", "paired_t_test", "nemenyi_critical_difference",
                                "critical_difference_groups"],
}
_WHERE = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = sorted(_WHERE) + ["__version__"]


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'mvlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # loaded once
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
