"""A reading of OFSP's Table 3 that could explain its Madelon linear-SVM row: the features' numeric range.

The paper's SVM is PRTools' ``svc`` with its default C = 1 (docs/algorithms.md B.6), run on NIPS 2003's Madelon,
whose features the challenge's preparation put in the range 0 to 999, as integers (Guyon, *Design of experiments
for the NIPS 2003 variable selection benchmark*, 2003). mvlab's synthetic Madelon keeps scikit-learn's generator's
scale (noise features of unit variance, every value within about ±11). A linear SVM is not scale-invariant:
multiplying every feature by ``s`` is the same problem as multiplying C by ``s**2`` (a shift of every row is taken
up by the bias), so C = 1 on the 0-999 range is C of about 2,200 on the features as generated: far less
regularised. Here the protocol's folds and seeds are run with the linear SVM (C = 1) on the features as generated
and on the same features mapped to 0-999 (:class:`NipsRange`), for the three methods whose views do not depend on
the classifier (RFSP, Bagging, VG-AC; OFSP, AB and the GA search with it, hours per repetition), so the difference
between the two rows of a method is the range's alone.

libsvm (scikit-learn's ``SVC``) needs minutes per fit there where it needs milliseconds at C = 1 (its iterations
grow with C: one RFSP fold at k = 10, 1.7 s of CPU at C = 1, did not end in 10 minutes on the 0-999 range), so the
rescaled SVM is solved as the quadratic program it is by an interior-point solver (:class:`QPLinearSVC`, cvxpy's
Clarabel), whose time does not grow with C; a test pins it to ``SVC``'s predictions where both are affordable.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.pipeline import make_pipeline
from sklearn.utils.validation import check_is_fitted, validate_data

from mvlab.reproduction.ofsp_paper import MAX_VIEWS, N_SPLITS, OfspTask, load, run_classifier_variants
from mvlab.reproduction.ofsp_paper_report import classifier_reading_markdown, median_gains, ofsp_reading

__all__ = ["QPLinearSVC", "NipsRange", "RANGE_METHODS", "RANGE_VARIANTS", "run_range_draw", "READING",
           "ofsp_svm_range_markdown"]

RANGE_METHODS = ("RFSP", "Bagging", "VG-AC")
"""The view-construction methods whose views do not depend on the classifier."""

RANGE_VARIANTS = ("as generated", "0-999 range")
"""The two data scales of the linear SVM (C = 1); a row's ``method``: ``"<method>, <variant>"``."""


class QPLinearSVC(ClassifierMixin, BaseEstimator):
    """Two-class linear C-SVM, the problem ``SVC(kernel="linear", C=C)`` solves, by an interior-point solver.

    Minimises ``1/2 ||w||^2 + C sum_i xi_i`` subject to ``t_i (w . x_i + b) >= 1 - xi_i`` and ``xi_i >= 0``
    (``t_i`` = +1 for the second class, -1 for the first) with cvxpy's Clarabel, in the primal when the rows
    outnumber the features and in the dual (``max sum a - 1/2 a' Q a``, ``0 <= a <= C``, ``t . a = 0``,
    ``Q_ij = t_i t_j x_i . x_j``; ``w = sum a_i t_i x_i``, ``b`` the equality's multiplier) otherwise. The rows
    are centred on their mean first, which changes only ``b`` (the problem is the same up to a shift of every
    row) and keeps the solver well conditioned on features far from zero. Its time does not grow with ``C``,
    where libsvm's iterations do.

    Parameters
    ----------
    C : float, default 1.0

    Attributes
    ----------
    coef_ : ndarray (n_features,)
        ``w``, for the centred rows (the same ``w`` as for the rows as given).
    intercept_ : float
        ``b`` for the rows as given.
    classes_ : ndarray (2,)
    n_features_in_ : int
    """

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        """Solve the problem on ``X`` (n, d) and ``y`` (n,), two classes."""
        import cvxpy as cp

        X, y = validate_data(self, X, y, dtype=np.float64)
        if not (np.isfinite(self.C) and self.C > 0):
            raise ValueError(f"C must be a positive number, got {self.C!r}.")
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            raise ValueError(f"QPLinearSVC separates two classes; y holds {len(self.classes_)}.")
        t = np.where(codes == 1, 1.0, -1.0)
        centre = X.mean(axis=0)
        Z = X - centre
        n, d = Z.shape
        if n > d:
            w, b, xi = cp.Variable(d), cp.Variable(), cp.Variable(n)
            problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + self.C * cp.sum(xi)),
                                 [cp.multiply(t, Z @ w + b) >= 1 - xi, xi >= 0])
            _solve(problem, n, d)
            coef, bias = w.value, float(b.value)
        else:
            a = cp.Variable(n)
            tz = t[:, None] * Z
            balance = t @ a == 0
            problem = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(tz @ tz.T))),
                                 [a >= 0, a <= self.C, balance])
            _solve(problem, n, d)
            coef, bias = tz.T @ a.value, float(balance.dual_value)
        self.coef_ = np.asarray(coef, dtype=float)
        self.intercept_ = bias - float(centre @ self.coef_)
        return self

    def decision_function(self, X):
        """``w . x + b`` (n_new,) for the rows of ``X`` (n_new, d); positive: the second class."""
        check_is_fitted(self, "coef_")
        return validate_data(self, X, reset=False, dtype=np.float64) @ self.coef_ + self.intercept_

    def predict(self, X):
        """Labels (n_new,) of the rows of ``X`` (n_new, d)."""
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


