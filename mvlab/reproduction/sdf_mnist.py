"""The Siamese deep forest paper's Table 10: MNIST pairs with multi-grained scanning (reading ``sdf-mnist``).

The paper (§8): gcForest and SDF on MNIST pairs, N in {100, 500, 1000} training pairs x T in {100, 400, 700, 1000}
trees per forest, after multi-grained scanning in which "two identical windows simultaneously scan two concatenated
images" (lock-step pair scanning, :class:`mvlab.siamese.scanning.MultiGrainedScanner` with ``pairs=True``), with
"feature windows with sizes ⌊d/16⌋, ⌊d/9⌋, ⌊d/4⌋ ... for d raw features".

The data: ``mnist-5000``, 5,000 of MNIST's 70,000 images (:mod:`mvlab.datasets.bundled`); the pairs are drawn from
them as the main protocol draws them (:func:`mvlab.reproduction.sdf_paper.run_draw`: disjoint instance pools, half
similar pairs, ``2N/3`` test pairs, the seed of the dataset, N and the draw, not of T).

The windows are the paper's ambiguity, run both ways (the ``reading`` column):

- ``scan-sides``: window *sides* of ⌊s/16⌋, ⌊s/9⌋, ⌊s/4⌋ for an s x s image (1, 3, 7 on 28 x 28; the rule of the
  gcForest code the paper modified, :func:`mvlab.siamese.scanning.default_window_sizes`);
- ``scan-areas``: windows of ⌊d/16⌋, ⌊d/9⌋, ⌊d/4⌋ *pixels* of the d = 784, square sides ⌊sqrt(area)⌋ (7, 9, 14).

The scanner depends on the draw's pairs and seed only, not on T, so a draw's scanning is done once and its vectors
serve the cascades of every T (:func:`run_mnist_draws`); its seconds are counted in the first T's gcForest row.
Scanning forests: a completely random and a random forest of :data:`SCAN_TREES` trees per window size, their
training vectors out-of-fold over 3 folds (as the gcForest code the paper started from). Draws go to their own file
(``sdf_mnist_draws.csv``).
"""

from __future__ import annotations

import time
from functools import partial
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from mvlab.reproduction.cells import DrawsFile, summarise_cells, with_verdicts
from mvlab.reproduction.draw_runs import run_missing_draws
from mvlab.reproduction.markdown import generated_head, verdict_line
from mvlab.reproduction.reading import SDF_OPTIONS, Reading
from mvlab.reproduction.sdf_paper import (
    DRAW_COLUMNS,
    DRAW_KEY,
    GRID_T,
    LAM_GRID,
    MNIST_DATASET,
    MNIST_READING,
    PAIR_READINGS,
    SCAN_TREES,
    TABLE10,
    TABLE10_N,
    WINDOW_READINGS,
    DrawTask,
    draw_seed,
    draws_for,
    mnist_grid,
    model_name,
    window_sides,
)
from mvlab.reproduction.sdf_paper_report import gain_line, grid_markdown, one_draw_counts, sdf_draws_file

__all__ = ["run_mnist_draws", "mnist_cells", "mnist_markdown", "READING", "MNIST_DATASET", "TABLE10_N", "TABLE10",
           "WINDOW_READINGS", "SCAN_TREES", "window_sides", "mnist_grid"]


def _scanned_draw(tasks: list[DrawTask], max_levels: int, n_jobs: int | None) -> list[dict]:
    """Rows of :data:`mvlab.reproduction.sdf_paper.DRAW_COLUMNS` for ``tasks``: one draw (dataset, N, reading,
    draw) at several T. The pairs and the scanner are made once; each T fits gcForest and SDF on the scanned
    vectors (λ from :data:`mvlab.reproduction.sdf_paper.LAM_GRID` on training pairs, as the main protocol)."""
    from mvlab.datasets import load_dataset
    from mvlab.experiments.pair_methods import evaluate_pair_split
    from mvlab.siamese.pairs import make_pair_split, pair_features
    from mvlab.siamese.scanning import MultiGrainedScanner

    first = tasks[0]
    ds = load_dataset(first.dataset)
    seed = draw_seed(first.dataset, first.N, "disjoint", first.draw)  # both window readings: the same pairs
    split = make_pair_split(ds.y, first.N, random_state=seed, **PAIR_READINGS["disjoint"])
    X = np.asarray(ds.X, dtype=np.float64)
    start = time.perf_counter()
    scanner = MultiGrainedScanner(image_shape=tuple(ds.image_shape), window_sizes=window_sides(first.reading,
                                  ds.image_shape), pairs=True, n_estimators=SCAN_TREES, n_folds=3, n_jobs=n_jobs,
                                  random_state=seed)
    vectors = (scanner.fit_transform(pair_features(X, split.train_pairs), split.y_train),
               scanner.transform(pair_features(X, split.test_pairs)))
    scan_seconds = time.perf_counter() - start
    rows = []
    for task in tasks:
        for r in evaluate_pair_split(None, split, methods=("gcforest", "sdf"), n_estimators=task.T,
                                     sdf_params={"max_levels": max_levels, "lam_grid": list(LAM_GRID)},
                                     random_state=seed, n_jobs=n_jobs, vectors=vectors):
            seconds = r["fit_seconds"] + (scan_seconds if not rows else 0.0)
            rows.append({"dataset": task.dataset, "N": task.N, "T": task.T, "reading": task.reading,
                         "draw": task.draw, "seed": seed, "model": model_name(r["method"]),
                         "accuracy": r["accuracy"], "n_levels": r["n_levels"], "lam_median": r["lam_median"],
                         "n_test_pairs": r["n_test_pairs"], "seconds": round(seconds, 3)})
    return rows


