"""Two-dimensional projections for looking at data: PCA of one view.

Pure numpy; used by the Data page and usable on any matrix.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pca_2d"]


def pca_2d(X, *, standardize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Project rows of ``X`` (n, d) on their first two principal components.

    Columns are centred and, with ``standardize=True``, scaled to unit variance (constant
    columns are left at zero), because views often mix scales (mfeat's ``mor`` view spans
    0..2000 next to 0..1 features).  Signs are fixed so that the largest-magnitude loading of
    each component is positive, which makes the picture deterministic.

    Returns
    -------
    coords : ndarray (n, 2)
        Scores on PC1 and PC2 (zeros for a component that does not exist, e.g. d = 1).
    explained : ndarray (2,)
        Fraction of the total variance explained by PC1 and PC2.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"pca_2d needs a 2-D matrix with at least 2 rows, got shape {X.shape}.")
    Z = X - X.mean(axis=0)
    if standardize:
        std = Z.std(axis=0)
        Z = np.divide(Z, std, out=np.zeros_like(Z), where=std > 0)
    U, s, Vt = np.linalg.svd(Z, full_matrices=False)
    k = min(2, len(s))
    signs = np.sign(Vt[np.arange(k), np.abs(Vt[:k]).argmax(axis=1)])
    signs[signs == 0] = 1
    coords = np.zeros((X.shape[0], 2))
    coords[:, :k] = U[:, :k] * s[:k] * signs
    total = float((s**2).sum())
    explained = np.zeros(2)
    if total > 0:
        explained[:k] = s[:k] ** 2 / total
    return coords, explained