def _solve(problem, n: int, d: int) -> None:
    """Solve ``problem`` with Clarabel; a ``ValueError`` in words when it finds no optimum."""
    problem.solve(solver="CLARABEL")
    if problem.status not in ("optimal", "optimal_inaccurate"):
        raise ValueError(f"QPLinearSVC: the solver found no optimum for {n} rows of {d} features (status "
                         f"{problem.status!r}); check the rows for infinite or huge values.")


class NipsRange(TransformerMixin, BaseEstimator):
    """The NIPS 2003 challenge's preparation of continuous features: ``round((x - low) * 999 / (high - low))``.

    ``low`` and ``high`` are the whole dataset's smallest and largest values, fixed before any split (the
    challenge prepared its files once, with no labels), so one affine map serves every column and every fold;
    the result holds integers from 0 to 999. Stateless: ``fit`` checks the input only.

    Parameters
    ----------
    low, high : float
        The data's range, ``high > low``.
    """

    def __init__(self, low=0.0, high=1.0):
        self.low = low
        self.high = high

    def fit(self, X, y=None):
        """Check ``X`` (n, d) and the range."""
        validate_data(self, X)
        if not self.high > self.low:
            raise ValueError(f"NipsRange needs high > low, got low={self.low!r}, high={self.high!r}.")
        return self

    def transform(self, X):
        """``X`` (n, d) mapped to the integers 0..999 (float array)."""
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return np.rint((X - self.low) * 999.0 / (self.high - self.low))


def run_range_draw(task: OfspTask, max_views: int = MAX_VIEWS, n_splits: int = N_SPLITS, n_jobs: int = 1) -> list[dict]:
    """One repetition on the protocol's folds and seeds: for every k and method of :data:`RANGE_METHODS`, the
    performance-weighted ensemble with the linear SVM (C = 1) on the features as generated (``SVC``, the
    protocol's ``"svm"``) and on the features mapped to 0-999 (:class:`NipsRange` then :class:`QPLinearSVC`); rows
    of :data:`mvlab.reproduction.ofsp_paper.OFSP_DRAW_COLUMNS` (``classifier`` ``"svm"``). ``n_jobs`` is accepted for
    the protocol runner and unused."""
    X = load(task.dataset).X
    rescaled = make_pipeline(NipsRange(low=float(X.min()), high=float(X.max())), QPLinearSVC(C=1.0))
    return run_classifier_variants(task, RANGE_METHODS, dict(zip(RANGE_VARIANTS, ("svm", rescaled))),
                                   max_views, n_splits)


def ofsp_svm_range_markdown(cells, draws, head: bool = True) -> str:
    """The section on the features' numeric range: per dataset and method, the linear SVM's accuracy over k = 1..10
    on the features as generated and mapped to 0-999, and the paper's OFSP row (``head``: after the line naming
    command and files)."""
    return classifier_reading_markdown(READING, cells, draws, methods=RANGE_METHODS, variants=RANGE_VARIANTS,
                                       classifier="svm", head=head)


def ofsp_svm_range_facts(cells, draws, others) -> dict:
    """The numbers of the report's prose on this reading: the largest difference between the two scales at any k
    for any method, the largest median one, and the repetitions they rest on."""
    part = cells[cells["table"] == 3]
    largest = 0.0
    for method in RANGE_METHODS:
        a, b = (part[part["model"] == f"{method}, {v}"].set_index("k")["mean"] for v in RANGE_VARIANTS)
        largest = max(largest, float((b - a).abs().max()))
    medians = median_gains(cells, RANGE_METHODS, RANGE_VARIANTS)
    return {"largest": f"{largest:.3f}", "largest_median": f"{max(abs(v) for v in medians.values()):.3f}",
            "repetitions": str(int(part["draws"].min())) if len(part) else "0"}


READING = ofsp_reading(
    "ofsp-svm-range", "A reading of Madelon's linear-SVM gap: the features' numeric range",
    "The paper's SVM (PRTools' svc, C = 1) ran on NIPS 2003's Madelon, whose features lie in 0-999; mvlab's "
    "synthetic Madelon keeps its generator's scale, where that C = 1 is a far larger C. The same folds and seeds "
    "with the features as generated and mapped to 0-999.",
    draw=run_range_draw, datasets=("madelon-500",), dataset_choices=("golub-3051", "madelon-500"),
    classifiers=("svm",), markdown=ofsp_svm_range_markdown,
    facts=ofsp_svm_range_facts)
"""The linear SVM on the features as generated and on 0-999 (Madelon's SVM row)."""
