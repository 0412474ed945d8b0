"""Benchmark page: which method wins, and is it significant?"""

import json

import streamlit as st

from mvlab.experiments.families import FAMILIES, family_of_run
from mvlab.experiments.report import family_reports, format_critical
from mvlab.experiments.settings import BenchmarkSettings
from mvlab.store import StoreUnavailable
from mvlab.ui import links, runs, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.prose import page_text
from mvlab.ui.state import current_seed, kept, set_kept, sidebar
from mvlab.ui.tables import readable
from mvlab.viz import benchmark_figures

sidebar()
seed = current_seed()
st.title("Benchmark")
st.caption("Which method wins, and is it significant? Repeated splits on several datasets, every method on the "
           "same splits, then ranks, sign tests and Friedman with Holm, as in the papers.")
with st.expander("What am I looking at?"):
    st.markdown(page_text("benchmark", "what_am_i_looking_at"))

S = BenchmarkSettings
pending_family = links.pending("family", kept("bm_family", widgets.field_default(S, "family")))
WIDGETS = widgets.widget_keys(S, "bm", names={"methods": f"methods_{pending_family}", "n_max": "n", "n_pairs": "pairs"})
links.apply_page(S, WIDGETS, set_kept, seed)
family_name = widgets.radio(st, S, "family", "Methods", WIDGETS["family"], format_func=lambda f: FAMILIES[f].title,
                            horizontal=True)
family = FAMILIES[family_name]
# full-width rows: a select box of chips in a narrow column hides the chips past its edge
names = widgets.multiselect(st, S, "datasets", "Datasets", WIDGETS["datasets"])
methods = widgets.multiselect(st, S, "methods", "Compare", f"bm_methods_{family_name}", options=family.methods,
                              help="\n".join(f"- **{m}**: {family.method_titles.get(m, m)}" for m in family.methods))
d = st.columns(4)
reps = widgets.number(d[0], S, "repetitions", "Repetitions", WIDGETS["repetitions"])
trees = widgets.number(d[1], S, "n_estimators", "Trees per forest", WIDGETS["n_estimators"], step=10)
n_max = widgets.number(d[2], S, "n_max", "Instances per dataset at most", WIDGETS["n_max"], step=100)
n_pairs = widgets.number(d[3], S, "n_pairs", "Training pairs N (pairs)", WIDGETS["n_pairs"], step=50)
settings = BenchmarkSettings(seed=seed, family=family_name, datasets=tuple(names), methods=tuple(methods),
                             repetitions=int(reps), n_estimators=int(trees), n_max=int(n_max), n_pairs=int(n_pairs))
links.publish(settings)


@runs.training_part
def train_and_show():
    try:
        run_and_show_batches()
    except StoreUnavailable as exc:  # no traceback: the page shows its batches again once the store is back
        st.warning(f"{exc} The benchmark's runs cannot be started or shown until it is back; press **R** to look "
                   "again.", icon=":material/cloud_off:")


def run_and_show_batches():
    store = runs.results_store()
    problems = settings.problems()
    outcome = None
    if problems:
        if st.button("Run benchmark", type="primary", key="bm_run"):
            st.error(" ".join(problems))
    else:
        outcome = runs.engine_button(runs.benchmark_request(settings), "bm_run", "Benchmark", button="Run benchmark")
    if outcome is not None:
        batch, skipped = outcome.result
        for message in skipped:
            st.error(message)
        set_kept("bm_batch", batch)

    labels = store.batches()
    if not labels:
        st.info("Choose datasets and methods and press **Run benchmark**.")
        return
    batch = widgets.choice(st, "Results to show (newest first)", labels, "bm_batch", next(iter(labels)),
                           format_func=labels.get)
    table = store.results(kind=batch)
    if table.empty:
        st.warning("This run stored no results yet (it may have been interrupted before its first split finished).")
        return
    run_rows = store.runs(kind=batch)
    shown_family = family_of_run(run_rows["settings"].iloc[0], batch)
    if shown_family is None:
        st.warning(f"The runs of {batch} do not say which family of methods they compare; showing means only.")
        st.dataframe(table.groupby(["dataset", "method"])["value"].mean().unstack(), width="stretch")
        return
    reports = family_reports(table, shown_family)
    group = ""
    if len(reports) > 1:
        group = st.selectbox("Compare within", list(reports), key="bm_group",
                             help="View construction compares the methods for each base classifier separately "
                                  "(mean over k = 1..K, repetitions and folds on every dataset).")
    report = reports[group]
    baseline, control = shown_family.baseline, shown_family.control

    st.subheader("Mean ± std of test accuracy")
    st.dataframe(report.mean_std_table(), width="stretch")
    left, right = st.columns(2)
    if report.ranks is not None:
        show_figure(left, benchmark_figures.average_rank_bars(report.ranks), key="bm_ranks")
    if report.sign_tests is not None:
        show_figure(right, benchmark_figures.win_tie_loss(report.sign_tests, baseline, report.sign_critical),
                           key="bm_sign")
        st.dataframe(report.sign_table(), width="stretch",
                     column_config={"exact binomial p": st.column_config.NumberColumn(format="%.4f")})
        st.caption(f"Sign test against **{baseline}** over {len(report.means)} datasets, the paper's rule "
                   "(Demšar 2006): significant when wins + ties/2 reaches the critical number, "
                   + ", ".join(f"{format_critical(v)} at {k}" for k, v in report.sign_critical.items())
                   + " (significantly worse when losses + ties/2 does). The exact binomial p (an odd tie dropped) is "
                   "shown beside it, not used for the verdict.")
        note = report.sign_test_note()
        if note:
            st.warning(note)
    if report.friedman is not None:
        st.markdown(f"**Friedman** over {len(report.means)} datasets: χ² = {report.friedman.statistic:.3f}, "
                    f"p = {report.friedman.p_value:.4f}. Post-hoc against **{control}**:")
        st.dataframe(readable(report.posthoc), width="stretch")
    elif len(report.means) < 3:
        st.caption("Friedman's test needs at least three datasets.")
    if report.critical_differences:
        cd_names = {"nemenyi": "All pairs (Nemenyi)", "holm": f"Against {control} (Holm)",
                    "bonferroni-dunn": f"Against {control} (Bonferroni-Dunn)"}
        cd_kind = widgets.choice(st, "Critical-difference diagram", report.critical_differences, "bm_cd",
                                 "nemenyi", kind="radio", format_func=cd_names.get,
                                 horizontal=True)  # a batch may lack the control
        cd = report.critical_differences[cd_kind]
        show_figure(st, benchmark_figures.critical_difference_diagram(cd), key="bm_cd_chart")
        st.caption("Methods joined by a bar are not significantly different at α = 0.05 "
                   + ("(Nemenyi: their average ranks differ by less than the critical difference). "
                      if cd.control is None else f"from {control}, the one in bold vermillion. ")
                   + "Demšar (2006): run the post-hoc only when Friedman's test rejects"
                   + (f" (here p = {report.friedman.p_value:.4f})." if report.friedman is not None else "."))

    manifest = store.batch_manifest(batch)
    c1, c2 = st.columns(2)
    c1.download_button("Download results (.csv)", lambda: table.to_csv(index=False), file_name="benchmark.csv",
                       mime="text/csv", key="bm_dl_csv")
    c2.download_button("Download manifest (.json: settings, seeds, data fingerprints, versions)",
                       json.dumps(manifest, indent=2), file_name="benchmark-manifest.json", mime="application/json",
                       key="bm_dl_json")


train_and_show()
