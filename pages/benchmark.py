"""Benchmark page: which method wins, and is it significant?"""

import json
import uuid

import pandas as pd
import streamlit as st

import mvlab.datasets as datasets
from mvlab.viz import plots
from mvlab.experiments.protocols import RepeatedHoldout, RepeatedPairDraws
from mvlab.experiments.runner import run_experiment
from mvlab.rfd.classifier import COMBINATIONS
from mvlab.experiments.report import build_report, format_critical
from mvlab.experiments.pair_methods import PAIR_METHODS
from mvlab.ui import runs
from mvlab.ui.state import current_seed, keep, set_kept, sidebar

sidebar()
seed = current_seed()
st.title("Benchmark")
st.caption("Which method wins, and is it significant? Repeated splits on several datasets, every method on the "
           "same splits, then ranks, sign tests and Friedman with Holm, as in the papers.")
with st.expander("What am I looking at?"):
    st.markdown(
        """
Each dataset is split several times (stratified hold-out for the dissimilarity methods, fresh draws of
training and test pairs for the pair methods); every method sees exactly the same splits and, for the
dissimilarity methods, the same view forests. The table gives the mean ± standard deviation of test accuracy
per dataset. Over datasets: the **average rank** (1 = best), the **sign test** of every method against a
baseline, and, with three or more datasets, **Friedman's test** with a Holm post-hoc against the proposed
method. The sign test follows one rule in the chart, the table and the verdict, the paper's (Demšar 2006):
ties are split in half, and a method is significantly better when wins + ties/2 (the diamond) reaches
N/2 + z·√N/2 for N datasets (the vertical lines on the right, α = 0.05 and 0.10), significantly worse when
losses + ties/2 does (the lines on the left). The exact binomial p-value is shown beside the verdict: the
critical numbers are a normal approximation, loose with few datasets. The **critical-difference diagram**
places the methods on the average-rank axis and joins with a bar those that are not significantly different
(Nemenyi for all pairs; Holm or Bonferroni-Dunn against the proposed method). Every run is kept in the
results store: pick an earlier one below. Few datasets make weak tests; say so when you quote them.
"""
    )

FAMILIES = {"dissimilarity": ("Random-forest dissimilarities (Bernard et al.)", list(COMBINATIONS)),
            "pairs": ("Pairs: RF, bagging, gcForest, SDF (Utkin & Ryabinin)", list(PAIR_METHODS))}


def roles(kind: str) -> tuple[str, str]:
    """(baseline of the sign test, control of the post-hoc) for a stored batch."""
    if ":pairs" in kind or ":sdf" in kind:
        return "gcforest", "sdf"
    if ":view-construction" in kind or ":ofsp" in kind:
        return "random", "ofsp"
    return "average", "dvs"

c = st.columns(3)
family = c[0].radio("Methods", list(FAMILIES), format_func=lambda f: FAMILIES[f][0], **keep("bm_family", "dissimilarity"))
names = c[1].multiselect("Datasets", datasets.list_datasets(),
                         **keep("bm_datasets", ["breast-cancer", "digits", "nutrimouse"]))
methods = c[2].multiselect("Compare", FAMILIES[family][1], **keep(f"bm_methods_{family}", FAMILIES[family][1]))
d = st.columns(4)
reps = d[0].number_input("Repetitions", 1, 100, step=1, **keep("bm_reps", 3), help="Papers: 10 (DVS), 100 (SDF).")
trees = d[1].number_input("Trees per forest", 3, 1000, step=10, **keep("bm_trees", 20))
n_max = d[2].number_input("Instances per dataset at most", 40, 2000, step=100, **keep("bm_n", 600),
                          help="Larger datasets use a stratified sample.")
n_pairs = d[3].number_input("Training pairs N (pairs)", 20, 5000, step=50, **keep("bm_pairs", 100))
run = st.button("Run benchmark", type="primary", key="bm_run")

store = runs.results_store()
if run:
    if not names or len(methods) < 2:
        st.error("Choose at least one dataset and two methods.")
    else:
        batch = f"benchmark:{family}:{uuid.uuid4().hex[:8]}"
        params = ({"combinations": methods, "n_estimators": int(trees)} if family == "dissimilarity" else
                  {"methods": methods, "n_estimators": int(trees), "sdf_params": {"max_levels": 3}})
        protocol = RepeatedHoldout(int(reps), 0.5) if family == "dissimilarity" else RepeatedPairDraws(int(reps), int(n_pairs))
        progress = runs.progress_bar("Benchmark")
        for i, name in enumerate(names):
            ds = datasets.load_dataset(name)
            ds = ds.stratified_sample(min(int(n_max), ds.n_samples), random_state=seed)
            try:
                run_experiment(ds, family, params, protocol, random_state=seed, store=store, kind=batch,
                               progress=lambda f, m, i=i, n=ds.name: progress((i + f) / len(names), f"{n}: {m}"))
            except ValueError as exc:
                st.error(f"{ds.name} was skipped: {exc}")
        set_kept("bm_batch", batch)

