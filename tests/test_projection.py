"""mvlab.core.projection: PCA (standardised, and fitted axes for new rows) and classical MDS, dense and iterative."""

import numpy as np
import pytest

from mvlab.core.projection import pca_2d


def test_pca_matches_a_plain_eigendecomposition():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 5)) * [1, 10, 100, 1, 0.1]
    coords, explained = pca_2d(X)
    Z = (X - X.mean(0)) / X.std(0)
    evals, evecs = np.linalg.eigh(np.cov(Z, rowvar=False, bias=True))
    order = evals.argsort()[::-1]
    np.testing.assert_allclose(explained, evals[order][:2] / evals.sum())
    for k in range(2):
        ref = Z @ evecs[:, order[k]]
        np.testing.assert_allclose(np.abs(coords[:, k]), np.abs(ref), atol=1e-9)
    np.testing.assert_allclose(pca_2d(X * 3 + 1)[0], coords, atol=1e-9)  # standardised: scale-free


def test_pca_edge_cases():
    coords, explained = pca_2d(np.array([[1.0], [2.0], [4.0]]))
    assert coords.shape == (3, 2) and np.all(coords[:, 1] == 0) and explained[0] == pytest.approx(1)
    coords, explained = pca_2d(np.ones((4, 3)))  # constant: nothing to explain
    assert np.all(coords == 0) and np.all(explained == 0)
    with pytest.raises(ValueError, match="at least 2 rows"):
        pca_2d(np.ones((1, 3)))


def test_classical_mds_recovers_euclidean_configurations():
    from mvlab.core.projection import mds_2d

    rng = np.random.default_rng(0)
    P = rng.normal(size=(40, 2)) * [3, 1]
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    coords, explained = mds_2d(D)
    Dc = np.sqrt(((coords[:, None] - coords[None]) ** 2).sum(-1))
    np.testing.assert_allclose(Dc, D, atol=1e-9)
    assert explained.sum() == pytest.approx(1) and explained[0] > explained[1]
    # an asymmetric matrix is symmetrised first
    A = D + np.triu(rng.random((40, 40)) * 0.1, 1)
    np.testing.assert_allclose(mds_2d(A)[0], mds_2d((A + A.T) / 2)[0])
    with pytest.raises(ValueError, match="square"):
        mds_2d(np.ones((3, 4)))


def test_pca_project_places_new_rows_with_the_fitted_axes():
    from mvlab.core.projection import pca_project

    rng = np.random.default_rng(2)
    A, B = rng.normal(size=(30, 4)) * [5, 2, 1, 0.1], rng.normal(size=(7, 4))
    ca, cb, explained = pca_project(A, B)
    ref, ref_explained = pca_2d(A, standardize=False)
    np.testing.assert_allclose(ca, ref, atol=1e-9)
    np.testing.assert_allclose(explained, ref_explained)
    # a row of A given again as B lands on the same spot
    np.testing.assert_allclose(pca_project(A, A[3:4])[1], ca[3:4], atol=1e-9)
    with pytest.raises(ValueError, match="same columns"):
        pca_project(A, B[:, :3])


def test_iterative_projections_equal_the_dense_ones(monkeypatch):
    """The fast paths of pca_project and mds_2d (iterative solvers above DENSE_LIMIT) against the
    dense solvers on the same matrices."""
    import mvlab.core.projection as proj

    rng = np.random.default_rng(3)
    D = rng.random((450, 450)) + np.repeat(np.arange(3), 150)[:, None] * 0.3
    T = rng.random((50, 450))
    fast = proj.pca_project(D, T), proj.mds_2d(D)
    monkeypatch.setattr(proj, "DENSE_LIMIT", 10_000)
    dense = proj.pca_project(D, T), proj.mds_2d(D)
    for a, b in zip(fast[0], dense[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    for a, b in zip(fast[1], dense[1]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_radial_layout_keeps_every_distance_to_the_centre_exactly():
    from mvlab.core.projection import radial_layout

    rng = np.random.default_rng(3)
    points = rng.normal(size=(30, 5))
    centre = rng.normal(size=5)
    d = np.linalg.norm(points - centre, axis=1)
    D = np.linalg.norm(points[:, None] - points[None], axis=2)
    coords = radial_layout(d, D)
    assert np.allclose(np.hypot(*coords.T), d)
    # directions follow the MDS picture: in a plane (2-D data) the whole configuration is recovered
    flat = np.column_stack([points[:, :2], np.zeros((30, 3))])
    c2 = np.r_[centre[:2], np.zeros(3)]
    d2 = np.linalg.norm(flat - c2, axis=1)
    coords2 = radial_layout(d2, np.linalg.norm(flat[:, None] - flat[None], axis=2))
    got = np.linalg.norm(coords2[:, None] - coords2[None], axis=2)
    assert np.allclose(got, np.linalg.norm(flat[:, None] - flat[None], axis=2), atol=1e-6)
    with pytest.raises(ValueError, match="to_centre"):
        radial_layout(d[:3], D)
