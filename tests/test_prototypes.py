"""Prototype dissimilarity spaces classify about as well as the exact space (docs/algorithms.md §A.10).

Measured (this test's setting, 3 splits): Avg's accuracy with the default 1,000 prototypes minus the exact
space's was +0.16, +0.16 and +0.40 points (mean +0.24); with 500 prototypes +0.24, -0.48, +0.96; with 250
-0.24, -0.96, +0.96.  The tolerance is the issue's 0.5 point on the mean over the splits.  No bundled
dataset reaches 5,000 rows (the largest, segment, has 2,310), so the synthetic generator stands for them.
"""

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.rfd.classifier import RFDClassifier
from mvlab.rfd.prototypes import DEFAULT_N_PROTOTYPES
from mvlab.rfd.view_forests import fit_view_forests

TOLERANCE = 0.005  # 0.5 point of accuracy


@pytest.mark.slow
def test_default_prototypes_are_within_half_a_point_of_the_exact_space_at_5000_rows():
    diffs = []
    for seed in range(3):
        ds = make_multiview_classification(n_samples=6250, n_views=3, n_features=20, random_state=seed)
        Xtr, Xte, ytr, yte = train_test_split(ds.X, ds.y, test_size=1250, stratify=ds.y, random_state=seed)
        vf = fit_view_forests(Xtr, ytr, ds.views, n_estimators=100, random_state=seed, n_jobs=2)
        kw = dict(views=ds.views, n_estimators=100, random_state=seed, n_jobs=2)
        exact = RFDClassifier(prototypes="all", **kw).fit(Xtr, ytr, view_forests=vf).score(Xte, yte)
        protos = RFDClassifier(prototypes=DEFAULT_N_PROTOTYPES, **kw).fit(Xtr, ytr, view_forests=vf)
        diffs.append(protos.score(Xte, yte) - exact)
        assert protos.n_prototypes_ == DEFAULT_N_PROTOTYPES
    assert abs(np.mean(diffs)) <= TOLERANCE, diffs