def run_mnist_draws(path, tasks: Iterable[DrawTask], *, max_levels: int = 10, n_jobs: int = 1,
                    say: Callable[[str], None] | None = None) -> int:
    """Compute the draws of ``tasks`` not yet in the draws file ``path``, a draw's T together (one scanning, one
    job), appending each draw's rows as it finishes (:func:`mvlab.reproduction.draw_runs.run_missing_draws`: with
    ``n_jobs != 1`` one job per engine worker). Returns the number of draws (dataset, N, T, reading, draw)
    computed."""
    def describe(rows):
        r = rows[0]
        return f"{r['dataset']} N={r['N']} {r['reading']} draw {r['draw']}: " + ", ".join(
            f"T={x['T']} {x['model']} {x['accuracy']:.3f}" for x in rows)

    return run_missing_draws(DrawsFile(path, DRAW_COLUMNS, DRAW_KEY), tasks,
                             partial(_scanned_draw, max_levels=max_levels), n_jobs=n_jobs, say=say,
                             describe=describe, group=lambda t: (t.dataset, t.N, t.reading, t.draw))


def mnist_cells(draws: pd.DataFrame) -> pd.DataFrame:
    """One row per (N, T, model, reading) in the cells file's columns (table 10): the draws' mean, intervals and
    the paper's value."""
    if draws.empty:
        return pd.DataFrame()
    summary = summarise_cells(draws, ["dataset", "N", "T", "reading", "model"])
    rows = []
    for r in summary.itertuples(index=False):
        pair = TABLE10.get((int(r.N), int(r.T)))
        paper = np.nan if pair is None else pair[0 if r.model == "gcForest" else 1]
        rows.append({"table": 10, "dataset": r.dataset, "N": int(r.N), "T": int(r.T), "k": "", "classifier": "",
                     "model": r.model, "reading": r.reading, "draws": r.draws, "mean": r.mean, "std": r.std,
                     "ci_low": r.ci_low, "ci_high": r.ci_high, "pi_low": r.pi_low, "pi_high": r.pi_high,
                     "paper": paper, "paper_source": ""})
    cells = pd.DataFrame(rows)
    order = {name: i for i, name in enumerate(WINDOW_READINGS)}
    cells = cells.sort_values(["reading", "N", "T", "model"], key=lambda c: c.map(order) if c.name == "reading"
                              else c, kind="stable")
    return with_verdicts(cells.reset_index(drop=True))


def mnist_markdown(cells: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The section on Table 10: per window reading, its windows, the verdict, the cells beside the paper's and the
    SDF − gcForest gain."""
    n_draws = len(draws[DRAW_KEY].drop_duplicates()) if len(draws) else 0
    out = [generated_head(READING, f"{n_draws} draws; `{MNIST_DATASET}`, 5,000 of MNIST's 70,000 images",
                          "Each cell: ours ± the half-width of its 95 % interval (draws) / the paper's.")] if head \
        else []
    if cells is None or cells.empty:
        return "\n\n".join(out + ["No draw yet."])
    for reading in [r for r in WINDOW_READINGS if r in set(cells["reading"])]:
        part = cells[cells["reading"] == reading]
        out += ["", f"#### Table 10, reading `{reading}` (window sides {window_sides(reading)})", "",
                f"Verdict: {verdict_line(part, one_draw_counts())}.", "", grid_markdown(part)]
        gain = gain_line(part)
        if gain:
            out += ["", gain]
    return "\n".join(out).strip()


def _tasks(datasets=(MNIST_DATASET,), repetitions=None, pairs_grid=None, trees_grid=None, **_) -> list[DrawTask]:
    draws = (lambda n: repetitions) if repetitions else draws_for
    return mnist_grid(Ns=tuple(pairs_grid or TABLE10_N), Ts=tuple(trees_grid or GRID_T), draws=draws)


READING = Reading(
    name=MNIST_READING, paper="sdf", title="Table 10: MNIST pairs with multi-grained scanning",
    reason="The paper's Table 10 scans pairs of MNIST images with two windows in lock step before the cascade; its "
           "window sizes (\"⌊d/16⌋, ⌊d/9⌋, ⌊d/4⌋ for d raw features\") read as sides or as areas, run both ways, on "
           "the 5,000 MNIST images bundled.",
    datasets=(MNIST_DATASET,), dataset_choices=(MNIST_DATASET,), options=SDF_OPTIONS, tasks=_tasks,
    draws_file=lambda folder: sdf_draws_file(folder, "sdf_mnist"), run=run_mnist_draws,
    cells=lambda draws, folder: mnist_cells(draws), markdown=mnist_markdown)
"""Table 10 (MNIST with multi-grained scanning), both readings of its windows."""