stored = store.runs()
stored = stored[stored["kind"].str.startswith(("benchmark:", "reproduce:"))]
if stored.empty:
    st.info("Choose datasets and methods and press **Run benchmark** (about a minute with the defaults).")
    st.stop()
batches = list(dict.fromkeys(stored["kind"]))
labels = {b: f"{b} · {', '.join(stored[stored.kind == b]['dataset'])} · "
             f"{pd.to_datetime(stored[stored.kind == b]['started'].max(), unit='s'):%Y-%m-%d %H:%M}" for b in batches}
batch = st.selectbox("Results to show (newest first)", batches, format_func=labels.get, **keep("bm_batch", batches[0]))
table = store.results(kind=batch)
if table.empty:
    st.warning("This run stored no results yet (it may have been interrupted before its first split finished).")
    st.stop()
baseline, control = roles(batch)
report = build_report(table, baseline, control)

st.subheader("Mean ± std of test accuracy")
st.dataframe(report.mean_std_table(), width="stretch")
left, right = st.columns(2)
if report.ranks is not None:
    left.plotly_chart(plots.average_rank_bars(report.ranks), key="bm_ranks")
if report.sign_tests is not None:
    right.plotly_chart(plots.win_tie_loss(report.sign_tests, baseline, report.sign_critical), key="bm_sign")
    st.dataframe(report.sign_table(), width="stretch",
                 column_config={"exact binomial p": st.column_config.NumberColumn(format="%.4f")})
    st.caption(f"Sign test against **{baseline}** over {len(report.means)} datasets, the paper's rule (Demšar 2006): "
               "significant when wins + ties/2 reaches the critical number, "
               + ", ".join(f"{format_critical(v)} at {k}" for k, v in report.sign_critical.items())
               + " (significantly worse when losses + ties/2 does). The exact binomial p (an odd tie dropped) is "
               "shown beside it, not used for the verdict.")
    note = report.sign_test_note()
    if note:
        st.warning(note)
if report.friedman is not None:
    st.markdown(f"**Friedman** over {len(report.means)} datasets: χ² = {report.friedman.statistic:.3f}, "
                f"p = {report.friedman.p_value:.4f}. Post-hoc against **{control}**:")
    st.dataframe(report.posthoc.round(4), width="stretch")
elif len(report.means) < 3:
    st.caption("Friedman's test needs at least three datasets.")
if report.critical_differences:
    cd_names = {"nemenyi": "All pairs (Nemenyi)", "holm": f"Against {control} (Holm)",
                "bonferroni-dunn": f"Against {control} (Bonferroni-Dunn)"}
    cd_kept = keep("bm_cd", "nemenyi")
    if st.session_state["bm_cd"] not in report.critical_differences:  # a batch without the control
        st.session_state["bm_cd"] = "nemenyi"
    cd_kind = st.radio("Critical-difference diagram", list(report.critical_differences), format_func=cd_names.get,
                       horizontal=True, **cd_kept)
    cd = report.critical_differences[cd_kind]
    st.plotly_chart(plots.critical_difference_diagram(cd), key="bm_cd_chart")
    st.caption("Methods joined by a bar are not significantly different at α = 0.05 "
               + ("(Nemenyi: their average ranks differ by less than the critical difference). "
                  if cd.control is None else f"from {control}, the red one. ")
               + "Demšar (2006): run the post-hoc only when Friedman's test rejects"
               + (f" (here p = {report.friedman.p_value:.4f})." if report.friedman is not None else "."))

run_rows = stored[stored.kind == batch]
manifest = {"kind": batch, "runs": json.loads(run_rows[["run_id", "dataset", "fingerprint", "seed", "settings",
                                                        "versions", "status"]].to_json(orient="records"))}
c1, c2 = st.columns(2)
c1.download_button("Download results (.csv)", table.to_csv(index=False), file_name="benchmark.csv", mime="text/csv",
                   key="bm_dl_csv")
c2.download_button("Download manifest (.json: settings, seeds, data fingerprints, versions)",
                   json.dumps(manifest, indent=2), file_name="benchmark-manifest.json", mime="application/json",
                   key="bm_dl_json")
