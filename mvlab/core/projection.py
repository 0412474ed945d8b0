"""Two-dimensional projections for looking at data: PCA of one view, classical MDS of a
dissimilarity matrix.

Pure numpy/scipy; used by the pages and usable on any matrix.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pca_2d", "pca_axes", "pca_project", "mds_2d", "radial_layout"]


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


def _top2_right_singular(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two leading singular values (2,) and right singular vectors (2, d) of ``M`` (n, d).

    Small matrices: a full SVD.  Large ones (both sides above :data:`DENSE_LIMIT`): ARPACK's
    ``svds`` with a fixed start vector, which needs a few products with ``M`` instead of the
    O(n d min(n, d)) of a full SVD (2500 x 2500: 0.2 s instead of 8 s); the tests compare both.
    """
    n, d = M.shape
    k = min(2, n, d)
    if min(n, d) <= DENSE_LIMIT or k < 2:
        _, s, Vt = np.linalg.svd(M, full_matrices=False)
        return s[:k], Vt[:k]
    from scipy.sparse.linalg import svds

    v0 = np.random.default_rng(0).standard_normal(min(n, d))
    _, s, Vt = svds(M, k=2, v0=v0, solver="arpack")
    order = np.argsort(-s)
    return s[order], Vt[order]


DENSE_LIMIT = 400
"""Above this many rows and columns, projections use iterative solvers for their two axes."""


def pca_axes(A) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 2-D PCA of the rows of ``A`` (n_a, d) (centred, not standardised), as axes to place any
    rows with: ``(rows - mean) @ axes``.

    Only the two leading components are computed (:func:`_top2_right_singular`); signs as in
    :func:`pca_2d`; the explained shares divide by the total variance, the squared Frobenius norm
    of the centred ``A``.

    Returns mean (d,), axes (d, 2) (a zero column for a component that does not exist), explained (2,).
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] < 2:
        raise ValueError(f"a PCA needs a 2-D matrix with at least 2 rows, got shape {A.shape}.")
    mean = A.mean(axis=0)
    Ac = A - mean
    s, Vt = _top2_right_singular(Ac)
    k = len(s)
    signs = np.sign(Vt[np.arange(k), np.abs(Vt[:k]).argmax(axis=1)])
    signs[signs == 0] = 1
    axes = np.zeros((A.shape[1], 2))
    axes[:, :k] = Vt[:k].T * signs
    total = float(np.einsum("ij,ij->", Ac, Ac))
    explained = np.zeros(2)
    if total > 0:
        explained[:k] = s[:k] ** 2 / total
    return mean, axes, explained


def pca_project(A, B) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit a 2-D PCA on the rows of ``A`` (n_a, d) and place the rows of both ``A`` and ``B``
    (n_b, d) with it (:func:`pca_axes`: centred on A's mean, not standardised: in a dissimilarity
    space every column is on the same scale).

    Used to draw test instances and their training neighbours in one picture of the
    dissimilarity space (rows are instances' dissimilarities to the training instances).

    Returns coords_a (n_a, 2), coords_b (n_b, 2), explained (2,) as in :func:`pca_2d`.
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1] or A.shape[0] < 2:
        raise ValueError(f"pca_project needs two matrices with the same columns and >= 2 rows in A, got {A.shape}, "
                         f"{B.shape}.")
    mean, axes, explained = pca_axes(A)
    return (A - mean) @ axes, (B - mean) @ axes, explained


