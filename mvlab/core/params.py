"""The one validation convention of mvlab's estimators: scikit-learn's ``_parameter_constraints``.

Every estimator declares its parameters' allowed values in a class attribute
``_parameter_constraints`` and calls ``self._validate_params()`` first thing in ``fit``
(scikit-learn's own mechanism: the message names the parameter, the estimator, the allowed
values and what was given).  Checks that need the data (``k`` against the number of training
rows, folds against the smallest class) follow in ``fit`` as ``ValueError`` with a message that
says how to fix it.  Functions declare theirs with ``validate_params`` (re-exported here), as
scikit-learn's public functions do.  The constraint helpers live in scikit-learn's ``_param_validation`` module,
which scikit-learn-contrib projects use; this module is the only place mvlab imports them from.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval, Options, RealNotInt, StrOptions, validate_params

__all__ = [
    "is_int", "Interval", "StrOptions", "Options", "HasMethods", "POSITIVE_INT", "NON_NEGATIVE_INT",
    "N_JOBS", "RANDOM_STATE", "MAX_FEATURES", "OPTIONAL_POSITIVE_INT", "FOLDS", "NON_NEGATIVE_REAL",
    "PROBABILITY", "MIN_SAMPLES_SPLIT", "MIN_SAMPLES_LEAF", "CountInterval", "POSITIVE_COUNT", "validate_params",
]


class CountInterval(Interval):
    """An :class:`Interval` of integers that refuses ``True`` and ``False``: a bool is an ``int`` in
    Python (so ``Interval(Integral, ...)`` takes ``True`` as 1), but never a count someone meant."""

    def __init__(self, left, right=None, *, closed="left"):
        super().__init__(numbers.Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        """Whether ``val`` is an integer in the interval and not a bool."""
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)

    def __str__(self):
        return f"{super().__str__()} (not a bool)"


POSITIVE_INT = [Interval(numbers.Integral, 1, None, closed="left")]
NON_NEGATIVE_INT = [Interval(numbers.Integral, 0, None, closed="left")]
OPTIONAL_POSITIVE_INT = [Interval(numbers.Integral, 1, None, closed="left"), None]
N_JOBS = [numbers.Integral, None]
RANDOM_STATE = ["random_state"]
MAX_FEATURES = [Interval(numbers.Integral, 1, None, closed="left"), Interval(numbers.Real, 0.0, 1.0, closed="right"),
                StrOptions({"sqrt", "log2"}), None]
"""``max_features`` of a scikit-learn forest (mtry)."""
MIN_SAMPLES_SPLIT = [Interval(numbers.Integral, 2, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="right")]
MIN_SAMPLES_LEAF = [Interval(numbers.Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0,
                                                                                 closed="neither")]
"""``min_samples_split`` / ``min_samples_leaf`` of a scikit-learn tree (a count or a fraction of the rows)."""
FOLDS = [Interval(numbers.Integral, 2, None, closed="left")]
"""A number of folds of a k-fold split."""
NON_NEGATIVE_REAL = [Interval(numbers.Real, 0.0, float("inf"), closed="left")]
"""A finite number >= 0 (the open right end at infinity rejects ``inf``; NaN is never in an interval)."""
PROBABILITY = [Interval(numbers.Real, 0.0, 1.0, closed="both")]
POSITIVE_COUNT = [CountInterval(1, None, closed="left")]
"""A count of things (pairs, neighbours): an integer >= 1 that is not a bool."""


def is_int(value) -> bool:
    """An integer, and not a bool (``True`` is an ``int`` in Python)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
