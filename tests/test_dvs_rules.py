"""The DVS rule tables (mvlab/rfd/dvs_rules.py) against loops over instances and neighbours written from
docs/algorithms.md §A.8, and the tables' agreement with DVSCombiner's validated parameters."""

import numpy as np
import pytest

from mvlab.rfd.dvs import DVSCombiner
from mvlab.rfd.dvs_rules import (
    COMPETENCE_RULES,
    NEIGHBOUR_WEIGHT_RULES,
    REGION_RULES,
    TIE_BREAK_ORDERS,
    PoolEvidence,
    selection_priority,
)


def reference_competence(name, hits, true_proba, y, regions, predictions, weights):
    """One candidate, one instance at a time (P, n)."""
    P, n, k = regions.shape
    out = np.zeros((P, n))
    for p in range(P):
        for i in range(n):
            nb = regions[p, i]
            w = np.ones(k) if weights is None else weights[p, i]
            if name == "lca":
                same = [j for j in nb if y[j] == predictions[p, i]]
                out[p, i] = np.mean([hits[j, p] for j in same]) if same else 0.0
                continue
            ev = hits[nb, p].astype(float) if name == "ola" else true_proba[nb, p]
            out[p, i] = np.dot(w, ev) / w.sum() if w.sum() > 0 else ev.mean()
    return out


@pytest.mark.parametrize("weights_rule", sorted(NEIGHBOUR_WEIGHT_RULES))
@pytest.mark.parametrize("name", sorted(COMPETENCE_RULES))
def test_every_competence_rule_equals_its_loop(name, weights_rule):
    rng = np.random.default_rng(3)
    n_train, P, n, k = 40, 5, 12, 6
    hits = rng.random((n_train, P)) < 0.6
    true_proba = rng.random((n_train, P))
    y = rng.integers(0, 3, n_train)
    regions = rng.integers(0, n_train, (P, n, k))
    predictions = rng.integers(0, 3, (P, n))
    region_d = rng.random((P, n, k))
    rule = COMPETENCE_RULES[name]
    weights = NEIGHBOUR_WEIGHT_RULES[weights_rule](region_d)
    got = rule(PoolEvidence(hits, true_proba, y), regions, predictions if rule.needs_predictions else None, weights)
    want = reference_competence(name, hits, true_proba, y, regions, predictions,
                                weights if rule.uses_neighbour_weights else None)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert rule.name == name and rule.title


def test_tie_break_orders_sort_as_documented():
    acc = np.array([0.8, 0.9, 0.9, 0.7, 0.9])
    sizes = np.array([1, 1, 2, 3, 2])
    # "oob": highest accuracy, then more views, then lowest index
    assert np.argsort(selection_priority(acc, sizes, "oob")).tolist() == [2, 4, 1, 0, 3]
    # "fewest": fewest views, then highest accuracy, then lowest index
    assert np.argsort(selection_priority(acc, sizes, "fewest")).tolist() == [1, 0, 2, 4, 3]
    with pytest.raises(ValueError, match="tie_break must be one of"):
        selection_priority(acc, sizes, "random")


def test_the_tables_are_the_combiners_choices():
    """A rule is one table entry: the combiner's parameters accept exactly the tables' names."""
    constraints = DVSCombiner._parameter_constraints
    assert constraints["competence"][0].options == set(COMPETENCE_RULES)
    assert constraints["neighbour_weights"][0].options == set(NEIGHBOUR_WEIGHT_RULES)
    assert constraints["tie_break"][0].options == set(TIE_BREAK_ORDERS)


@pytest.mark.parametrize("name", sorted(REGION_RULES))
def test_every_region_rule_equals_a_search_per_candidate(name):
    """Exact regions and the block scan's regions, spread to every candidate, against a plain search of each
    candidate's space (its own views' average, or the all-views average for the shared rule)."""
    from mvlab.rfd.dvs_pool import subset_dissimilarity, view_subsets
    from mvlab.rfd.view_rows import DenseViewRows

    rng = np.random.default_rng(5)
    Q, n, n_train, k = 3, 9, 30, 4
    Ds = [rng.random((n, n_train)).astype(np.float32) for _ in range(Q)]
    subsets = view_subsets(Q)
    rule = REGION_RULES[name]
    want = []
    for mask in subsets:
        space = mask if name == "candidate" else np.ones(Q, dtype=bool)
        joint = subset_dissimilarity(Ds, space)
        want.append(np.argsort(joint, axis=1, kind="stable")[:, :k])
    regions, region_d = rule.exact(Ds, subsets, k, with_dissimilarities=True)
    np.testing.assert_array_equal(regions, np.stack(want))
    _, idx, dist = DenseViewRows(Ds).scan(None, rule.combos(subsets), k)
    spread, spread_d = rule.spread(idx, dist, len(subsets))
    np.testing.assert_array_equal(spread, np.stack(want))
    np.testing.assert_allclose(spread_d, region_d, rtol=1e-6)
    assert DVSCombiner._parameter_constraints["region"][0].options == set(REGION_RULES)
