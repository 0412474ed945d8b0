"""The Siamese deep forest paper's Tables 4-9 on its own datasets, draw by draw (Utkin & Ryabinin 2018).

The grid (:func:`paper_grid`):

- Tables 4, 5, 6 (Ecoli, Yeast, Ionosphere): N in {100, 500, 1000, 2000} training pairs x T in
  {100, 400, 700, 1000} trees per forest, gcForest and SDF;
- Table 7 (Mammographic masses, Haberman, ILPD): N in {1000, 2000}, T = 700;
- Table 8: gcForest, bagging, random forest and SDF on the six datasets at one setting fixed in advance
  (N = 2000, T = 700, the setting of Table 7; the paper took "the best results from Tables 3–7", i.e. chose
  on its test draws, which :func:`table8_best_cells` also shows), the baselines on the same draws;
- Table 9: paired t-tests of SDF against each model over the datasets (:func:`table9`).

A *draw* is one pair split (:func:`mvlab.siamese.pairs.make_pair_split`, ``2N/3`` test pairs) and the
models fitted on it (:func:`mvlab.experiments.pair_methods.evaluate_pair_split`): gcForest and SDF with
the same forests' seeds (their first level is fitted once), 2 completely random + 2 random forests per
level, 3-fold class vectors, levels added while the training (out-of-fold) accuracy improves (at most
``max_levels``). SDF's lambda is chosen on the training pairs only, per fold-model, from :data:`LAM_GRID`
(``SiameseDeepForest(lam_grid=...)``). A draw's seed depends on the dataset, N, the reading and the draw
number, not on T: every T of an N sees the same pairs (the T columns of a row are paired).

Readings of the paper that move the numbers are run as separate ``reading`` values: ``"disjoint"`` (test
pairs from instances never seen in training, mvlab's default) and ``"shared"`` (one pool of instances for
both; :data:`mvlab.siamese.pairs.POOLS`).

Every finished draw is appended to a :class:`mvlab.reproduction.cells.DrawsFile`, so a run that is
cut off loses only the draws in flight; :func:`run_paper_protocol` skips the draws already in the file.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import partial
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from mvlab.reproduction.cells import CELL_COLUMNS, DrawsFile, summarise_cells, with_verdicts
from mvlab.reproduction.draw_runs import run_missing_draws
from mvlab.stats import friedman_test, paired_t_test, posthoc_vs_control

__all__ = ["PAPER", "LAM_GRID", "PAIR_READINGS", "DRAW_COLUMNS", "DrawTask", "paper_grid", "draw_seed", "run_draw",
           "run_paper_protocol", "paper_cells", "table8_source", "table8_best_cells", "table9",
           "rank_tests", "MNIST_READING", "MNIST_DATASET", "TABLE10_N", "TABLE10", "WINDOW_READINGS", "SCAN_TREES",
           "window_sides", "mnist_grid"]

SDF_DATASETS = ("ecoli", "yeast", "ionosphere", "mammographic", "haberman", "ilpd")
"""The paper's datasets that ship with mvlab (Table 2), by their :func:`mvlab.datasets.load_dataset` names."""

TABLE_OF = {"ecoli": 4, "yeast": 5, "ionosphere": 6, "mammographic": 7, "haberman": 7, "ilpd": 7}
GRID_N = (100, 500, 1000, 2000)
GRID_T = (100, 400, 700, 1000)
TABLE7_N = (1000, 2000)
TABLE8_SETTING = (2000, 700)  # (N, T), fixed before any draw was run
LAM_GRID = (1.0, 100.0, 10000.0)
"""Values of lambda SDF chooses from, on training pairs only: from weights far from uniform (1: about a
seventh of the trees carry the weight at N = 1000, T = 200) to nearly uniform (10,000)."""
WIDE_LAM_GRID = tuple(10.0**e for e in range(-3, 7))
"""Ten values of lambda over nine decades, 0.001 to 10**6 (the model ``"sdf-wide"``): :data:`LAM_GRID` chose its
largest value in nearly half the draws, so the wider grid asks what lies past both of its edges
(:mod:`mvlab.reproduction.sdf_lambda_grid`)."""
MODEL_NAMES = {"gcforest": "gcForest", "sdf": "SDF", "bagging": "Bagging", "rf": "RF",
               "sdf-wide": "SDF, wide λ grid"}
