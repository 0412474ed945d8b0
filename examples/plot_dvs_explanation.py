"""
Which views did each instance use?
==================================

Dynamic view selection (Bernard et al. 2020, docs/algorithms.md §A.8) grows one random forest per subset of
views and lets each test instance pick the subset most competent on its region of competence.  This example fits
it on a sample of the bundled multiple-features digits (six views), compares two competence rules with a grid
search over the nested parameter ``combination__competence``, and shows which views the instances chose.
"""

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

from mvlab import DVSCombiner, RFDClassifier, load_dataset
from mvlab.viz import dissimilarity_figures, dvs_figures

ds = load_dataset("mfeat").stratified_sample(300, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(ds.X, ds.y, test_size=0.5, stratify=ds.y, random_state=0)
print(ds.summary())

# %%
# The DVS rules are parameters of the combination object, so a grid search reaches them.
clf = RFDClassifier(views=ds.views, combination=DVSCombiner(k=7), n_estimators=30, random_state=0)
grid = GridSearchCV(clf, {"combination__competence": ["ola", "soft"]},
                    cv=StratifiedKFold(3, shuffle=True, random_state=0)).fit(X_train, y_train)
print("chosen on the training folds:", grid.best_params_)
print(f"test accuracy: {grid.score(X_test, y_test):.3f}")

# %%
# One forest per view gives a dissimilarity matrix per view; here the first view's, grouped by class.
best = grid.best_estimator_
dissimilarity_figures.dissimilarity_heatmap(best.dissimilarities_[0], np.asarray(ds.classes)[y_train],
                                            title=f"Training dissimilarities of the {best.view_names_[0]!r} view")

# %%
# Every test instance chose a subset of views; rows are instances sorted by class.
explanation = best.explain(X_test)
order = np.argsort(y_test, kind="stable")
row_text = [f"instance {i}, class {ds.classes[y]}" for i, y in enumerate(y_test)]
dvs_figures.view_selection_matrix(explanation.chosen_views, best.view_names_, order, row_text)

# %%
# How often each subset won.
dvs_figures.subset_frequencies(explanation.candidate_names, explanation.selection_frequencies())
