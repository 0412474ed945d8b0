"""Evaluation protocols: labels and a seed in, a list of :class:`Split` out, so that every
method of a comparison sees exactly the same splits.

:class:`RepeatedHoldout` (dynamic view selection paper: 10 x stratified 50/50),
:class:`RepeatedKFold` (OFSP paper: 10 x 5-fold), :class:`RepeatedPairDraws` (Siamese deep
forest paper: N training and 2N/3 test pairs from disjoint instance pools, 100 draws).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedShuffleSplit

from mvlab.siamese.pairs import PairSplit, make_pair_split

__all__ = ["Split", "RepeatedHoldout", "RepeatedKFold", "RepeatedPairDraws"]


@dataclass(frozen=True)
class Split:
    """One evaluation unit: training and test rows (and, for pair protocols, the pairs)."""

    repetition: int
    fold: int
    seed: int
    train: np.ndarray
    test: np.ndarray
    pairs: PairSplit | None = None


def _seeds(random_state: int, n: int) -> list[int]:
    return [int(s) for s in np.random.default_rng(random_state).integers(0, 2**31 - 1, size=n)]


@dataclass(frozen=True)
class RepeatedHoldout:
    """Repeated stratified hold-out (dynamic view selection paper: 10 × 50/50)."""

    n_repetitions: int = 10
    test_size: float = 0.5

    def splits(self, y, random_state: int = 0) -> list[Split]:
        """Stratified hold-out splits, one per repetition, each from its own seed.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            Labels (the strata).
        random_state : int, default=0
            Seed of the repetitions' seeds.

        Returns
        -------
        list of Split
            ``n_repetitions`` splits (fold 0), their rows sorted.
        """
        if self.n_repetitions < 1 or not 0 < self.test_size < 1:
            raise ValueError(f"need n_repetitions >= 1 and 0 < test_size < 1, got {self}.")
        y = np.asarray(y)
        out = []
        for r, seed in enumerate(_seeds(random_state, self.n_repetitions)):
            sss = StratifiedShuffleSplit(n_splits=1, test_size=self.test_size, random_state=seed)
            try:
                train, test = next(sss.split(np.zeros(len(y)), y))
            except ValueError as exc:
                raise ValueError(f"cannot split {len(y)} instances with test_size={self.test_size}: {exc}") from None
            out.append(Split(r, 0, seed, np.sort(train), np.sort(test)))
        return out


@dataclass(frozen=True)
class RepeatedKFold:
    """Repeated stratified k-fold (OFSP paper: 10 × 5-fold by default)."""

    n_repeats: int = 10
    n_splits: int = 5

    def splits(self, y, random_state: int = 0) -> list[Split]:
        """Stratified k-fold splits of labels ``y`` (n_samples,): scikit-learn's ``RepeatedStratifiedKFold``
        seeded with ``random_state``, ``n_repeats`` x ``n_splits`` splits, each with its own seed for the methods;
        rows sorted.  ``ValueError`` when a class has fewer than ``n_splits`` instances."""
        y = np.asarray(y)
        if self.n_repeats < 1 or self.n_splits < 2:
            raise ValueError(f"need n_repeats >= 1 and n_splits >= 2, got {self}.")
        smallest = np.bincount(np.unique(y, return_inverse=True)[1]).min()
        if smallest < self.n_splits:
            raise ValueError(f"{self.n_splits}-fold cross-validation needs at least {self.n_splits} instances per "
                             f"class; the smallest class has {smallest}.")
        cv = RepeatedStratifiedKFold(n_splits=self.n_splits, n_repeats=self.n_repeats, random_state=random_state)
        seeds = _seeds(random_state, self.n_repeats * self.n_splits)
        return [Split(i // self.n_splits, i % self.n_splits, seeds[i], np.sort(tr), np.sort(te))
                for i, (tr, te) in enumerate(cv.split(np.zeros(len(y)), y))]


@dataclass(frozen=True)
class RepeatedPairDraws:
    """Repeated random pair draws (Siamese deep forest paper): N training pairs and 2N/3 test
    pairs from disjoint instance pools, ``n_repetitions`` times (paper: 100)."""

    n_repetitions: int = 100
    n_train_pairs: int = 500
    n_test_pairs: int | None = None
    balanced: bool = True

    def splits(self, y, random_state: int = 0) -> list[Split]:
        """Pair draws from labels ``y`` (n_samples,), one per repetition, each from its own seed
        (:func:`mvlab.siamese.pairs.make_pair_split`): a split's ``train`` and ``test`` are the two instance
        pools, its ``pairs`` the pairs drawn in them."""
        if self.n_repetitions < 1 or self.n_train_pairs < 2:
            raise ValueError(f"need n_repetitions >= 1 and n_train_pairs >= 2, got {self}.")
        out = []
        for r, seed in enumerate(_seeds(random_state, self.n_repetitions)):
            ps = make_pair_split(y, self.n_train_pairs, self.n_test_pairs, balanced=self.balanced, random_state=seed)
            out.append(Split(r, 0, seed, ps.train_pool, ps.test_pool, ps))
        return out