def mds_2d(D) -> tuple[np.ndarray, np.ndarray]:
    """Classical (Torgerson) multidimensional scaling of a dissimilarity matrix into 2-D.

    ``D`` (n, n) is symmetrised as (D + D.T) / 2 (forest dissimilarities such as RFD are not
    symmetric).  With J = I - 11'/n the centring matrix, B = -J D² J / 2 and the coordinates are
    the two leading eigenvectors of B scaled by the square roots of their eigenvalues
    (negative eigenvalues, which non-Euclidean dissimilarities produce, are clipped to zero).
    Signs are fixed as in :func:`pca_2d`.  Above :data:`DENSE_LIMIT` rows the two eigenpairs come
    from Lanczos iterations (``eigsh``, fixed start vector) instead of a dense eigensolver: the
    same pairs (tests compare both), a few seconds less at n = 2500.

    Returns
    -------
    coords : ndarray (n, 2)
    explained : ndarray (2,)
        Eigenvalue of each axis over trace(B), the sum of all eigenvalues (the share of
        variance for Euclidean distances; for other dissimilarities negative eigenvalues lower
        the trace, so read it as a rough guide).
    """
    from scipy.linalg import eigh

    D = np.asarray(D, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] != D.shape[1] or D.shape[0] < 2:
        raise ValueError(f"mds_2d needs a square dissimilarity matrix with at least 2 rows, got shape {D.shape}.")
    if not np.isfinite(D).all():
        raise ValueError("mds_2d: the dissimilarity matrix holds missing or infinite values.")
    n = D.shape[0]
    S = ((D + D.T) / 2) ** 2
    B = S - S.mean(axis=0) - S.mean(axis=1)[:, None] + S.mean()
    B *= -0.5
    k = min(2, n)
    if n <= DENSE_LIMIT or k < 2:
        evals, evecs = eigh(B, subset_by_index=[n - k, n - 1])
    else:
        from scipy.sparse.linalg import eigsh

        evals, evecs = eigsh(B, k=2, which="LA", v0=np.random.default_rng(0).standard_normal(n), tol=1e-10)
        order = np.argsort(evals)
        evals, evecs = evals[order], evecs[:, order]
    evals, evecs = evals[::-1], evecs[:, ::-1]
    evals = np.clip(evals, 0, None)
    signs = np.sign(evecs[np.abs(evecs).argmax(axis=0), np.arange(k)])
    signs[signs == 0] = 1
    coords = np.zeros((n, 2))
    coords[:, :k] = evecs * np.sqrt(evals) * signs
    total = float(np.trace(B))
    explained = np.zeros(2)
    if total > 0:
        explained[:k] = np.minimum(evals / total, 1.0)
    return coords, explained


def radial_layout(to_centre, D) -> np.ndarray:
    """2-D positions of m points around a centre at the origin, each at its *exact* dissimilarity from the
    centre: point j lies at radius ``to_centre[j]``, in the direction it has from the centre in the classical
    MDS (:func:`mds_2d`) of the centre and the m points together.

    A map of a neighbourhood on which near looks near: the distance from the centre is not approximated, only
    the angles are (so two points on opposite sides may be alike; a point is never drawn nearer or farther
    than it is).

    Parameters
    ----------
    to_centre : array-like (m,), dissimilarities of the points to the centre (>= 0)
    D : array-like (m, m), dissimilarities among the points

    Returns
    -------
    coords : ndarray (m, 2), with ``np.hypot(*coords.T) == to_centre``
    """
    d = np.asarray(to_centre, dtype=np.float64)
    D = np.asarray(D, dtype=np.float64)
    if d.ndim != 1 or D.shape != (d.size, d.size):
        raise ValueError(f"radial_layout needs to_centre (m,) and D (m, m); got {d.shape} and {D.shape}.")
    if not (np.isfinite(d).all() and (d >= 0).all()):
        raise ValueError("radial_layout: the dissimilarities to the centre must be finite and >= 0.")
    full = np.zeros((d.size + 1, d.size + 1))
    full[0, 1:] = full[1:, 0] = d
    full[1:, 1:] = D
    coords, _ = mds_2d(full)
    direction = coords[1:] - coords[0]
    angle = np.arctan2(direction[:, 1], direction[:, 0])
    return np.column_stack([d * np.cos(angle), d * np.sin(angle)])
