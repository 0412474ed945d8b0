"""A reading of OFSP's Tables 3 and 4 that would explain their All-AML rows: OFSP's accuracy measured on the test rows.

OFSP adds a feature to the view whose accuracy it raises most (docs/algorithms.md B.2); the paper does not say on
which rows that accuracy is measured. mvlab measures it by an inner cross-validation of the training rows only
(:mod:`mvlab.reproduction.ofsp_paper`). Here, on the protocol's own outer folds, OFSP's accuracy is the one of a
classifier trained on the fold's training rows and scored on its *test* rows, the rows the ensemble is then scored
on: each feature is kept because it helps on the test rows. The ensemble itself (its weights by inner
cross-validation, its members) is trained on the training rows as in the protocol. Were the paper's cells measured
this way, they would sit near 100 % wherever a handful of features separate the test rows, as on All-AML leukemia,
and the members, all right on those rows, would hardly disagree (Table 4).
This is a diagnosis, not a protocol to use: it chooses on test data.
"""

from __future__ import annotations

import pandas as pd

from mvlab.reproduction.markdown import CLASSIFIER_NAMES, is_false, verdict_counts
from mvlab.reproduction.ofsp_paper import (
    CLASSIFIERS,
    DATASETS,
    MAX_VIEWS,
    N_SPLITS,
    PAPER_ROW,
    PAPER_TABLES,
    OfspTask,
    run_fold_reading,
)
from mvlab.reproduction.ofsp_paper_report import (
    ONE_DRAW_NOTE,
    ofsp_reading,
    ofsp_tables_markdown,
    ofsp_verdicts,
    repetitions_head,
)
from mvlab.reproduction.verdicts import compare_word, gap_counts, group_text, group_word

__all__ = ["LEAK_METHOD", "READING", "run_leak_draw", "ofsp_leak_markdown", "ofsp_leak_facts"]

LEAK_METHOD = "OFSP, accuracy on the test fold"
"""The ``method`` of this reading's rows in its draws file."""


def run_leak_draw(task: OfspTask, max_views: int = MAX_VIEWS, n_splits: int = N_SPLITS, n_jobs: int = 1) -> list[dict]:
    """One repetition (the protocol's folds of ``task``): for every k, OFSP's views chosen by accuracy on each
    outer test fold, the performance-weighted ensemble trained on the outer training rows, its accuracy,
    members' disagreement and features kept on the test fold averaged over the folds; rows of
    :data:`mvlab.reproduction.ofsp_paper.OFSP_DRAW_COLUMNS`. ``n_jobs`` is accepted for the protocol runner
    and unused (OFSP's evaluators are single-threaded)."""
    from mvlab.construction.ensemble import ViewEnsemble
    from mvlab.construction.partition import OFSP

    def evaluate(ds, split, k, seed):
        ofsp = OFSP(k, task.classifier, inner_cv=[(split.train, split.test)], random_state=seed).fit(ds.X, ds.y)
        ens = ViewEnsemble(views=ofsp.views_, estimator=task.classifier, inner_cv=5, random_state=seed)
        return ens.fit(ds.X[split.train], ds.y[split.train])

    return run_fold_reading(task, {LEAK_METHOD: evaluate}, max_views, n_splits)


def ofsp_leak_markdown(cells: pd.DataFrame, draws: pd.DataFrame, head: bool = True) -> str:
    """The generated section on OFSP with its accuracy measured on the test fold: its cells beside the paper's and
    the verdict, per dataset."""
    out = [repetitions_head(READING, draws, "A cell reads *ours ± half-width (repetitions) / the paper's*, **bold** "
                            "when outside our interval of the mean, **bold†** when also outside that of one "
                            f"repetition (Table 4 alone: {ONE_DRAW_NOTE}).") if head else ""]
    if cells.empty:
        return out[0] + "\n\nNo repetition yet."
    for dataset in [d for d in DATASETS if d in set(cells["dataset"])]:
        part = cells[cells["dataset"] == dataset]
        out += ["", f"{DATASETS[dataset]}: {ofsp_verdicts(part, LEAK_METHOD)}.", "",
                ofsp_tables_markdown(part, LEAK_METHOD)]
    return "\n".join(out).strip()


