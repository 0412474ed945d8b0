"""A parameter is declared once, in its estimator: the dashboard's settings read its bounds, choices and
meaning from the estimator's ``_parameter_constraints`` and docstring (mvlab/core/declared.py)."""

import dataclasses
import math
import numbers

import pytest

from mvlab.core.declared import declared_bounds, declared_doc, declared_options
from mvlab.core.params import Interval, StrOptions
from mvlab.experiments import settings as page_settings
from mvlab.rfd.dvs import DVSCombiner
from mvlab.siamese.forest import SiameseDeepForest


class Toy:
    """A toy.

    Parameters
    ----------
    k : int, default=3
        Neighbours. Second sentence, with ``markup`` and :class:`~mvlab.rfd.dvs.DVSCombiner`.
    rule : {"b", "a", "c"}, default="b"
        Which rule.
    rate : float
        A rate in (0, 1).

    Attributes
    ----------
    k_ : int
        Not a parameter.
    """

    _parameter_constraints = {
        "k": [Interval(numbers.Integral, 0, 10, closed="right"), None],
        "rule": [StrOptions({"a", "b", "c"})],
        "rate": [Interval(numbers.Real, 0, 1, closed="neither")],
        "undocumented": [Interval(numbers.Integral, 1, None, closed="left")],
    }


class ToyChild(Toy):
    """A child that documents nothing of its own."""


def test_bounds_options_and_doc_are_read_from_the_estimator():
    assert declared_bounds(Toy, "k") == (1, 10)  # an open integer end moves inside
    assert declared_bounds(Toy, "rate") == (0, 1)
    assert declared_bounds(Toy, "undocumented") == (1, math.inf)
    assert declared_options(Toy, "rule") == ("b", "a", "c")  # in the docstring's order
    assert declared_doc(Toy, "k") == "Neighbours."
    assert declared_doc(Toy, "k", sentences=2) == "Neighbours. Second sentence, with markup and DVSCombiner."
    assert declared_doc(ToyChild, "rule") == "Which rule."  # a base class's documentation
    with pytest.raises(ValueError, match="does not document a parameter 'undocumented'"):
        declared_doc(Toy, "undocumented")
    with pytest.raises(ValueError, match="declares no constraint"):
        declared_bounds(Toy, "k_")
    with pytest.raises(ValueError, match="not constrained to an interval"):
        declared_bounds(Toy, "rule")


def declared_fields():
    for cls in vars(page_settings).values():
        if isinstance(cls, type) and dataclasses.is_dataclass(cls):
            for f in dataclasses.fields(cls):
                if "estimator" in f.metadata:
                    yield cls, f


def test_page_settings_take_their_fields_from_the_estimators():
    fields = list(declared_fields())
    assert len(fields) >= 10
    for cls, f in fields:
        estimator, name = f.metadata["estimator"]
        assert name in estimator._parameter_constraints, (cls.__name__, f.name)
        assert f.metadata["help"].startswith(declared_doc(estimator, name)), (cls.__name__, f.name)
        if f.metadata["options"] is not None:
            assert set(f.metadata["options"]) == set(declared_options(estimator, name))
            assert f.default in f.metadata["options"]
        else:
            low, high = declared_bounds(estimator, name)
            lo, hi = f.metadata["range"]
            assert low <= lo <= f.default <= hi <= high, (cls.__name__, f.name)
            if (lo, hi) != (low, high):
                assert "This page allows" in f.metadata["help"]  # a narrowed range says so


def test_the_dvs_page_k_is_the_combiners_k():
    f = next(f for f in dataclasses.fields(page_settings.DVSSettings) if f.name == "k")
    assert f.metadata["estimator"] == (DVSCombiner, "k")
    assert "region of competence" in f.metadata["help"] and "This page allows 1 to 50" in f.metadata["help"]
    lam = next(f for f in dataclasses.fields(page_settings.SiameseSettings) if f.name == "qp_probas")
    assert lam.metadata["options"] == declared_options(SiameseDeepForest, "qp_probas")


def test_a_page_range_outside_the_estimators_bounds_is_refused():
    with pytest.raises(ValueError, match="leaves its declared bounds"):
        page_settings._declared(0, DVSCombiner, "k", range=(0, 50))