FIXED_LAM = "sdf@"
"""A model ``"sdf@<lambda>"``: SDF with that lambda fixed for every fold-model (no choice on training pairs)."""
INSAMPLE_LAM = "sdf-insample@"
"""A model ``"sdf-insample@<lambda>"``: SDF whose QP sees the tree probabilities of the pairs the trees were grown on
(the paper's Algorithm 1 read literally, ``qp_probas="insample"``), with that lambda fixed (in-sample probabilities
are nearly one-hot, so no lambda can be validated on them)."""

PAIR_READINGS = {
    "disjoint": {"pools": "disjoint"},
    "shared": {"pools": "shared"},
    "natural": {"pools": "disjoint", "balanced": False},
    "insample": {"pools": "disjoint"},
}
"""How each reading draws its pairs (:func:`mvlab.siamese.pairs.make_pair_split`): ``disjoint`` and ``shared`` the
two instance pools; ``natural`` disjoint pools with pairs drawn as they come instead of half similar (the paper
does not say it balanced them); ``insample`` the ``disjoint`` pairs themselves (its SDF models differ)."""
SEED_READING = {"insample": "disjoint"}
"""Readings that reuse another reading's pairs (the same seeds), so their models compare pair for pair."""


def model_name(method: str) -> str:
    """The draws file's name of a model: ``MODEL_NAMES``'s, ``"SDF λ=<lambda>"`` for a fixed lambda, or
    ``"SDF in-sample λ=<lambda>"``."""
    if method.startswith(INSAMPLE_LAM):
        return f"SDF in-sample λ={float(method[len(INSAMPLE_LAM):]):g}"
    if method.startswith(FIXED_LAM):
        return f"SDF λ={float(method[len(FIXED_LAM):]):g}"
    return MODEL_NAMES[method]

