"""
Weighting trees to separate pairs
=================================

The Siamese deep forest (Utkin & Ryabinin 2018, docs/algorithms.md §C) learns whether two instances are of the
same class.  It is a gcForest cascade on pairs whose trees get weights from a convex quadratic programme, so that
similar pairs and dissimilar pairs move apart.  This example fits it and gcForest (the same cascade, uniform tree
weights) on the same pairs of the bundled Ionosphere data, the paper's Table 6.
"""

import numpy as np

from mvlab import SiameseDeepForest, load_dataset, make_pair_split
from mvlab.viz import siamese_figures

ds = load_dataset("ionosphere")
split = make_pair_split(ds.y, 300, random_state=0)  # 300 training pairs, 200 test pairs, disjoint instance pools
print(f"{len(split.y_train)} training pairs, {len(split.y_test)} test pairs")

# %%
# The same seed gives both models the same first-level trees: only the weighting differs.
models = {}
for weighting in ("uniform", "qp"):
    models[weighting] = SiameseDeepForest(weighting=weighting, lam=1.0, n_estimators=40, max_levels=3,
                                          random_state=0, preprocessor=ds.X).fit(split.train_pairs, split.y_train)
    accuracy = np.mean(models[weighting].predict(split.test_pairs) == split.y_test)
    print(f"{'SDF' if weighting == 'qp' else 'gcForest'}: {models[weighting].n_levels_} level(s), "
          f"test pair accuracy {accuracy:.3f}")

# %%
# The QP's tree weights against the uniform 1/T of gcForest, per level and forest.
sdf = models["qp"]
siamese_figures.tree_weight_distributions(sdf.weights_, [f"forest {j + 1}" for j in range(len(sdf.weights_[0]))])
