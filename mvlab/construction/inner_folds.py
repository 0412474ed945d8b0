"""Inner folds of the view-construction methods: drawn from the training rows only, and the pooled
accuracy over them (docs/algorithms.md B.2, [REC])."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

__all__ = ["inner_fold_count", "make_folds", "pooled_accuracy"]


def inner_fold_count(inner_cv: int, y) -> int:
    """Stratified inner folds used for ``inner_cv`` folds on labels ``y`` (n,).

    ``min(inner_cv, size of the smallest class)``, but at least 2: every fold then holds
    every class (a class of one member can only be in one fold's test rows). ValueError
    when ``inner_cv < 2`` or when every class has a single member.
    """
    if inner_cv < 2:
        raise ValueError(f"inner_cv={inner_cv}: an integer inner_cv must be >= 2 folds.")
    _, counts = np.unique(y, return_counts=True)
    if counts.max() < 2:
        raise ValueError(
            f"inner_cv={inner_cv} folds but every class has a single sample; "
            "stratified inner folds need a class with at least 2."
        )
    return int(max(2, min(int(inner_cv), int(counts.min()))))


def make_folds(inner_cv, X, y, random_state):
    """Inner folds on the training data: list of ``(train_rows, test_rows)``.

    ``inner_cv`` is an int >= 2 (stratified, shuffled k-fold seeded by
    ``random_state``), a float in (0, 1) (one stratified hold-out split with that
    test fraction), a scikit-learn splitter (its ``split(X, y)``) or an iterable
    of ``(train, test)`` index pairs.

    An int is lowered to what the smallest class allows,
    :func:`inner_fold_count` (``min(inner_cv, smallest class size)``, at least 2),
    instead of letting scikit-learn warn "The least populated class in y has only
    3 members, which is less than n_splits=5" and make folds without that class in
    some of them; ``len(folds)`` tells how many were used.
    """
    n = len(y)
    if isinstance(inner_cv, (str, bytes)):
        raise ValueError(
            f"inner_cv={inner_cv!r} is not understood; pass an int (k-fold), a float "
            "in (0, 1) (hold-out fraction), a CV splitter or a list of (train, test) pairs."
        )
    if isinstance(inner_cv, numbers.Integral) and not isinstance(inner_cv, bool):
        n_splits = inner_fold_count(inner_cv, y)
        cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
        with warnings.catch_warnings():
            # only when a class has a single member (2 folds cannot hold it twice): said above
            warnings.filterwarnings("ignore", message="The least populated class in y", category=UserWarning)
            splits = list(cv.split(np.zeros((n, 1)), y))
    elif isinstance(inner_cv, numbers.Real) and not isinstance(inner_cv, bool):
        if not 0.0 < inner_cv < 1.0:
            raise ValueError(
                f"inner_cv={inner_cv}: a float inner_cv is a hold-out test fraction in (0, 1)."
            )
        cv = StratifiedShuffleSplit(n_splits=1, test_size=float(inner_cv),
                                    random_state=random_state)
        splits = cv.split(np.zeros((n, 1)), y)
    elif hasattr(inner_cv, "split"):
        splits = inner_cv.split(X, y)
    elif inner_cv is not None and hasattr(inner_cv, "__iter__"):
        splits = inner_cv
    else:
        raise ValueError(
            f"inner_cv={inner_cv!r} is not understood; pass an int (k-fold), a float "
            "in (0, 1) (hold-out fraction), a CV splitter or a list of (train, test) pairs."
        )
    folds = []
    for train, test in splits:
        train = np.sort(np.asarray(train, dtype=np.intp))
        test = np.sort(np.asarray(test, dtype=np.intp))
        if train.size == 0 or test.size == 0:
            raise ValueError("every inner fold needs at least one training and one test row.")
        if train.min() < 0 or test.min() < 0 or max(train.max(), test.max()) >= n:
            raise ValueError("inner fold indices are out of range for the training data.")
        folds.append((train, test))
    if not folds:
        raise ValueError("inner_cv produced no folds.")
    return folds


def pooled_accuracy(correct, total):
    """Pooled accuracy ``correct / total`` (the inner ``Acc`` of B.2)."""
    return float(correct) / float(total)
