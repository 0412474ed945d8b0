"""Tree-weight QP (docs/algorithms.md §C.4): fast projected gradient against cvxpy/Clarabel."""

import itertools
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning

from mvlab.siamese.tree_weights import (
    _face_direction,
    _face_direction_kkt,
    project_simplex,
    solve_tree_weights,
    tree_weight_gap,
    tree_weight_objective,
)


def _brute_force_projection(v):
    """Projection onto the simplex by enumerating every support set (T <= 8)."""
    T = v.size
    best, best_d = None, np.inf
    for k in range(1, T + 1):
        for S in itertools.combinations(range(T), k):
            S = list(S)
            x = np.zeros(T)
            x[S] = v[S] - (v[S].sum() - 1.0) / k
            if x.min() < -1e-12:
                continue
            d = np.sum((x - v) ** 2)
            if d < best_d:
                best, best_d = x, d
    return best


def _forest_like_P(rng, N, T, negative_rows=0):
    """Margins z (p0 - p1) with row-dependent tree accuracy, as trees produce them."""
    correct = rng.random((N, T)) < rng.uniform(0.1, 1.0, size=(N, 1))
    conf = np.where(rng.random((N, T)) < 0.6, 1.0, rng.random((N, T)))
    P = np.where(correct, -conf, conf)
    if negative_rows:
        P[:negative_rows] = -np.abs(P[:negative_rows]) - 0.01
    return P


def _on_simplex(w, T):
    assert w.shape == (T,)
    assert np.all(w >= 0)
    assert abs(w.sum() - 1.0) < 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_projection_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    T = int(rng.integers(1, 8))
    v = rng.normal(scale=rng.choice([0.1, 1.0, 5.0]), size=T)
    w = project_simplex(v)
    _on_simplex(w, T)
    np.testing.assert_allclose(w, _brute_force_projection(v), atol=1e-12)


def test_projection_fixed_points_and_ties():
    w = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(project_simplex(w), w, atol=1e-15)
    np.testing.assert_allclose(project_simplex(np.zeros(4)), np.full(4, 0.25))
    np.testing.assert_allclose(project_simplex(np.array([3.0, 3.0, -1.0])), [0.5, 0.5, 0.0])


CASES = [
    # (N, T, lam, kind)
    (40, 5, 0.0, "gauss"),
    (200, 30, 1e-3, "gauss"),
    (300, 64, 1.0, "forest"),
    (500, 100, 0.0, "forest"),
    (1000, 128, 0.1, "forest"),
    (1000, 128, 10.0, "gauss"),
    (300, 50, 1.0, "forest_negrows"),
    # trees far outnumber pairs (the paper's N = 100, T = 1000 corner): the polish takes the Woodbury route
    (60, 400, 1.0, "forest"),
    (50, 300, 1e-3, "forest"),
]


@pytest.mark.parametrize("N,T,lam,kind", CASES)
def test_pgd_matches_clarabel(N, T, lam, kind):
    rng = np.random.default_rng(N + T)
    if kind == "gauss":
        P = rng.standard_normal((N, T))
    else:
        P = _forest_like_P(rng, N, T, negative_rows=N // 3 if kind == "forest_negrows" else 0)
    w, info = solve_tree_weights(P, lam, return_info=True)
    w_ref, info_ref = solve_tree_weights(P, lam, solver="cvxpy", return_info=True)
    assert info_ref.solver == "cvxpy:CLARABEL"
    _on_simplex(w, T)
    _on_simplex(w_ref, T)
    f = tree_weight_objective(P, w, lam)
    f_ref = tree_weight_objective(P, w_ref, lam)
    assert info.converged
    assert f == pytest.approx(info.objective, rel=1e-12)
    # the fast solver is at least as good as the reference up to 1e-6 relative
    assert abs(f - f_ref) <= 1e-6 * f_ref
    # and its certificate is honest: f - f_ref <= certified gap (+ rounding)
    assert f - f_ref <= info.gap + 1e-9 * f_ref
    assert info.gap <= 1e-9 * f + 1e-12


def test_all_rows_negative_gives_uniform_weights():
    rng = np.random.default_rng(3)
    P = -rng.uniform(0.01, 1.0, size=(60, 12))
    # The hinge is never active on the simplex, so only lam ||w||^2 remains: uniform is optimal.
    w, info = solve_tree_weights(P, 2.0, return_info=True)
    np.testing.assert_allclose(w, np.full(12, 1 / 12), atol=1e-12)
    assert info.objective == pytest.approx(2.0 / 12)
    # lam = 0: f* = 0 and every point of the simplex is optimal; the solver stops at once.
    w0, info0 = solve_tree_weights(P, 0.0, return_info=True)
    _on_simplex(w0, 12)
    assert info0.objective == 0.0 and info0.converged
    w_ref = solve_tree_weights(P, 0.0, solver="cvxpy")
    assert tree_weight_objective(P, w_ref, 0.0) <= 1e-9


def test_single_tree_and_single_row():
    w = solve_tree_weights(np.array([[0.3], [-1.0]]), 1.0)
    np.testing.assert_allclose(w, [1.0])
    P = np.array([[1.0, -1.0, 0.5]])
    w = solve_tree_weights(P, 0.0)
    assert tree_weight_objective(P, w, 0.0) <= 1e-12  # weight can go to the negative column


def test_real_forest_P_matches_clarabel():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    tr, te = idx[:300], idx[300:]
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X[tr], y[tr])
    probas = np.stack([t.predict_proba(X[te].astype(np.float32)) for t in forest.estimators_], axis=1)
    z = 2.0 * y[te] - 1.0
    P = z[:, None] * (probas[:, :, 0] - probas[:, :, 1])  # Eq. 21, shape (N, T)
    for lam in (0.0, 0.5):
        w, info = solve_tree_weights(P, lam, return_info=True)
        w_ref = solve_tree_weights(P, lam, solver="cvxpy")
        f, f_ref = tree_weight_objective(P, w, lam), tree_weight_objective(P, w_ref, lam)
        _on_simplex(w, 20)
        assert abs(f - f_ref) <= 1e-6 * max(f_ref, 1e-12)
        assert tree_weight_gap(P, w, lam) <= 1e-8 * max(f, 1e-12)