# The paper's cells: (dataset, N, T) -> (gcF, SDF), Tables 4-7; Table 8 -> (gcF, Bagging, RF, SNN, SDF).
_T467 = {
    "ecoli": [(.439, .530), (.515, .545), (.590, .651), (.621, .696), (.838, .847), (.814, .823), (.836, .845),
              (.821, .837), (.844, .853), (.890, .917), (.888, .891), (.863, .865), (.908, .915), (.895, .921),
              (.913, .915), (.915, .915)],
    "yeast": [(.454, .500), (.484, .511), (.469, .515), (.469, .575), (.682, .694), (.661, .673), (.640, .658),
              (.622, .628), (.708, .711), (.713, .723), (.684, .710), (.735, .737), (.727, .734), (.714, .716),
              (.727, .739), (.713, .722)],
    "ionosphere": [(.515, .515), (.535, .555), (.530, .555), (.535, .540), (.718, .720), (.723, .758), (.713, .740),
                   (.715, .760), (.820, .830), (.837, .840), (.840, .860), (.885, .895), (.916, .920), (.905, .905),
                   (.895, .895), (.910, .910)],
}
PAPER: dict = {}
"""The paper's values: ``(table, dataset, N, T, model) -> accuracy`` (N, T None where a table has none)."""
for _name, _cells in _T467.items():
    for _i, (_g, _s) in enumerate(_cells):
        _n, _t = GRID_N[_i // 4], GRID_T[_i % 4]
        PAPER[(TABLE_OF[_name], _name, _n, _t, "gcForest")] = _g
        PAPER[(TABLE_OF[_name], _name, _n, _t, "SDF")] = _s
for (_name, _n), (_g, _s) in {("mammographic", 1000): (.730, .757), ("mammographic", 2000): (.765, .783),
                               ("haberman", 1000): (.533, .580), ("haberman", 2000): (.555, .594),
                               ("ilpd", 1000): (.520, .530), ("ilpd", 2000): (.572, .575)}.items():
    PAPER[(7, _name, _n, 700, "gcForest")] = _g
    PAPER[(7, _name, _n, 700, "SDF")] = _s
TABLE8 = {  # the paper's Table 8, all ten datasets (gcF, Bagging, RF, SNN, SDF)
    "parkinsons": (.887, .587, .695, .572, .893), "ecoli": (.915, .877, .867, .710, .921),
    "yeast": (.735, .712, .702, .652, .739), "ionosphere": (.916, .886, .912, .690, .920),
    "mammographic": (.765, .508, .592, .619, .783), "haberman": (.555, .494, .488, .564, .594),
    "breast-tissue": (.875, .698, .769, .683, .885), "lung-cancer": (.642, .580, .583, .595, .686),
    "ilpd": (.572, .502, .510, .582, .575), "seeds": (.956, .944, .946, .789, .968),
}
TABLE8_MODELS = ("gcForest", "Bagging", "RF", "SNN", "SDF")
for _name, _vals in TABLE8.items():
    for _m, _v in zip(TABLE8_MODELS, _vals):
        PAPER[(8, _name, None, None, _m)] = _v
TABLE9 = {"gcForest": (0.015, 0.015, 0.004, 0.025), "Bagging": (0.006, 0.118, 0.043, 0.192),
          "RF": (0.002, 0.090, 0.043, 0.137), "SNN": (0.006, 0.118, 0.043, 0.192)}
"""The paper's Table 9: SDF minus each model over its 10 datasets: (p-value, mean, CI low, CI high)."""
RANK_TESTS = {"gcForest": 0.0016, "Bagging": 0.0016, "RF": 0.0016, "SNN": 0.0114}
"""The Friedman tests of §8: the p-value printed for SDF against each model over the 10 datasets ("the identical
p-values 0.0016 for pairwise comparisons D1, D2, D3 and the p-value 0.0114 for D4")."""
RANK_TESTS_BONFERRONI_DUNN = ("SNN", 0.028)
"""The Bonferroni–Dunn test of §8, as the paper states it: "no significant difference between the SDF and the other
methods except for the pair D4 (the corresponding p-value is 0.028)" (SDF - SNN)."""

DRAW_COLUMNS = ["dataset", "N", "T", "reading", "draw", "seed", "model", "accuracy", "n_levels", "lam_median",
                "n_test_pairs", "seconds"]
DRAW_KEY = ["dataset", "N", "T", "reading", "draw"]


@dataclass(frozen=True)
class DrawTask:
    """One draw to compute: a pair split of ``dataset`` and the ``models`` fitted on it."""

    dataset: str
    N: int
    T: int
    reading: str
    draw: int
    models: tuple

    @property
    def key(self) -> tuple:
        """The draw's key in the draws file: ``(dataset, N, T, reading, draw)``, the columns of ``DRAW_KEY``."""
        return (self.dataset, self.N, self.T, self.reading, self.draw)


def draws_for(N: int, scale: float = 1.0) -> int:
    """Draws per cell: 10 for N <= 1000 and 5 for N = 2000 (the issue's floor), times ``scale``."""
    return max(1, int(round((10 if N <= 1000 else 5) * scale)))


def paper_grid(datasets: Sequence[str] = SDF_DATASETS, readings: Sequence[str] = ("disjoint", "shared"),
               shared_datasets: Sequence[str] = ("ionosphere",), draws: Callable[[int], int] = draws_for,
               Ns: Sequence[int] | None = None, Ts: Sequence[int] | None = None) -> list[DrawTask]:
    """The draws of Tables 4-8, cheapest first within each round of draw numbers (so that a run cut off
    early has every cell with some draws rather than a few cells with all of theirs).

    ``readings`` other than ``"disjoint"`` run on Table 8's setting for every dataset and on the whole grid
    of ``shared_datasets`` (Table 6's Ionosphere by default). ``Ns`` / ``Ts`` replace the grid's values of N
    and T (a smaller grid, every reading on all of it)."""
    cells: dict = {}
    for name in datasets:
        if name not in TABLE_OF:
            raise ValueError(f"{name!r} is not one of the paper's datasets bundled here: {list(TABLE_OF)}.")
        if TABLE_OF[name] < 7:
            grid = [(n, t) for n in (Ns or GRID_N) for t in (Ts or GRID_T)]
        else:
            grid = [(n, t) for n in (Ns or TABLE7_N) for t in (Ts or (700,))]
        for reading in readings:
            pairs = grid if reading == "disjoint" or name in shared_datasets else \
                [nt for nt in grid if nt == TABLE8_SETTING] if not (Ns or Ts) else grid
            for n, t in pairs:
                models = ("gcforest", "sdf") + (("bagging", "rf") if (n, t) == TABLE8_SETTING else ())
                cells[(name, n, t, reading)] = models
    tasks = [DrawTask(name, n, t, reading, d, models)
             for (name, n, t, reading), models in cells.items() for d in range(draws(n))]
    return sorted(tasks, key=lambda k: (k.draw, k.N * k.T, k.dataset, k.reading))


# ------------------------------------------------------------------------------- Table 10 (reading sdf-mnist)
MNIST_READING = "sdf-mnist"
"""The reading that runs Table 10 (:mod:`mvlab.reproduction.sdf_mnist`)."""
MNIST_DATASET = "mnist-5000"
TABLE10_N = (100, 500, 1000)
SCAN_TREES = 30
"""Table 10: trees per scanning forest (the gcForest code's example the paper started from; the paper does not say)."""
TABLE10 = {  # (N, T) -> (gcForest, SDF), the paper's Table 10
    (100, 100): (.470, .490), (100, 400): (.520, .520), (100, 700): (.570, .585), (100, 1000): (.530, .570),
    (500, 100): (.725, .735), (500, 400): (.715, .715), (500, 700): (.695, .700), (500, 1000): (.670, .670),
    (1000, 100): (.757, .770), (1000, 400): (.755, .760), (1000, 700): (.775, .780), (1000, 1000): (.830, .840),
}
WINDOW_READINGS = ("scan-sides", "scan-areas")
"""How the paper's "⌊d/16⌋, ⌊d/9⌋, ⌊d/4⌋ for d raw features" is read for an image: as window sides of the image's
side, or as window areas of its pixels (:func:`window_sides`)."""
_FRACTIONS = (16, 9, 4)


def window_sides(reading: str, image_shape=(28, 28)) -> list[int]:
    """The window sides of a reading for an image of ``image_shape`` (H, W): ``scan-sides`` ⌊min(H, W)/f⌋,
    ``scan-areas`` ⌊sqrt(⌊H W / f⌋)⌋, for f in 16, 9, 4 (at least 1; increasing, duplicates dropped)."""
    h, w = (int(s) for s in image_shape)
    if reading == "scan-sides":
        sides = [min(h, w) // f for f in _FRACTIONS]
    elif reading == "scan-areas":
        sides = [math.isqrt((h * w) // f) for f in _FRACTIONS]
    else:
        raise ValueError(f"reading must be one of {', '.join(WINDOW_READINGS)}; got {reading!r}.")
    return sorted({max(1, s) for s in sides})


def mnist_grid(readings: Iterable[str] = WINDOW_READINGS, Ns=TABLE10_N, Ts=GRID_T,
               draws: Callable[[int], int] = draws_for) -> list[DrawTask]:
    """The draws of Table 10 for each window reading, cheapest first within each round of draw numbers (the T of a
    draw next to each other: they share its scanning)."""
    tasks = [DrawTask(MNIST_DATASET, n, t, reading, d, ("gcforest", "sdf"))
             for reading in readings for n in Ns for t in Ts for d in range(draws(n))]
    return sorted(tasks, key=lambda k: (k.draw, k.N, k.reading, k.T))


def draw_seed(dataset: str, N: int, reading: str, draw: int) -> int:
    """The seed of a draw: a digest of what defines its pairs (not T, so every T of an N shares them)."""
    text = f"sdf-paper/{dataset}/{N}/{reading}/{draw}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=4).digest(), "little") & 0x7FFFFFFF


def run_draw(task: DrawTask, max_levels: int = 10, n_jobs: int | None = 1) -> list[dict]:
    """Compute one draw: its pair split, then every model on it; rows of :data:`DRAW_COLUMNS`."""
    from mvlab.datasets import load_dataset
    from mvlab.experiments.pair_methods import evaluate_pair_split
    from mvlab.siamese.pairs import make_pair_split

    ds = load_dataset(task.dataset)
    seed = draw_seed(task.dataset, task.N, SEED_READING.get(task.reading, task.reading), task.draw)
    split = make_pair_split(ds.y, task.N, random_state=seed, **PAIR_READINGS[task.reading])
    fixed = [m for m in task.models if m.startswith((FIXED_LAM, INSAMPLE_LAM))]
    if {"sdf", "sdf-wide"} <= set(task.models):
        raise ValueError("a draw fits SDF with one grid of lambda: 'sdf' or 'sdf-wide', not both.")
    grid = WIDE_LAM_GRID if "sdf-wide" in task.models else LAM_GRID
    methods = tuple("sdf" if m == "sdf-wide" else m for m in task.models if m not in fixed)
    rows = evaluate_pair_split(ds.X, split, methods=methods,
                               n_estimators=task.T, sdf_params={"max_levels": max_levels, "lam_grid": list(grid)},
                               random_state=seed, n_jobs=n_jobs)
    if grid is WIDE_LAM_GRID:
        rows = [{**r, "method": "sdf-wide"} if r["method"] == "sdf" else r for r in rows]
    for method in fixed:  # SDF with one lambda for every fold-model (readings "lambda chosen on test", in-sample)
        insample = method.startswith(INSAMPLE_LAM)
        lam = float(method[len(INSAMPLE_LAM if insample else FIXED_LAM):])
        params = {"max_levels": max_levels, **({"qp_probas": "insample"} if insample else {})}
        (row,) = evaluate_pair_split(ds.X, split, methods=("sdf",), n_estimators=task.T, lam=lam, sdf_params=params,
                                     random_state=seed, n_jobs=n_jobs)
        rows.append({**row, "method": method})
    return [{"dataset": task.dataset, "N": task.N, "T": task.T, "reading": task.reading, "draw": task.draw,
             "seed": seed, "model": model_name(r["method"]), "accuracy": r["accuracy"],
             "n_levels": r["n_levels"], "lam_median": r.get("lam_median", np.nan),
             "n_test_pairs": r["n_test_pairs"], "seconds": round(r["fit_seconds"], 3)} for r in rows]


def run_paper_protocol(path, tasks: Iterable[DrawTask], *, max_levels: int = 10, n_jobs: int = 1,
                       say: Callable[[str], None] | None = None) -> int:
    """Compute the draws of ``tasks`` not yet in the draws file ``path``, appending each as it finishes
    (:func:`mvlab.reproduction.draw_runs.run_missing_draws`: with ``n_jobs != 1`` one draw per engine worker,
    its forests on one thread). Returns the number of draws computed."""
    def describe(rows):
        r = rows[0]
        accs = ", ".join(f"{x['model']} {x['accuracy']:.3f}" for x in rows)
        return f"{r['dataset']} N={r['N']} T={r['T']} {r['reading']} draw {r['draw']}: {accs}"

    return run_missing_draws(DrawsFile(path, DRAW_COLUMNS, DRAW_KEY), tasks, partial(run_draw, max_levels=max_levels),
                             n_jobs=n_jobs, say=say, describe=describe)


# ------------------------------------------------------------------------------- the cells
def _tables_of(row) -> list[int]:
    tables = [TABLE_OF[row.dataset]]
    if (row.N, row.T) == TABLE8_SETTING:
        tables.append(8)
    return tables


def table8_source(dataset: str, model: str) -> str:
    """Where the paper's Table 8 value of ``model`` on ``dataset`` was printed before: the cells of Tables 4-7
    that print the same value for the same model, as ``"Table 4: N=2000, T=400"`` (several joined by ``"; "``),
    ``"not in Tables 4-7"`` when none does (a cascade), or ``"Table 8 only"`` (Bagging, RF: the grid tables have
    no such model). The paper says it took "the best results from Tables 3–7"."""
    value = PAPER.get((8, dataset, None, None, model))
    if value is None or model not in ("gcForest", "SDF"):
        return "Table 8 only"
    same = [(t, n, tt) for (t, name, n, tt, m), v in PAPER.items()
            if t < 8 and name == dataset and m == model and abs(v - value) < 5e-4]
    return "; ".join(f"Table {t}: N={n}, T={tt}" for t, n, tt in sorted(same)) or "not in Tables 4-7"


def paper_cells(draws: pd.DataFrame) -> pd.DataFrame:
    """One row per (table, dataset, N, T, model, reading) in :data:`CELL_COLUMNS`: the draws' mean, std, 95 % t
    interval and prediction interval beside the paper's value (Table 8 cells: the fixed setting N = 2000,
    T = 700, with the cell of Tables 4-7 the paper took each value from, :func:`table8_source`)."""
    if draws.empty:
        return pd.DataFrame(columns=CELL_COLUMNS)
    summary = summarise_cells(draws, ["dataset", "N", "T", "reading", "model"])
    rows = []
    for r in summary.itertuples(index=False):
        for table in _tables_of(r):
            if table == 8:
                paper = PAPER.get((8, r.dataset, None, None, r.model))
                source = table8_source(r.dataset, r.model)
            else:
                if r.model not in ("gcForest", "SDF"):
                    continue
                paper, source = PAPER.get((table, r.dataset, int(r.N), int(r.T), r.model)), ""
            rows.append({"table": table, "dataset": r.dataset, "N": int(r.N), "T": int(r.T), "k": "",
                         "classifier": "", "model": r.model, "reading": r.reading, "draws": r.draws,
                         "mean": r.mean, "std": r.std, "ci_low": r.ci_low, "ci_high": r.ci_high,
                         "pi_low": r.pi_low, "pi_high": r.pi_high,
                         "paper": np.nan if paper is None else paper, "paper_source": source})
    cells = pd.DataFrame(rows)
    cells["_model"] = cells["model"].map({"gcForest": 0, "Bagging": 1, "RF": 2, "SDF": 3})
    cells = cells.sort_values(["table", "dataset", "reading", "N", "T", "_model"], kind="stable")
    return with_verdicts(cells)


def table8_best_cells(cells: pd.DataFrame, reading: str = "disjoint") -> pd.DataFrame:
    """The paper's reading of Table 8 for gcForest and SDF: the best mean of each over the dataset's grid
    (Tables 4-7), chosen on the test draws as the paper did (optimistic by the selection)."""
    grid = cells[(cells["table"] < 8) & (cells["reading"] == reading)]
    rows = []
    for (name, model), group in grid.groupby(["dataset", "model"]):
        best = group.loc[group["mean"].idxmax()]
        rows.append({"dataset": name, "model": model, "N": int(best["N"]), "T": int(best["T"]),
                     "mean": float(best["mean"]), "paper": PAPER.get((8, name, None, None, model))})
    return pd.DataFrame(rows)


def _paired_t(a, b) -> tuple[float, float, float, float]:
    """Two-sided paired t-test of ``a - b`` (:func:`mvlab.stats.paired_t_test`): (p-value, mean, 95 %
    CI low, high); NaN with fewer than two pairs."""
    if len(a) < 2:
        return (np.nan,) * 4
    r = paired_t_test(a, b)
    return r.p_value, r.mean_difference, r.ci_low, r.ci_high


def _rank_tests_of(wide: pd.DataFrame, others) -> dict:
    """For each model of ``others``: the Friedman p-value of SDF against it alone (two methods ranked within each
    dataset, tie-corrected) and the Bonferroni–Dunn adjusted p-value of SDF as the control among all of ``wide``'s
    models; ``wide`` holds one row per dataset, one column per model."""
    control = posthoc_vs_control(wide, "SDF", test="friedman")
    dunn = dict(zip(control.methods, control.p_bonferroni))
    return {o: (friedman_test(wide[["SDF", o]]).p_value, dunn[o]) for o in others}


def rank_tests(cells: pd.DataFrame, reading: str = "disjoint") -> pd.DataFrame:
    """The rank tests of the paper's §8 over the datasets we have (Table 8's cells, the fixed setting), beside the
    paper's printed p-values and its tests recomputed from its own Table 8 (all ten datasets, five models).

    Two readings of "the Friedman test for pairwise comparisons D1..D4" and "the Bonferroni–Dunn test" (García &
    Herrera's 1xN comparison with SDF as the control; :func:`mvlab.stats.friedman_test`,
    :func:`mvlab.stats.posthoc_vs_control`): the Friedman test of SDF against each model alone, and Bonferroni–Dunn
    over all the models of the table. Ours rank the four models we run (the SNN is not run); the paper's five.

    Returns
    -------
    DataFrame, one row per difference (``SDF - <model>``): ``datasets``, ``higher`` and ``lower`` (in how many of
    them SDF's mean is above, below the model's), ``friedman p`` and ``dunn p`` (ours),
    ``paper p`` (printed), ``paper recomputed: friedman p`` and ``paper recomputed: dunn p`` (from its Table 8).
    Empty with fewer than two datasets holding every model.
    """
    t8 = cells[(cells["table"] == 8) & (cells["reading"] == reading)]
    models = [m for m in TABLE8_MODELS if m != "SNN"]
    wide = t8.pivot_table(index="dataset", columns="model", values="mean").reindex(columns=models).dropna()
    if len(wide) < 2:
        return pd.DataFrame()
    paper_wide = pd.DataFrame(TABLE8, index=TABLE8_MODELS).T
    others = [m for m in models if m != "SDF"]
    ours = _rank_tests_of(wide, others)
    paper = _rank_tests_of(paper_wide, [m for m in TABLE8_MODELS if m != "SDF"])
    rows = []
    for other in [m for m in TABLE8_MODELS if m != "SDF"]:
        mine = ours.get(other, (np.nan, np.nan))
        diff = wide["SDF"] - wide[other] if other in ours else pd.Series(dtype=float)
        rows.append({"difference": f"SDF - {other}", "datasets": len(wide) if other in ours else 0,
                     "higher": int((diff > 0).sum()), "lower": int((diff < 0).sum()),
                     "friedman p": mine[0], "dunn p": mine[1], "paper p": RANK_TESTS[other],
                     "paper recomputed: friedman p": paper[other][0], "paper recomputed: dunn p": paper[other][1]})
    return pd.DataFrame(rows)


def table9(cells: pd.DataFrame, reading: str = "disjoint") -> pd.DataFrame:
    """Table 9 over the datasets we have: SDF minus gcForest, Bagging and RF (Table 8's cells, the fixed
    setting), paired t-test over the datasets, beside the paper's values and the paper's own test
    recomputed on its Table 8 rows restricted to the same datasets."""
    t8 = cells[(cells["table"] == 8) & (cells["reading"] == reading)]
    wide = t8.pivot_table(index="dataset", columns="model", values="mean")
    rows = []
    for other in ("gcForest", "Bagging", "RF"):
        if "SDF" not in wide or other not in wide:
            continue
        both = wide[["SDF", other]].dropna()
        ours = _paired_t(both["SDF"].to_numpy(), both[other].to_numpy())
        names = list(both.index)
        restricted = _paired_t([TABLE8[n][4] for n in names], [TABLE8[n][TABLE8_MODELS.index(other)] for n in names])
        rows.append({"difference": f"SDF - {other}", "datasets": len(names), "p": ours[0], "mean": ours[1],
                     "ci_low": ours[2], "ci_high": ours[3], "paper p": TABLE9[other][0],
                     "paper mean": TABLE9[other][1], "paper CI": f"[{TABLE9[other][2]:.3f}, {TABLE9[other][3]:.3f}]",
                     "paper, same datasets: p": restricted[0], "paper, same datasets: mean": restricted[1]})
    return pd.DataFrame(rows)
