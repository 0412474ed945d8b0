"""The large-data path of a comparison of combinations (docs/algorithms.md §A.10): with prototypes, no (n, n) matrix is
formed, so the comparison keeps the views' matrices among a class-stratified sample of training rows
(:func:`sample_matrices`) and every DVS candidate's map, a 2-D PCA of its joint dissimilarities to the prototypes
(:func:`candidate_maps`), keyed by the candidate's subset (:func:`subset_code`)."""

from __future__ import annotations

import numpy as np

from mvlab.core.projection import pca_axes
from mvlab.core.sampling import stratified_rows
from mvlab.rfd.view_forests import ViewForests
from mvlab.rfd.view_rows import ViewRows

__all__ = ["SAMPLE_ROWS", "subset_code", "sample_matrices", "candidate_maps"]

SAMPLE_ROWS = 1000
"""Training rows whose matrices a large comparison keeps for its pictures (a class-stratified sample)."""


def subset_code(mask) -> str:
    """A view subset (bool mask (Q,)) as "0"/"1" characters, the key of its map."""
    return "".join("1" if b else "0" for b in np.asarray(mask, dtype=bool))


def sample_matrices(forests: ViewForests, random_state, n_jobs, n_rows: int = SAMPLE_ROWS
                    ) -> tuple[np.ndarray, list[np.ndarray]]:
    """A class-stratified sample of ``n_rows`` training positions (ascending) and the views' (s, s) dissimilarities
    among them (the training rows' semantics: OOB trees, zero diagonal)."""
    sample = np.sort(stratified_rows(forests.y, n_rows, random_state))
    rows = ViewRows(forests.forests, forests.views, None, n_jobs=n_jobs, train_subset=sample)
    return sample, rows.scan(sample)[0]


_MAP_BLOCK = 8192
"""Rows projected at once by :func:`candidate_maps`."""


def candidate_maps(pool, test_rows: ViewRows, sample: np.ndarray) -> dict:
    """Every DVS candidate's map on the large-data path: a 2-D PCA of the candidate's joint
    dissimilarities to the prototypes (the space its forest sees, §A.10), axes fitted on the
    ``sample`` training rows, every training and test row placed with them (float32 coordinates).
    The all-views map is kept even when ``max_subset_size`` leaves it out of the candidates: a shared
    region of competence is taken there (:meth:`DVSExplanation.region_space`).

    Returns subset code -> (train_xy (n_train, 2), test_xy (n_test, 2), explained (2,))."""
    train_cols = pool.view_dissimilarities_  # Q arrays (n_train, m), the candidates' training input
    test_cols = test_rows.scan(pool.prototypes_)[0]
    every_view = np.ones(len(train_cols), dtype=bool)
    masks = list(pool.subsets_) + ([] if np.asarray(pool.subsets_).all(axis=1).any() else [every_view])
    maps = {}
    for mask in masks:
        sel = np.flatnonzero(mask)
        mean, axes, explained = pca_axes(_joint_columns(train_cols, sel, sample))
        maps[subset_code(mask)] = (_place(train_cols, sel, mean, axes), _place(test_cols, sel, mean, axes),
                                    explained)
    return maps


def _joint_columns(cols, views: np.ndarray, rows) -> np.ndarray:
    """The average over ``views`` of the prototype columns ``cols[q][rows]`` (float64): a candidate's input."""
    return np.mean([np.asarray(cols[q][rows], dtype=np.float64) for q in views], axis=0)


def _place(cols, views: np.ndarray, mean: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Coordinates (n, 2) float32 of every row of the views' joint prototype columns, by blocks of rows."""
    n = cols[0].shape[0]
    out = np.empty((n, 2), dtype=np.float32)
    for a in range(0, n, _MAP_BLOCK):
        rows = slice(a, min(n, a + _MAP_BLOCK))
        out[rows] = (_joint_columns(cols, views, rows) - mean) @ axes
    return out
