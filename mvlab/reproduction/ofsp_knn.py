"""A reading of OFSP's Table 3 that may explain its Madelon KNN row: the number of neighbours.

The paper's KNN is PRTools' ``knnc``, which (as commonly documented) chooses k by leave-one-out on the training
rows when k is not given; mvlab's ``"knn"`` is 1-NN, the k that leave-one-out picks on the small gene-expression
sets (docs/algorithms.md B.6). On 400 noisy Madelon rows leave-one-out picks a larger k. Here the protocol's folds
and seeds are run with both classifiers for the three methods whose views do not depend on the classifier (RFSP,
Bagging, VG-AC; OFSP, AB and the GA choose their views with it, and refitting a leave-one-out KNN in every step of
their searches costs hours), so the difference between the two rows of a method is the classifier's alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.reproduction.ofsp_paper import MAX_VIEWS, N_SPLITS, OfspTask, run_classifier_variants
from mvlab.reproduction.ofsp_paper_report import classifier_reading_markdown, median_gains, ofsp_reading, paper_range
from mvlab.reproduction.verdicts import gap_word

__all__ = ["LeaveOneOutKNN", "KNN_METHODS", "KNN_VARIANTS", "run_knn_draw", "READING", "ofsp_knn_markdown"]

KNN_METHODS = ("RFSP", "Bagging", "VG-AC")
"""The view-construction methods whose views do not depend on the classifier."""

KNN_VARIANTS = ("1-NN", "k by leave-one-out")
"""The two classifiers, mvlab's ``"knn"`` and :class:`LeaveOneOutKNN`; a row's ``method``: ``"<method>, <variant>"``."""


class LeaveOneOutKNN(ClassifierMixin, BaseEstimator):
    """k-nearest neighbours (Euclidean, uniform vote) with k chosen by leave-one-out on the training rows.

    Each training row is classified by its ``k`` nearest *other* training rows for every ``k`` in ``candidates``
    (those below the number of rows); the first ``k`` with the highest leave-one-out accuracy is kept, the choice
    ``GridSearchCV(KNeighborsClassifier(), {"n_neighbors": candidates}, cv=LeaveOneOut())`` makes, at the cost of
    one neighbour search instead of one fit per row.

    Parameters
    ----------
    candidates : sequence of int, default (1, 3, ..., 31)

    Attributes
    ----------
    n_neighbors_ : int
        The chosen k.
    loo_accuracy_ : ndarray (n_candidates,)
        The leave-one-out accuracy of each candidate k that was tried.
    classes_ : ndarray (n_classes,)
    n_features_in_ : int
    """

    def __init__(self, candidates=tuple(range(1, 32, 2))):
        self.candidates = candidates

    def fit(self, X, y):
        """Choose k by leave-one-out on ``X`` (n, d), ``y`` (n,) and keep a ``KNeighborsClassifier`` with it."""
        X, y = validate_data(self, X, y)
        ks = [int(k) for k in self.candidates if 1 <= int(k) < len(y)]
        if not ks:
            raise ValueError(f"candidates {list(self.candidates)} hold no k between 1 and {len(y) - 1}, the "
                             "neighbours a training row has.")
        classes, codes = np.unique(y, return_inverse=True)
        search = KNeighborsClassifier(n_neighbors=max(ks), algorithm="brute").fit(X, codes)
        neighbours = codes[search.kneighbors(return_distance=False)]  # (n, max k): each row's others, nearest first
        accuracy = []
        for k in ks:
            counts = (neighbours[:, :k, None] == np.arange(len(classes))).sum(axis=1)
            accuracy.append(float(np.mean(np.argmax(counts, axis=1) == codes)))  # vote ties: the smallest class
        self.loo_accuracy_ = np.asarray(accuracy)
        self.n_neighbors_ = ks[int(np.argmax(self.loo_accuracy_))]
        self.knn_ = KNeighborsClassifier(n_neighbors=self.n_neighbors_, algorithm="brute").fit(X, y)
        self.classes_ = self.knn_.classes_
        return self

    def predict(self, X):
        """Labels (n_new,) of the rows of ``X`` (n_new, d) by their ``n_neighbors_`` nearest training rows."""
        check_is_fitted(self, "knn_")
        return self.knn_.predict(validate_data(self, X, reset=False))


def run_knn_draw(task: OfspTask, max_views: int = MAX_VIEWS, n_splits: int = N_SPLITS, n_jobs: int = 1) -> list[dict]:
    """One repetition on the protocol's folds and seeds: for every k and method of :data:`KNN_METHODS`, the
    performance-weighted ensemble with each classifier of :data:`KNN_VARIANTS`, its accuracy, members'
    disagreement and features kept on the test fold averaged over the folds; rows of
    :data:`mvlab.reproduction.ofsp_paper.OFSP_DRAW_COLUMNS` (``classifier`` ``"knn"``). ``n_jobs`` is accepted for the
    protocol runner and unused."""
    return run_classifier_variants(task, KNN_METHODS, dict(zip(KNN_VARIANTS, ("knn", LeaveOneOutKNN()))),
                                   max_views, n_splits)


def ofsp_knn_markdown(cells, draws, head: bool = True) -> str:
    """The section on the number of neighbours: per dataset and method, the accuracy over k = 1..10 with 1-NN and
    with k chosen by leave-one-out, and the paper's OFSP row (``head``: after the line naming command and files)."""
    return classifier_reading_markdown(READING, cells, draws, methods=KNN_METHODS, variants=KNN_VARIANTS,
                                       classifier="knn", head=head)


