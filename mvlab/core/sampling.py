"""Class-grouped orders and class-stratified samples of rows: what a figure of many instances draws, and
what an experiment keeps of a large run for its figures."""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["class_order", "stratified_rows"]


def class_order(labels: Sequence[str]) -> np.ndarray:
    """Row order that groups instances by class name, keeping their original order within a class."""
    labels = np.asarray(labels).astype(str)
    return np.lexsort((np.arange(len(labels)), labels))


def stratified_rows(labels: Sequence[str], max_rows: int, random_state=0) -> np.ndarray:
    """At most ``max_rows`` row indices drawn within each class in proportion to its size (every
    class keeps at least one row, so a sample may exceed ``max_rows`` by fewer rows than there are
    classes), in class-grouped order (:func:`class_order`), rows of a class in their original order.

    All rows (class-grouped) when there are no more than ``max_rows``.  Returns indices (m,)."""
    labels = np.asarray(labels).astype(str)
    if max_rows < 1:
        raise ValueError(f"max_rows must be at least 1, got {max_rows}.")
    order = class_order(labels)
    if len(labels) <= max_rows:
        return order
    rng = np.random.default_rng(random_state)
    names, counts = np.unique(labels, return_counts=True)
    quota = np.maximum(1, np.floor(counts * max_rows / len(labels)).astype(int))
    rest = max_rows - quota.sum()  # the largest remainders take the rows left
    if rest > 0:
        remainders = counts * max_rows / len(labels) - np.floor(counts * max_rows / len(labels))
        quota[np.argsort(-remainders, kind="stable")[:rest]] += 1
    keep = [np.sort(rng.choice(np.flatnonzero(labels == name), size=q, replace=False))
            for name, q in zip(names, np.minimum(quota, counts))]
    return np.concatenate(keep)
