"""Siamese deep forest (Utkin & Ryabinin 2018): pairs, the gcForest cascade and multi-grained scanning,
the tree-weight QP, and the Siamese deep forest itself (docs/algorithms.md C)."""

from mvlab.siamese.cascade import CascadeForest
from mvlab.siamese.forest import (
    UNDETERMINED,
    SiameseDeepForest,
    effective_number_of_trees,
    similarity_scores,
    threshold_rule,
    tree_margin_matrix,
)
from mvlab.siamese.pairs import PairSplit, make_pair_split, make_pairs, pair_features
from mvlab.siamese.scanning import MultiGrainedScanner
from mvlab.siamese.tree_weights import TreeWeightInfo, solve_tree_weights, tree_weight_objective

__all__ = [
    "CascadeForest", "MultiGrainedScanner", "SiameseDeepForest", "effective_number_of_trees", "tree_margin_matrix",
    "PairSplit", "make_pair_split", "make_pairs", "pair_features", "TreeWeightInfo", "solve_tree_weights",
    "tree_weight_objective", "UNDETERMINED", "similarity_scores", "threshold_rule",
]