def ofsp_knn_facts(cells, draws, others) -> dict:
    """The numbers of the report's prose on this reading: each method's median gain over k, what OFSP's KNN row
    would be with the mean gain of the two methods that gain (RFSP, VG-AC), beside the paper's row, and which share
    of the row's mean gap to the paper that gain is, and in how many of Bagging's (repetition, k) cells the two
    classifiers' accuracies differ."""
    gains = median_gains(cells, KNN_METHODS, KNN_VARIANTS)
    protocol = others("ofsp-paper")[0]
    if protocol is None:
        protocol = cells.iloc[:0].assign(model=pd.Series(dtype=str))
    row = protocol[(protocol["model"] == "OFSP") & (protocol["table"] == 3) & (protocol["classifier"] == "knn")
                   & (protocol["dataset"] == "madelon-500")]
    ofsp, gap = row["mean"].median(), float((row["paper"] - row["mean"]).mean())
    lift = (gains["RFSP"] + gains["VG-AC"]) / 2
    low, high = paper_range("madelon-500", "knn")
    paper_median = float(row["paper"].median()) if len(row) else float("nan")
    lifted = ofsp + lift
    bagging = draws[draws["method"].str.startswith("Bagging, ")].pivot_table(
        index=["dataset", "repetition", "k"], columns="method", values="accuracy")
    differ = bagging[f"Bagging, {KNN_VARIANTS[0]}"] != bagging[f"Bagging, {KNN_VARIANTS[1]}"]
    return {"bagging_differs": f"{int(differ.sum())} of its {len(differ)} repetition × k cells",
            "gains": ", ".join(f"{m} {g:+.3f}" for m, g in gains.items()),
            "ofsp": f"{ofsp:.3f}", "ofsp_lifted": f"{lifted:.3f}", "lift": f"{lift:+.3f}",
            "paper": f"{low:.3f}–{high:.3f}", "lifted_word": gap_word(lifted - low),
            "lifted_gap": f"{lifted - low:+.3f}", "paper_median": f"{paper_median:.3f}",
            "lifted_median_word": gap_word(lifted - paper_median),
            "lifted_median_gap": f"{lifted - paper_median:+.3f}",
            "share_of_gap": f"about {lift / gap:.0%} of the row's mean gap ({lift:+.3f} of {gap:.3f})" if gap > 0
            else "no gap to explain"}


READING = ofsp_reading(
    "ofsp-knn", "A reading of Madelon's KNN gap: the number of neighbours",
    "mvlab's KNN is 1-NN; PRTools' knnc, the paper's, chooses k by leave-one-out when k is not given (as commonly "
    "documented; not verified against PRTools' code). The same folds and seeds with "
    "both, for the three methods whose views do not depend on the classifier.",
    draw=run_knn_draw, datasets=("madelon-500",), dataset_choices=("golub-3051", "madelon-500"),
    classifiers=("knn",), markdown=ofsp_knn_markdown, facts=ofsp_knn_facts)
"""1-NN against k chosen by leave-one-out (Madelon's KNN row)."""
