"""Labelled pairs for the Siamese deep forest (docs/algorithms.md §C.1, §C.8).

A pair ``(i, j)`` of instances of a labelled dataset is *similar* (``y_ij = 0``) when both
share a class and *dissimilar* (``y_ij = 1``) otherwise (Eqs. 1-2). Pairs are index pairs into
``X``; :func:`pair_features` builds the concatenated vectors ``(x_i, x_j)`` only when a forest
needs them.

Sampling is exact and without replacement: every unordered pair ``{i, j}`` (``i != j``) of the
pool is drawn at most once, uniformly among the pairs of its kind. Each drawn pair is given a
random orientation (``(i, j)`` or ``(j, i)``, the concatenation being asymmetric) unless
``both_orders=True``, which puts both orientations in the output.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state

from mvlab.core.params import POSITIVE_COUNT, RANDOM_STATE, validate_params

__all__ = ["POOLS", "PairSplit", "make_pair_split", "make_pairs", "pair_features", "split_pools", "pair_capacity",
           "max_train_pairs", "default_n_test_pairs"]


def _tri_decode(k, n):
    """Map linear indices ``k`` in ``[0, n(n-1)/2)`` to pairs ``a < b`` of ``range(n)``.

    Row-major order over the strict upper triangle: (0,1), (0,2), ..., (0,n-1), (1,2), ...
    """
    k = np.asarray(k, dtype=np.int64)
    # a = largest a with start(a) <= k, start(a) = a*n - a(a+1)/2
    a = (n - 2 - np.floor(np.sqrt(-8.0 * k + 4.0 * n * (n - 1) - 7) / 2.0 - 0.5)).astype(np.int64)
    start = a * n - a * (a + 1) // 2
    # guard against floating-point off-by-one
    over = start > k
    a[over] -= 1
    start = a * n - a * (a + 1) // 2
    nxt = (a + 1) * n - (a + 1) * (a + 2) // 2
    under = k >= nxt
    a[under] += 1
    start = a * n - a * (a + 1) // 2
    b = k - start + a + 1
    return a, b


def _draw_from_blocks(counts, n, rng):
    """``n`` distinct items drawn uniformly from consecutive blocks of ``counts`` items each.

    Returns (block index of each draw, position of the draw inside its block)."""
    offsets = np.concatenate([[0], np.cumsum(counts)])
    ks = rng.choice(offsets[-1], size=n, replace=False)
    block = np.searchsorted(offsets, ks, side="right") - 1
    return block, ks - offsets[block]


def _sample_similar(groups, n, rng):
    """``n`` distinct unordered pairs inside the groups (lists of instance indices)."""
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    gi, local = _draw_from_blocks(sizes * (sizes - 1) // 2, n, rng)
    out = np.empty((n, 2), dtype=np.int64)
    for g in np.unique(gi):
        sel = gi == g
        a, b = _tri_decode(local[sel], sizes[g])
        out[sel, 0] = groups[g][a]
        out[sel, 1] = groups[g][b]
    return out


def _sample_dissimilar(groups, n, rng):
    """``n`` distinct unordered pairs whose two members lie in different groups."""
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    blocks = [(a, b) for a in range(len(groups)) for b in range(a + 1, len(groups))]
    counts = np.array([sizes[a] * sizes[b] for a, b in blocks], dtype=np.int64)
    bi, local_all = _draw_from_blocks(counts, n, rng)
    out = np.empty((n, 2), dtype=np.int64)
    for blk in np.unique(bi):
        sel = bi == blk
        a, b = blocks[blk]
        local = local_all[sel]
        out[sel, 0] = groups[a][local // sizes[b]]
        out[sel, 1] = groups[b][local % sizes[b]]
    return out


@validate_params(
    {
        "y": ["array-like"],
        "n_pairs": POSITIVE_COUNT,
        "balanced": ["boolean"],
        "both_orders": ["boolean"],
        "pool": ["array-like", None],
        "random_state": RANDOM_STATE,
    },
    prefer_skip_nested_validation=True,
)
def make_pairs(y, n_pairs, *, balanced=True, both_orders=False, pool=None, random_state=None):
    """Draw labelled pairs of instances (Eqs. 1-2): ``y_ij = 0`` same class, ``1`` otherwise.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels of the instances.
    n_pairs : int
        Number of rows of the output.
    balanced : bool, default=True
        ``True``: ``n_pairs // 2`` similar and the rest dissimilar pairs (class-balanced pair
        labels, the reading of §C.1); each kind is uniform over all pairs of that kind.
        ``False``: uniform over all pairs ("natural" label frequencies).
    both_orders : bool, default=False
        Emit each drawn pair in both orders ``(i, j)`` and ``(j, i)``; ``n_pairs`` must then be
        even and ``n_pairs // 2`` distinct unordered pairs are drawn.
    pool : array-like of int, optional
        Indices of the instances that may be used (e.g. a training pool); default all.
        Returned indices always refer to rows of ``y`` (and ``X``).
    random_state : int, RandomState or None

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2), int64
        Index pairs into ``X``/``y``; never ``i == j``.
    y_pairs : ndarray of shape (n_pairs,), int64
        0 for similar, 1 for dissimilar.

    Raises
    ------
    ValueError
        When the pool cannot provide that many distinct pairs of a kind (for example similar
        pairs requested but every class has a single instance in the pool).
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (one label per instance); got shape {y.shape}.")
    if pool is None:
        pool = np.arange(y.size)
    else:
        pool = np.asarray(pool)
        if pool.ndim != 1 or not np.issubdtype(pool.dtype, np.integer):
            raise ValueError("pool must be a 1-D array of integer instance indices.")
        if pool.size and (pool.min() < 0 or pool.max() >= y.size):
            raise ValueError(f"pool holds indices outside [0, {y.size}).")
        if np.unique(pool).size != pool.size:
            raise ValueError("pool must not contain repeated indices.")
    if both_orders and n_pairs % 2:
        raise ValueError("with both_orders=True, n_pairs must be even (each pair appears twice).")
    # A Generator seeded from random_state: its choice(replace=False) is O(size) even when the
    # population (all pairs of a large pool) is huge.
    rng = np.random.default_rng(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    n_draw = n_pairs // 2 if both_orders else n_pairs

    classes, inv = np.unique(y[pool], return_inverse=True)
    groups = [pool[inv == c] for c in range(classes.size)]
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    n_sim_avail = int((sizes * (sizes - 1) // 2).sum())
    n_all = pool.size * (pool.size - 1) // 2
    n_dis_avail = int(n_all - n_sim_avail)

    if balanced:
        n_sim = n_draw // 2
        n_dis = n_draw - n_sim
        if n_sim > n_sim_avail:
            raise ValueError(
                f"cannot draw {n_sim} distinct similar pairs: the pool ({pool.size} instances, "
                f"class sizes {sizes.tolist()}) only has {n_sim_avail}. Every similar pair needs "
                "two instances of one class; use fewer pairs, a larger pool or balanced=False."
            )
        if n_dis > n_dis_avail:
            raise ValueError(
                f"cannot draw {n_dis} distinct dissimilar pairs: the pool only has {n_dis_avail} "
                f"(classes present: {classes.size}). Use fewer pairs or a larger pool."
            )
        parts = [_sample_similar(groups, n_sim, rng), _sample_dissimilar(groups, n_dis, rng)]
        labels = np.concatenate([np.zeros(n_sim, np.int64), np.ones(n_dis, np.int64)])
        pairs = np.concatenate(parts, axis=0)
    else:
        if n_draw > n_all:
            raise ValueError(
                f"cannot draw {n_draw} distinct pairs from a pool of {pool.size} instances "
                f"(only {n_all} exist)."
            )
        ks = rng.choice(n_all, size=n_draw, replace=False)
        a, b = _tri_decode(ks, pool.size)
        pairs = np.stack([pool[a], pool[b]], axis=1).astype(np.int64)
        labels = (y[pairs[:, 0]] != y[pairs[:, 1]]).astype(np.int64)

    if both_orders:
        pairs = np.concatenate([pairs, pairs[:, ::-1]], axis=0)
        labels = np.concatenate([labels, labels])
    else:
        flip = rng.random(pairs.shape[0]) < 0.5
        pairs[flip] = pairs[flip][:, ::-1]
    order = rng.permutation(pairs.shape[0])
    return np.ascontiguousarray(pairs[order]), labels[order]


def pair_features(X, pairs):
    """Concatenated pair vectors ``(x_i, x_j)`` (§C.1), shape (n_pairs, 2 * n_features).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    pairs : array-like of shape (n_pairs, 2), int
    """
    X = np.asarray(X)
    pairs = np.asarray(pairs)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {X.shape}.")
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise ValueError(
            f"pairs must be an integer array of shape (n_pairs, 2); got {pairs.shape}."
        )
    if pairs.size and (pairs.min() < 0 or pairs.max() >= X.shape[0]):
        raise ValueError(f"pairs hold indices outside [0, {X.shape[0]}) (rows of X).")
    return np.hstack([X[pairs[:, 0]], X[pairs[:, 1]]])


def split_pools(y, test_size=0.4, *, stratify=True, random_state=None):
    """Split instances into disjoint training and test pools.

    No instance of a test pair is then seen in training (§C.1 [REC]). The default
    ``test_size=0.4`` matches the paper's ratio of ``2N/3`` test to ``N`` training pairs.

    Returns
    -------
    train_pool, test_pool : ndarray of int, disjoint, covering ``range(len(y))``.
    """
    y = np.asarray(y)
    idx = np.arange(y.size)
    strat = y if stratify else None
    if stratify:
        _, counts = np.unique(y, return_counts=True)
        if counts.min() < 2:
            strat = None  # a singleton class cannot be stratified; fall back to a plain split
    tr, te = train_test_split(idx, test_size=test_size, stratify=strat, random_state=random_state)
    return np.sort(tr), np.sort(te)


@dataclass(frozen=True)
class PairSplit:
    """Training and test pairs drawn from disjoint instance pools (see :func:`make_pair_split`)."""

    train_pairs: np.ndarray
    y_train: np.ndarray
    test_pairs: np.ndarray
    y_test: np.ndarray
    train_pool: np.ndarray
    test_pool: np.ndarray


POOLS = ("disjoint", "shared")
"""How :func:`make_pair_split` draws test pairs: from instances never seen in training pairs, or from the
same instances as the training pairs (distinct pairs)."""


def default_n_test_pairs(n_train_pairs: int, *, both_orders: bool = False) -> int:
    """The paper's ``2N/3`` test pairs for ``N`` training pairs (§C.8), rounded to the nearest integer (at least 1;
    even with ``both_orders``, whose pairs come in both orders): 667 for N = 1000."""
    n = max(1, int(round(2 * n_train_pairs / 3)))
    return n + 1 if both_orders and n % 2 else n


def make_pair_split(
    y,
    n_train_pairs,
    n_test_pairs=None,
    *,
    test_size=0.4,
    balanced=True,
    both_orders=False,
    stratify=True,
    pools="disjoint",
    random_state=None,
):
    """One draw of the paper's protocol (§C.8): N training pairs, ``2N/3`` test pairs.

    The paper says only that it "randomly select[s] N training data and N_test = 2N/3 test data"; two readings:

    - ``pools="disjoint"`` (default): the instances are first split into disjoint pools
      (:func:`split_pools`); training pairs are drawn inside the training pool and test pairs inside the
      test pool, so no instance of a test pair was seen in training;
    - ``pools="shared"``: ``N + 2N/3`` distinct pairs are drawn from all instances and dealt into training
      and test pairs (each set keeps the requested balance); a test pair is never a training pair, but
      its instances usually appear in training pairs too.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    n_train_pairs : int
        N.
    n_test_pairs : int, optional
        Default ``round(2 N / 3)`` (made even when ``both_orders``).
    test_size, stratify : passed to :func:`split_pools` (``"disjoint"`` only).
    balanced, both_orders : passed to :func:`make_pairs`.
    pools : {"disjoint", "shared"}
    random_state : int, RandomState or None

    Returns
    -------
    PairSplit
        With ``"shared"``, ``train_pool`` and ``test_pool`` both hold every instance.
    """
    if pools not in POOLS:
        raise ValueError(f"pools must be one of {POOLS}; got {pools!r}.")
    rng = check_random_state(random_state)
    if n_test_pairs is None:
        n_test_pairs = default_n_test_pairs(n_train_pairs, both_orders=both_orders)
    seed = lambda: int(rng.randint(np.iinfo(np.int32).max))  # noqa: E731
    if pools == "shared":
        return _shared_pool_split(y, n_train_pairs, n_test_pairs, balanced, both_orders, seed())
    train_pool, test_pool = split_pools(y, test_size, stratify=stratify, random_state=seed())
    tr, ytr = make_pairs(
        y, n_train_pairs, balanced=balanced, both_orders=both_orders, pool=train_pool,
        random_state=seed(),
    )
    te, yte = make_pairs(
        y, n_test_pairs, balanced=balanced, both_orders=both_orders, pool=test_pool,
        random_state=seed(),
    )
    return PairSplit(tr, ytr, te, yte, train_pool, test_pool)


def _shared_pool_split(y, n_train, n_test, balanced, both_orders, seed) -> PairSplit:
    """``n_train + n_test`` distinct pairs of all instances, dealt into the two sets: with ``balanced``,
    the training set gets ``n_train // 2`` similar pairs and the test set the other similar pairs of the
    balanced draw (``n_test // 2``, one more when both counts are odd)."""
    y = np.asarray(y)
    everyone = np.arange(y.size)
    step = 2 if both_orders else 1
    if both_orders and (n_train % 2 or n_test % 2):
        raise ValueError("with both_orders=True, both numbers of pairs must be even (each pair appears twice).")
    k_train, k_test = n_train // step, n_test // step
    pairs, labels = make_pairs(y, k_train + k_test, balanced=balanced, random_state=seed)
    rng = np.random.default_rng(seed)
    if balanced:  # make_pairs shuffled its output: the first similar (dissimilar) pairs are a random subset
        sim, dis = np.flatnonzero(labels == 0), np.flatnonzero(labels == 1)
        s_train = k_train // 2
        train = np.concatenate([sim[:s_train], dis[:k_train - s_train]])
        test = np.concatenate([sim[s_train:], dis[k_train - s_train:]])
    else:
        order = rng.permutation(labels.size)
        train, test = order[:k_train], order[k_train:]

    def finish(rows):
        p, lab = pairs[rows], labels[rows]
        if both_orders:
            p, lab = np.concatenate([p, p[:, ::-1]]), np.concatenate([lab, lab])
        order = rng.permutation(lab.size)
        return np.ascontiguousarray(p[order]), lab[order]

    (tr, ytr), (te, yte) = finish(train), finish(test)
    return PairSplit(tr, ytr, te, yte, everyone, everyone)


def pair_capacity(y, n_pairs_of: int = 0, *, balanced: bool = True) -> int:
    """How many distinct pairs :func:`make_pairs` can draw from instances with labels ``y``:
    with ``balanced``, ``n // 2`` similar and ``n - n // 2`` dissimilar pairs must exist."""
    y = np.asarray(y)
    _, sizes = np.unique(y, return_counts=True)
    n = int(sizes.sum())
    similar = int((sizes * (sizes - 1) // 2).sum())
    every = n * (n - 1) // 2
    if not balanced:
        return every
    return int(min(2 * similar + 1, 2 * (every - similar)))


def max_train_pairs(y, *, test_size=0.4, balanced=True, stratify=True, trials: int = 5) -> int:
    """The largest N for which :func:`make_pair_split` can draw N training and ``2N/3`` test pairs
    from the disjoint pools of ``y``, whatever the seed of the pools (the smallest over ``trials``
    pool splits, seeds 0..trials-1).  0 when no pair can be drawn.

    Remembered for the 64 most recent label vectors (a digest of their content): the Siamese page
    asks on every rerun of every session, and five stratified splits take tens of milliseconds."""
    y = np.asarray(y)
    key = (hashlib.blake2b(y.tobytes(), digest_size=16).hexdigest(), y.dtype.str, y.shape, float(test_size),
           bool(balanced), bool(stratify), int(trials))
    found = _MAX_PAIRS_SEEN.get(key)
    if found is None:
        found = _MAX_PAIRS_SEEN[key] = _max_train_pairs(y, test_size, balanced, stratify, trials)
        while len(_MAX_PAIRS_SEEN) > 64:
            _MAX_PAIRS_SEEN.popitem(last=False)
    return found


_MAX_PAIRS_SEEN: OrderedDict = OrderedDict()


def _max_train_pairs(y, test_size, balanced, stratify, trials) -> int:
    best = None
    for seed in range(trials):
        train_pool, test_pool = split_pools(y, test_size, stratify=stratify, random_state=seed)
        n_train = pair_capacity(y[train_pool], balanced=balanced)
        n_test = pair_capacity(y[test_pool], balanced=balanced)
        limit = min(n_train, int(1.5 * n_test))  # test pairs: round(2N/3)
        while limit > 1 and max(1, int(round(2 * limit / 3))) > n_test:
            limit -= 1
        best = limit if best is None else min(best, limit)
    return max(0, int(best or 0))