@pytest.mark.parametrize("a,s,lam", [(70, 600, 1.0), (40, 400, 1e-3), (1, 50, 10.0), (0, 20, 1.0),
                                     (300, 100, 0.1), (50, 50, 2.0), (30, 80, 0.0), (120, 40, 0.0)])
def test_face_direction_matches_the_kkt_reference(a, s, lam):
    """The polish's face minimiser (Woodbury when rows < trees, Cholesky otherwise) against the dense KKT solve."""
    rng = np.random.default_rng(a * 1000 + s)
    B = _forest_like_P(rng, a, s) if a else np.zeros((0, s))
    ref = _face_direction_kkt(B, lam)
    fast = _face_direction(B, lam)
    assert fast.shape == (s,)
    ref, fast = ref / ref.sum(), fast / fast.sum()  # both are G^-1 1 up to a positive factor
    assert np.abs(fast - ref).max() <= 1e-9 * np.abs(ref).max()


def test_kkt_conditions_at_solution():
    rng = np.random.default_rng(11)
    P = _forest_like_P(rng, 400, 40)
    lam = 0.3
    w = solve_tree_weights(P, lam)
    g = 2 * (P.T @ np.maximum(P @ w, 0) + lam * w)
    support = w > 1e-10
    # on the support the gradient is constant and minimal (KKT on the simplex)
    assert np.ptp(g[support]) <= 1e-6 * np.abs(g).max()
    assert g[~support].min(initial=np.inf) >= g[support].max() - 1e-6 * np.abs(g).max()


def test_warm_start_and_no_polish_reach_same_objective():
    rng = np.random.default_rng(5)
    P = rng.standard_normal((300, 40))
    w1 = solve_tree_weights(P, 0.1)
    w2, info2 = solve_tree_weights(P, 0.1, polish=False, return_info=True)
    w3, info3 = solve_tree_weights(P, 0.1, w0=w1, return_info=True)
    f1 = tree_weight_objective(P, w1, 0.1)
    assert tree_weight_objective(P, w2, 0.1) == pytest.approx(f1, rel=1e-8)
    assert info2.converged
    assert info3.n_iter <= 1


def test_max_iter_warns():
    rng = np.random.default_rng(2)
    P = rng.standard_normal((200, 50))
    with pytest.warns(ConvergenceWarning):
        _, info = solve_tree_weights(P, 0.0, max_iter=2, polish=False, return_info=True)
    assert not info.converged


@pytest.mark.parametrize(
    "P,lam,match",
    [
        (np.ones(5), 1.0, "2-D"),
        (np.array([[1.0, np.nan]]), 1.0, "NaN"),
        (np.array([[1.0, np.inf]]), 1.0, "NaN or infinite"),
        (np.ones((3, 2)), -1.0, "lam"),
        (np.ones((3, 2)), np.nan, "lam"),
        (np.ones((0, 2)), 1.0, "at least one"),
        (np.array([["a", "b"]]), 1.0, "real numbers"),
    ],
)
def test_input_validation(P, lam, match):
    with pytest.raises(ValueError, match=match):
        solve_tree_weights(P, lam)


def test_bad_solver_and_w0():
    with pytest.raises(ValueError, match="solver"):
        solve_tree_weights(np.ones((2, 2)), 1.0, solver="osqp")
    with pytest.raises(ValueError, match="w0"):
        solve_tree_weights(np.ones((2, 2)), 1.0, w0=np.ones(3))


def test_no_warnings_on_regular_problem():
    rng = np.random.default_rng(9)
    P = _forest_like_P(rng, 500, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        w, info = solve_tree_weights(P, 0.0, return_info=True)
    assert info.converged
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0)
    assert tree_weight_objective(P, w, 0.0) == pytest.approx(info.objective)


def test_projection_survives_huge_values():
    # found by the property tests: u_1 - (u_1 - 1) rounds to 0 when |u_1| is about 1e16 or more
    from mvlab.siamese.tree_weights import project_simplex

    w = project_simplex(np.array([-9.49e17]))
    assert w.tolist() == [1.0]
    w = project_simplex(np.array([3e17, -3e17]))
    assert w.tolist() == [1.0, 0.0]


def test_a_lambda_so_small_that_its_step_overflows_still_solves():
    """``lam`` of the smallest normal float: the strong-convexity bound's step ``g / (2 lam)`` overflows to infinity
    and the projection of ``-inf`` has no threshold (an IndexError, found by tests/test_properties.py's Hypothesis
    run); the gap then falls back to Frank-Wolfe's. Fails when the bound is used without checking its step."""
    from mvlab.siamese import solve_tree_weights

    tiny = np.finfo(float).tiny
    assert np.array_equal(solve_tree_weights(np.array([[2.0]]), tiny), [1.0])
    w = solve_tree_weights(np.array([[2.0, -1.0], [1.0, -3.0]]), tiny)
    assert np.all(w >= 0) and abs(w.sum() - 1) < 1e-9 and 2 * w[0] - w[1] <= 1e-6