def ofsp_leak_facts(cells: pd.DataFrame, draws: pd.DataFrame, others) -> dict:
    """The numbers of the report's prose on this reading: per dataset and table, the paper's cells inside our
    intervals under this reading and under the protocol (``others("ofsp-paper")[0]``), and the mean absolute gap of
    each, so that the prose says which reading lands closer by the rules of :mod:`mvlab.reproduction.verdicts`."""
    protocol = others("ofsp-paper")[0]
    lines = []
    for dataset in [d for d in PAPER_ROW if d in set(cells["dataset"])]:
        for table, (column, _) in PAPER_TABLES.items():
            for clf in CLASSIFIER_NAMES:
                leak = cells[(cells["dataset"] == dataset) & (cells["table"] == table) & (cells["classifier"] == clf)
                             & (cells["model"] == LEAK_METHOD)]
                if leak.empty or leak["paper"].isna().all():
                    continue
                mine = protocol[(protocol["dataset"] == dataset) & (protocol["table"] == table)
                                & (protocol["classifier"] == clf) & (protocol["model"] == "OFSP")] \
                    if protocol is not None else leak.iloc[:0]
                a, b = verdict_counts(leak), verdict_counts(mine)
                gap_leak = float((leak["mean"] - leak["paper"]).abs().mean())
                gap_protocol = float((mine["mean"] - mine["paper"]).abs().mean()) if len(mine) else float("nan")
                closer = {"lower": "this reading", "higher": "the protocol", "level": "neither (a tie)"}.get(
                    compare_word(gap_leak, gap_protocol), "")
                lines.append(f"- {PAPER_ROW[dataset]}, {CLASSIFIER_NAMES[clf]}, Table {table} ({column}): "
                             f"{a['inside']} of {a['cells']} of the paper's cells inside our intervals with the "
                             f"accuracy on the test fold (mean |gap| {gap_leak:.3f}, ours {_span(leak['mean'])}), "
                             f"{b['inside']} with the protocol's inner cross-validation "
                             f"(mean |gap| {gap_protocol:.3f}); closer: {closer}.")
    golub = cells[(cells["dataset"] == "golub-3051") & (cells["table"] == 3)]
    kept = draws[draws["dataset"] == "golub-3051"].groupby(["classifier", "k"])["percent_features"].mean()
    kept = kept.groupby(level="classifier").median()
    c = verdict_counts(golub)
    return {"rows": "\n".join(lines),
            "allaml": f"{c['inside']} of the paper's {c['cells']} All-AML accuracy cells inside our intervals",
            **allaml_verdict(cells, draws),
            "allaml_features": f"{kept.min():.1f}–{kept.max():.1f} %" if len(kept) else "not computed"}


def allaml_verdict(cells: pd.DataFrame, draws: pd.DataFrame) -> dict:
    """What this reading gives of the paper's All-AML tables, table by table (``allaml_verdict``), by both
    yardsticks of the rules: a table is *given* when more than half of the paper's cells lie inside our intervals of
    the mean and the cells are near ours by rule 5; *within the margin* when they are near by rule 5 but not inside;
    *not given* otherwise. Where every repetition scores the same on every cell of the table, the intervals have zero
    width, and the clause says so (a printed value is then inside only when it equals ours). And the disagreement's
    cells against ours (``allaml_disagreement``): how many of the paper's are non-zero, and how many lie outside even
    the interval of one repetition, beside the range of ours over every repetition."""
    golub = cells[(cells["dataset"] == "golub-3051") & cells["paper"].notna()]
    if golub.empty:
        return {"allaml_verdict": "not computed yet", "allaml_disagreement": "not computed yet"}
    clauses = []
    for table, (column, _) in PAPER_TABLES.items():
        part = golub[golub["table"] == table]
        c = verdict_counts(part)
        if not c["cells"]:
            continue
        gaps = part["mean"] - part["paper"]
        counts = gap_counts(gaps)
        zero_width = (part["ci_high"] == part["ci_low"]).all()
        facts = (f"{c['inside']} of its {c['cells']} {column} cells inside our intervals"
                 + (", which have zero width: every repetition scores the same" if zero_width else "")
                 + f"; {group_text(gaps)}")
        if c["inside"] * 2 > c["cells"] and group_word(counts) == "near":
            clauses.append(f"gives the paper's All-AML {column} ({facts})")
        elif group_word(counts) == "near":
            clauses.append(f"comes within rule 2's margin of its {column}, not inside our intervals ({facts})")
        else:
            clauses.append(f"does not give its {column} ({facts})")
    verdict = "choosing OFSP's features by accuracy on the test fold " + "; it ".join(clauses)
    t4 = golub[golub["table"] == 4]
    ours = draws[(draws["dataset"] == "golub-3051") & draws["disagreement"].notna()]["disagreement"]
    nonzero = t4[t4["paper"] > 0]
    outside = int(t4["inside_one_draw"].map(is_false).sum())
    disagreement = (f"the paper's All-AML disagreement is non-zero in {len(nonzero)} of its {len(t4)} cells "
                    f"({nonzero['paper'].min():.4f}–{nonzero['paper'].max():.4f}), while with the features chosen on "
                    f"the test fold OFSP's members disagree by {_span(ours)} over every repetition and k; {outside} "
                    f"of the {len(t4)} cells lie outside even the interval of one "
                    "repetition") if len(t4) and len(nonzero) else "no disagreement cell computed yet"
    return {"allaml_verdict": verdict, "allaml_disagreement": disagreement}


def _span(values: pd.Series) -> str:
    """``"0.012–0.034"``, or ``"exactly 0.000"`` when every value is the same."""
    low, high = f"{values.min():.3f}", f"{values.max():.3f}"
    return f"exactly {low}" if low == high else f"{low}–{high}"


READING = ofsp_reading(
    "ofsp-leak", "What would explain All-AML's 100 % cells: OFSP's accuracy measured on the test fold",
    "The paper does not say on which rows OFSP measures the accuracy its greedy search maximises; mvlab's protocol "
    "uses an inner cross-validation of the training rows. Here the same folds and seeds with that accuracy measured "
    "on the outer test fold, the rows then scored: it chooses on test data, a diagnosis, never a protocol to use.",
    draw=run_leak_draw, datasets=("golub-3051",), dataset_choices=tuple(DATASETS), classifiers=CLASSIFIERS,
    markdown=ofsp_leak_markdown, facts=ofsp_leak_facts, paper_methods=(LEAK_METHOD,))
"""OFSP with its accuracy on the test fold (All-AML leukemia by default; Madelon too)."""
